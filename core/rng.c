/* rng.c - SplitMix64 and xoshiro256**; see rng.h. */
#include "rng.h"

#define GOLDEN 0x9e3779b97f4a7c15ULL

uint64_t kb_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t kb_splitmix64(uint64_t *state)
{
	*state += GOLDEN;
	return kb_mix64(*state);
}

void kb_rng_seed(kb_rng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = kb_splitmix64(&seed);
	/* SplitMix64 is a bijection of its counter, so four successive outputs
	 * are never all zero; no all-zero xoshiro state can arise. */
}

uint64_t kb_stream_seed(uint64_t seed, uint32_t tag, uint64_t index)
{
	return kb_mix64(kb_mix64(seed ^ ((uint64_t)tag * GOLDEN)) + index * GOLDEN + GOLDEN);
}

void kb_rng_stream(kb_rng *rng, uint64_t seed, uint32_t tag, uint64_t index)
{
	kb_rng_seed(rng, kb_stream_seed(seed, tag, index));
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t kb_rng_next(kb_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint32_t kb_rng_below(kb_rng *rng, uint32_t n)
{
	/* Accept only values below the largest multiple of n that fits in
	 * 2^64, so every residue is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = kb_rng_next(rng);
	while (x >= limit);
	return (uint32_t)(x % n);
}

int kb_rng_die(kb_rng *rng)
{
	return 1 + (int)kb_rng_below(rng, 6);
}
