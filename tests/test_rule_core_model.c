/* test_rule_core_model.c - rules of core/model.c pinned on their own
 * (found by make mutate, docs/mutation.md).  Expectations are written out
 * by hand, never computed with the code under test. */
#include <criterion/criterion.h>
#include <math.h>

#include "core/model.h"
#include "support.h"

/* With one legal piece the model is sure of it: probability 1 there, 0
 * elsewhere, whatever the mixture; with none, every probability is 0. */
Test(core_rules, model_probs_of_a_single_legal_piece)
{
	kb_pos pos = test_pos(0xf, "0 5 9 12", "", "", "");
	kb_model m;
	double p[KB_PIECES];

	kb_model_prior(&m);
	for (int i = 0; i < KB_PIECES; i++) {
		kb_model_probs(&m, &pos, 0, 3, 1u << i, p);
		for (int j = 0; j < KB_PIECES; j++)
			cr_assert(fabs(p[j] - (i == j)) < 1e-12, "mask %#x: p[%d] = %g", 1u << i, j, p[j]);
	}
	kb_model_probs(&m, &pos, 0, 3, 0, p);
	for (int j = 0; j < KB_PIECES; j++)
		cr_assert_eq(p[j], 0.0);
}
