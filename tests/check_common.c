/*
 * check_common.c - the ground floor (common/): the shared vocabulary of
 * kinds, states, verdicts and severities.
 */
#include "test_util.h"

#include "vocab.h"

/* Every name parses back to its enum, and the names are the API's. */
START_TEST(vocab_round_trips)
{
	static const char *const kinds[] = {"auto", "file", "archive", "patch",
	    "mbox", "bundle", "directory"};
	static const char *const states[] = {"received", "scanning", "held",
	    "approved", "rejected", "released", "expired"};
	static const char *const verdicts[] = {"clean", "flagged",
	    "unscannable"};
	static const char *const sevs[] = {"info", "low", "medium", "high",
	    "critical"};
	int i;

	for (i = 0; i < 7; i++) {
		ck_assert_int_eq(al_kind_parse(kinds[i]), AL_KIND_AUTO + i);
		ck_assert_str_eq(al_kind_name((enum al_kind)(AL_KIND_AUTO + i)),
		    kinds[i]);
	}
	ck_assert_int_eq(AL_STATE_MAX, 7);
	for (i = 0; i < AL_STATE_MAX; i++) {
		ck_assert_int_eq(al_state_parse(states[i]), i);
		ck_assert_str_eq(al_state_name((enum al_state)i), states[i]);
	}
	ck_assert_int_eq(AL_VERDICT_MAX, 3);
	for (i = 0; i < AL_VERDICT_MAX; i++) {
		ck_assert_int_eq(al_verdict_parse(verdicts[i]), i);
		ck_assert_str_eq(al_verdict_name((enum al_verdict)i), verdicts[i]);
	}
	ck_assert_int_eq(AL_SEV_MAX, 5);
	for (i = 0; i < AL_SEV_MAX; i++) {
		ck_assert_int_eq(al_severity_parse(sevs[i]), i);
		ck_assert_str_eq(al_severity_name((enum al_severity)i), sevs[i]);
	}
	/* Severities are ordered: a comparison means "worse". */
	ck_assert_int_lt(AL_SEV_MEDIUM, AL_SEV_HIGH);
	ck_assert_int_lt(AL_SEV_NONE, AL_SEV_INFO);
}
END_TEST

/* Unknown, NULL, empty, differently cased or internal names are refused;
 * "none" values have no name. */
START_TEST(vocab_refuses_the_unknown)
{
	ck_assert_int_eq(al_kind_parse("member"), -1);
	ck_assert_int_eq(al_kind_parse("Archive"), -1);
	ck_assert_int_eq(al_kind_parse(""), -1);
	ck_assert_int_eq(al_kind_parse(NULL), -1);
	ck_assert_int_eq(al_state_parse("held "), -1);
	ck_assert_int_eq(al_state_parse(NULL), -1);
	ck_assert_int_eq(al_verdict_parse("interrupted"), -1);
	ck_assert_int_eq(al_severity_parse("CRITICAL"), -1);
	ck_assert_int_eq(al_severity_parse("unknown"), -1);
	ck_assert_ptr_null(al_verdict_name(AL_VERDICT_NONE));
	ck_assert_ptr_null(al_verdict_name(AL_VERDICT_MAX));
	ck_assert_ptr_null(al_severity_name(AL_SEV_NONE));
	ck_assert_ptr_null(al_severity_name(AL_SEV_MAX));
	ck_assert_str_eq(al_kind_name(AL_KIND_MAX), "?");
	ck_assert_str_eq(al_state_name(AL_STATE_MAX), "?");
}
END_TEST

/* What a submitter may ask for: not "member", not "directory". */
START_TEST(vocab_submittable_kinds)
{
	int k;

	for (k = -1; k <= AL_KIND_MAX; k++)
		ck_assert_int_eq(al_kind_submittable(k), k >= AL_KIND_AUTO &&
		    k <= AL_KIND_BUNDLE);
	ck_assert(!al_kind_submittable(al_kind_parse("directory")));
	ck_assert(al_kind_submittable(al_kind_parse("mbox")));
}
END_TEST

static Suite *
common_suite(void)
{
	Suite *s = suite_create("common");
	TCase *tc;

	tc = tcase_create("vocabulary");
	tcase_add_test(tc, vocab_round_trips);
	tcase_add_test(tc, vocab_refuses_the_unknown);
	tcase_add_test(tc, vocab_submittable_kinds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(common_suite()) ? 1 : 0;
}
