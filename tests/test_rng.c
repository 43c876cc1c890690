/* test_rng.c - known answers of SplitMix64 and xoshiro256**, dice and
 * streams. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/rng.h"

/* SplitMix64 from state 0: the algorithm's published first outputs. */
Test(rng, splitmix64_known_answers)
{
	uint64_t s = 0;
	cr_assert_eq(kb_splitmix64(&s), 0xe220a8397b1dcdafULL);
	cr_assert_eq(kb_splitmix64(&s), 0x6e789e6aa1b965f4ULL);
	cr_assert_eq(kb_splitmix64(&s), 0x06c45d188009454fULL);
	cr_assert_eq(kb_splitmix64(&s), 0xf88bb8a8724c81ecULL);
}

/* xoshiro256** from the state {1, 2, 3, 4}: the reference outputs. */
Test(rng, xoshiro256ss_known_answers)
{
	kb_rng r = {{1, 2, 3, 4}};
	cr_assert_eq(kb_rng_next(&r), 11520ULL);
	cr_assert_eq(kb_rng_next(&r), 0ULL);
	cr_assert_eq(kb_rng_next(&r), 1509978240ULL);
	cr_assert_eq(kb_rng_next(&r), 1215971899390074240ULL);
}

Test(rng, die_is_uniform_and_in_range)
{
	kb_rng r;
	long count[7] = {0};
	kb_rng_seed(&r, 12345);
	for (int k = 0; k < 600000; k++) {
		int d = kb_rng_die(&r);
		cr_assert(d >= 1 && d <= 6);
		count[d]++;
	}
	for (int d = 1; d <= 6; d++)
		cr_assert(count[d] > 99000 && count[d] < 101000, "face %d: %ld", d, count[d]);
}

Test(rng, streams_are_reproducible_and_distinct)
{
	kb_rng a, b, c;
	kb_rng_stream(&a, 99, KB_TAG_DICE, 0);
	kb_rng_stream(&b, 99, KB_TAG_DICE, 0);
	kb_rng_stream(&c, 99, KB_TAG_DICE, 1);
	cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
	cr_assert_neq(memcmp(&a, &c, sizeof a), 0);
	cr_assert_neq(kb_stream_seed(99, KB_TAG_DICE, 0), kb_stream_seed(99, KB_TAG_POLICY, 0));
	cr_assert_neq(kb_stream_seed(99, KB_TAG_DICE, 0), kb_stream_seed(100, KB_TAG_DICE, 0));
}

Test(rng, below_covers_range)
{
	kb_rng r;
	int seen[5] = {0};
	kb_rng_seed(&r, 1);
	for (int k = 0; k < 1000; k++)
		seen[kb_rng_below(&r, 5)] = 1;
	for (int i = 0; i < 5; i++)
		cr_assert(seen[i]);
	cr_assert_eq(kb_rng_below(&r, 1), 0u);
}

/* kb_rng_below(n) refuses every draw at or above the largest multiple of n
 * below 2^64 (for 6: 0xfffffffffffffffc), the limit itself included, and
 * draws again.  The state below makes xoshiro256** give exactly that
 * limit first (s[1] = 5^-1 * rotr(limit * 9^-1, 7) mod 2^64), then 0x167c,
 * worked out apart: the roll comes from the second draw, 0x167c % 6 = 2. */
Test(rng, below_refuses_the_limit_itself)
{
	kb_rng rng = {{3, 0x3eb60b60b60b60b6ULL, 2, 3}}, copy = rng;

	cr_assert_eq(kb_rng_next(&copy), 0xfffffffffffffffcULL);
	cr_assert_eq(kb_rng_next(&copy), 0x167cULL);
	cr_assert_eq(kb_rng_below(&rng, 6), 2);
	cr_assert_eq(kb_rng_next(&rng), 0xfffffffffe0001f8ULL, "two draws used");
}
