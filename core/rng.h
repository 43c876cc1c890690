/* rng.h - seeded random numbers: SplitMix64 seeding xoshiro256**.
 *
 * Every random choice in the project comes from here, so the same seeds give
 * byte-identical games.  The algorithms are the published ones (Steele, Lea
 * and Flood's SplitMix64; Blackman and Vigna's xoshiro256**), implemented
 * from their descriptions and checked against their known answers.
 *
 * Streams.  One 64-bit seed yields any number of independent streams, each
 * named by a tag and an index:
 *
 *     stream_seed = mix64(mix64(seed ^ (tag * G)) + index * G + G)
 *
 * where G = 0x9e3779b97f4a7c15 and mix64 is SplitMix64's output function;
 * the stream's xoshiro256** state is then filled with four successive
 * SplitMix64 outputs started from stream_seed.  The tags in use are listed
 * below; a game seeded with S rolls seat s's die from stream (S, KB_TAG_DICE,
 * s) whatever sits in that seat, which is what makes duplicate games fair.
 *
 * None of these functions can fail.
 */
#ifndef KB_RNG_H
#define KB_RNG_H

#include <stdint.h>

/* Stream tags: what a stream is for. */
enum kb_tag {
	KB_TAG_FIRST = 1,   /* index 0: which seat rolls first */
	KB_TAG_DICE = 2,    /* index = absolute seat 0..3: that seat's dice */
	KB_TAG_POLICY = 3,  /* index = absolute seat: built-in random policy */
	KB_TAG_TIEBREAK = 4,/* index 0: a bot's tie-breaks from its SEED */
	KB_TAG_GAME = 5,    /* index k: the seed of the k-th game of a run */
	KB_TAG_USER = 16    /* first tag free for programs' own purposes */
};

typedef struct kb_rng {
	uint64_t s[4];
} kb_rng;

/* SplitMix64: advance *state and return the next output. */
uint64_t kb_splitmix64(uint64_t *state);

/* SplitMix64's output function alone (a bijective 64-bit mixer). */
uint64_t kb_mix64(uint64_t x);

/* Seed a xoshiro256** generator from one 64-bit value via SplitMix64. */
void kb_rng_seed(kb_rng *rng, uint64_t seed);

/* Seed a generator for stream (tag, index) of seed (see above). */
void kb_rng_stream(kb_rng *rng, uint64_t seed, uint32_t tag, uint64_t index);

/* The seed value of stream (tag, index) of seed, for programs that hand a
 * derived seed on (a game seed, a bot's SEED argument). */
uint64_t kb_stream_seed(uint64_t seed, uint32_t tag, uint64_t index);

/* Next xoshiro256** output. */
uint64_t kb_rng_next(kb_rng *rng);

/* Uniform integer in [0, n), n >= 1, without modulo bias (rejection). */
uint32_t kb_rng_below(kb_rng *rng, uint32_t n);

/* A die roll 1..6, without modulo bias. */
int kb_rng_die(kb_rng *rng);

#endif
