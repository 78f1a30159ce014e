/*
 * check_attest.c - release attestations: a DSSE envelope signed by the
 * gate's key verifies; changing any byte of the payload or the signature,
 * the payload type, or the key makes verification fail; a statement that
 * is not an airlock release statement fails even when validly signed.
 * The keyring: the envelope's key id selects the key; an unknown key id
 * fails even when the keyring holds other keys; a statement that names
 * another key than the one that signed it fails; a PEM file of several
 * keys is a keyring.
 */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"

#include "attest.h"
#include "err.h"

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

/* A release statement that names k as the gate's key. */
static json_t *
statement_by(EVP_PKEY *k)
{
	char id[65];

	ck_assert_int_eq(attest_keyid(k, id), 0);
	return json_pack("{s:s, s:[{s:s, s:{s:s}}], s:s, s:{s:s, s:s}}", "_type",
	    ATTEST_STATEMENT_TYPE, "subject", "name", "fix.patch", "digest",
	    "sha256", "45cd4e70d7d6742ae5e54d529f78c5ffb9b04bd3d693dbc561dbf781"
	    "49db4793", "predicateType", ATTEST_PREDICATE_TYPE, "predicate",
	    "released_by", "ci", "gate_key", id);
}

static json_t *
statement(void)
{
	return statement_by(key);
}

/* Re-encodes the envelope with field name replaced by value (sig and keyid:
 * of the first signature). */
static char *
with_field(const char *env, const char *name, const char *value)
{
	json_error_t e;
	json_t *j = json_loads(env, 0, &e), *target = j;
	char *out;

	ck_assert_ptr_nonnull(j);
	if (strcmp(name, "sig") == 0 || strcmp(name, "keyid") == 0)
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

static EVP_PKEY *
ref(EVP_PKEY *k)
{
	ck_assert_int_eq(EVP_PKEY_up_ref(k), 1);
	return k;
}

static int
verifies_ring(const char *env, const struct attest_keyring *kr, char id[65])
{
	json_t *st = NULL;
	int rc = attest_verify_keyring(env, strlen(env), kr, &st, id);

	json_decref(st);
	return rc == 0;
}

START_TEST(t_keyring_selects_by_key_id)
{
	struct attest_keyring kr = {0}, only_other = {0};
	json_t *st = statement(), *st_other = statement_by(other);
	char *env = NULL, *env_other = NULL, *bad, id[65], want[65];

	ck_assert_int_eq(attest_sign(key, st, &env), 0);
	ck_assert_int_eq(attest_sign(other, st_other, &env_other), 0);
	/* A keyring of both verifies each, and says which key signed. */
	ck_assert_int_eq(attest_keyring_add(&kr, ref(other)), 0);
	ck_assert_int_eq(attest_keyring_add(&kr, ref(key)), 0);
	ck_assert_int_eq(attest_keyring_add(&kr, ref(key)), 0); /* once */
	ck_assert_uint_eq(kr.n, 2);
	ck_assert(verifies_ring(env, &kr, id));
	ck_assert_int_eq(attest_keyid(key, want), 0);
	ck_assert_str_eq(id, want);
	ck_assert(verifies_ring(env_other, &kr, id));
	/* Without the signing key: refused, naming the unknown key. */
	ck_assert_int_eq(attest_keyring_add(&only_other, ref(other)), 0);
	ck_assert(!verifies_ring(env, &only_other, id));
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "not in the keyring"));
	/* A key id that names the other key of the keyring: the other key is
	 * tried, and its signature does not verify. */
	ck_assert_int_eq(attest_keyid(other, want), 0);
	bad = with_field(env, "keyid", want);
	ck_assert(!verifies_ring(bad, &kr, id));
	free(bad);
	attest_keyring_clear(&kr);
	attest_keyring_clear(&only_other);
	free(env);
	free(env_other);
	json_decref(st);
	json_decref(st_other);
}
END_TEST

START_TEST(t_statement_names_its_key)
{
	json_t *st = statement_by(other);
	char *env = NULL;

	/* Signed by key, but the statement says other signed it. */
	ck_assert_int_eq(attest_sign(key, st, &env), 0);
	ck_assert(!verifies(env, key));
	ck_assert(!verifies(env, other));
	free(env);
	json_object_del(json_object_get(st, "predicate"), "gate_key");
	ck_assert_int_eq(attest_sign(key, st, &env), 0);
	ck_assert(!verifies(env, key));
	free(env);
	json_decref(st);
}
END_TEST

START_TEST(t_keyring_file)
{
	struct attest_keyring kr = {0};
	char path[] = "/tmp/check_attest_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	ck_assert_int_eq(PEM_write_PUBKEY(f, key), 1);
	ck_assert_int_eq(PEM_write_PUBKEY(f, other), 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(attest_keyring_load(&kr, path), 0);
	ck_assert_uint_eq(kr.n, 2);
	attest_keyring_clear(&kr);
	/* Something else in PEM: refused, not skipped. */
	ck_assert_ptr_nonnull(f = fopen(path, "a"));
	fputs("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
	    f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(attest_keyring_load(&kr, path), AL_EINVAL);
	attest_keyring_clear(&kr);
	/* Nothing at all. */
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(attest_keyring_load(&kr, path), AL_EINVAL);
	ck_assert_uint_eq(kr.n, 0);
	unlink(path);
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
	tcase_add_test(tc, t_keyring_selects_by_key_id);
	tcase_add_test(tc, t_statement_names_its_key);
	tcase_add_test(tc, t_keyring_file);
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
