/*
 * check_attest.c - release attestations: a DSSE envelope signed by the
 * gate's key verifies; changing any byte of the payload or the signature,
 * the payload type, or the key makes verification fail; a statement that
 * is not an airlock release statement fails even when validly signed.
 */
#include <openssl/evp.h>

#include "test_util.h"

#include "attest.h"

static EVP_PKEY *key, *other;

static void
setup(void)
{
	key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	other = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	ck_assert_ptr_nonnull(key);
	ck_assert_ptr_nonnull(other);
}

static void
teardown(void)
{
	EVP_PKEY_free(key);
	EVP_PKEY_free(other);
}

static json_t *
statement(void)
{
	return json_pack("{s:s, s:[{s:s, s:{s:s}}], s:s, s:{s:s}}", "_type",
	    ATTEST_STATEMENT_TYPE, "subject", "name", "fix.patch", "digest",
	    "sha256", "45cd4e70d7d6742ae5e54d529f78c5ffb9b04bd3d693dbc561dbf781"
	    "49db4793", "predicateType", ATTEST_PREDICATE_TYPE, "predicate",
	    "released_by", "ci");
}

/* Re-encodes the envelope with field name replaced by value. */
static char *
with_field(const char *env, const char *name, const char *value)
{
	json_error_t e;
	json_t *j = json_loads(env, 0, &e), *target = j;
	char *out;

	ck_assert_ptr_nonnull(j);
	if (strcmp(name, "sig") == 0)
		target = json_array_get(json_object_get(j, "signatures"), 0);
	json_object_set_new(target, name, json_string(value));
	out = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return out;
}

static const char *
field(const char *env, const char *name, char *buf, size_t n)
{
	json_error_t e;
	json_t *j = json_loads(env, 0, &e), *target = j;

	if (strcmp(name, "sig") == 0)
		target = json_array_get(json_object_get(j, "signatures"), 0);
	snprintf(buf, n, "%s", json_string_value(json_object_get(target, name)));
	json_decref(j);
	return buf;
}

static int
verifies(const char *env, EVP_PKEY *k)
{
	json_t *st = NULL;
	int rc = attest_verify(env, strlen(env), k, &st);

	json_decref(st);
	return rc == 0;
}

START_TEST(t_signed_statement_verifies)
{
	json_t *st = statement(), *got = NULL;
	char *env = NULL;

	ck_assert_int_eq(attest_sign(key, st, &env), 0);
	ck_assert_int_eq(attest_verify(env, strlen(env), key, &got), 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    json_array_get(json_object_get(got, "subject"), 0), "digest"),
	    "sha256")), "45cd4e70d7d6742ae5e54d529f78c5ffb9b04bd3d693dbc561dbf7"
	    "8149db4793");
	json_decref(got);
	json_decref(st);
	free(env);
}
END_TEST

START_TEST(t_any_changed_byte_fails)
{
	json_t *st = statement();
	char *env = NULL, buf[8192], *bad;
	size_t i, n;

	ck_assert_int_eq(attest_sign(key, st, &env), 0);
	/* Each byte of the payload and of the signature, flipped in turn
	 * (within the base64 alphabet, so that it still decodes). */
	for (i = 0; i < 2; i++) {
		const char *name = i ? "sig" : "payload";
		size_t k;

		field(env, name, buf, sizeof(buf));
		n = strlen(buf);
		for (k = 0; k < n; k++) {
			char saved = buf[k];

			if (saved == '=')
				continue;
			/* 'A' and 'w' differ in the top bits of the sextet: the
			 * last character before padding carries only those. */
			buf[k] = saved == 'A' ? 'w' : 'A';
			bad = with_field(env, name, buf);
			ck_assert_msg(!verifies(bad, key), "%s byte %zu changed, "
			    "still verifies", name, k);
			free(bad);
			buf[k] = saved;
		}
	}
	bad = with_field(env, "payloadType", "application/json");
	ck_assert(!verifies(bad, key));
	free(bad);
	ck_assert(!verifies(env, other));
	ck_assert(verifies(env, key));
	json_decref(st);
	free(env);
}
END_TEST

START_TEST(t_other_statements_refused)
{
	json_t *st = statement();
	char *env = NULL;

	json_object_set_new(st, "predicateType",
	    json_string("https://example.com/other"));
	ck_assert_int_eq(attest_sign(key, st, &env), 0);
	ck_assert(!verifies(env, key));
	free(env);
	ck_assert(!verifies("{}", key));
	ck_assert(!verifies("not json", key));
	json_decref(st);
}
END_TEST

static Suite *
attest_suite(void)
{
	Suite *s = suite_create("attest");
	TCase *tc = tcase_create("dsse");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_signed_statement_verifies);
	tcase_add_test(tc, t_any_changed_byte_fails);
	tcase_add_test(tc, t_other_statements_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(attest_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
