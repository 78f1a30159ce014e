/*
 * check_bundle.c - the bundle reader and its pack reader on crafted
 * bundles: a delta that lies is reported as a malformed delta, never
 * taken for the reader running out of memory; a pack's object count is
 * bounded by its size before anything is allocated for it, and so is
 * the size a zlib stream is said to inflate to.
 */
#include "test_util.h"

#include <openssl/evp.h>

#include "scan_bundle.h"
#include "scan_decode.h"
#include "scan_pack.h"

static const char rules[] =
    "rules:\n"
    "  - id: curl-sh\n"
    "    title: curl to shell\n"
    "    category: download-exec\n"
    "    severity: critical\n"
    "    pattern: 'curl\\s[^|\\n]*\\|\\s*(ba)?sh\\b'\n"
    "    description: D\n";

/*
 * A v2 bundle whose pack holds a blob and a REF delta against it that
 * does not apply to it (made by mutating a real pack and recomputing its
 * checksum, so that only the delta is wrong).
 */
static const unsigned char bad_delta[] = {
	0x23, 0x20, 0x76, 0x32, 0x20, 0x67, 0x69, 0x74, 0x20, 0x62, 0x75, 0x6e,
	0x64, 0x6c, 0x65, 0x0a, 0x33, 0x62, 0x31, 0x38, 0x65, 0x35, 0x31, 0x32,
	0x64, 0x62, 0x61, 0x37, 0x39, 0x65, 0x34, 0x63, 0x38, 0x33, 0x30, 0x30,
	0x64, 0x64, 0x30, 0x38, 0x61, 0x65, 0x62, 0x33, 0x37, 0x66, 0x38, 0x65,
	0x37, 0x32, 0x38, 0x62, 0x38, 0x64, 0x61, 0x64, 0x20, 0x72, 0x65, 0x66,
	0x73, 0x2f, 0x68, 0x65, 0x61, 0x64, 0x73, 0x2f, 0x78, 0x0a, 0x0a, 0x50,
	0x41, 0x43, 0x4b, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x3c,
	0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0x28, 0xcf, 0x2f, 0xca,
	0x49, 0xe1, 0x02, 0x00, 0x1e, 0x72, 0x04, 0x67, 0x68, 0x15, 0x78, 0x9c,
	0x4b, 0x66, 0x65, 0x4d, 0x4c, 0x4a, 0x4e, 0x49, 0x05, 0x00, 0x09, 0x24,
	0x02, 0x5d, 0x5f, 0x00, 0xed, 0xf9, 0xdc, 0x39, 0x11, 0xea, 0x20, 0xd3,
	0xaa, 0x0e, 0x1c, 0x67, 0x67, 0x85, 0x79, 0x43, 0x59, 0x04
};

START_TEST(malformed_delta_is_named)
{
	struct finding_list fl = {0};
	const struct finding *f;
	struct tu_scanner sc;

	tu_scanner_init(&sc, rules);
	/* Not out of memory: the scan succeeds, with its finding. */
	ck_assert_int_eq(scan_bundle_mem(sc.w, (const char *)bad_delta,
	    sizeof(bad_delta), "x.bundle", &fl), 0);
	f = tu_first(&fl, "airlock.unscannable");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->excerpt, "malformed delta"));
	finding_list_free(&fl);
	tu_scanner_free(&sc);
}
END_TEST

/*
 * A pack of 32 bytes whose header claims two million objects is refused
 * by its size before a table for them is allocated (the reader went on
 * to calloc some 200 MiB and then found the pack truncated).
 */
START_TEST(object_count_bounded_by_pack_size)
{
	unsigned char pack[32] = {'P', 'A', 'C', 'K', 0, 0, 0, 2,
	    0x00, 0x1e, 0x84, 0x80};          /* 2000000 */
	struct scan_pack pk;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int olen = 0;

	ck_assert_ptr_nonnull(md);
	ck_assert_int_eq(EVP_DigestInit_ex(md, EVP_sha1(), NULL), 1);
	ck_assert_int_eq(EVP_DigestUpdate(md, pack, 12), 1);
	ck_assert_int_eq(EVP_DigestFinal_ex(md, pack + 12, &olen), 1);
	EVP_MD_CTX_free(md);
	ck_assert_int_eq(scan_pack_index(&pk, pack, sizeof(pack)), AL_EINVAL);
	ck_assert_str_eq(al_err_msg(), "2000000 objects cannot fit in a pack "
	    "of 32 bytes (truncated?)");
	ck_assert_ptr_null(pk.obj);
	scan_pack_free(&pk);
}
END_TEST

/*
 * A zlib stream of a few bytes stated to inflate to 512 MiB (a pack
 * object's header or a binary patch says so) is refused by its length
 * before the output buffer is allocated; what it can give still inflates.
 */
START_TEST(inflate_size_bounded_by_input)
{
	static const unsigned char hello[] = {  /* zlib of "hello\n" */
		0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0x00,
		0x08, 0x4b, 0x02, 0x1f,
	};
	unsigned char *out = NULL;
	size_t len = 0, used = 0;

	ck_assert_int_eq(scan_inflate(hello, sizeof(hello), 512u << 20, &out,
	    &len, &used), AL_EINVAL);
	ck_assert_str_eq(al_err_msg(), "corrupt zlib stream: 14 bytes cannot "
	    "inflate to 536870912");
	ck_assert_ptr_null(out);
	ck_assert_int_eq(scan_inflate(hello, sizeof(hello), 6, &out, &len,
	    &used), 0);
	ck_assert_uint_eq(len, 6);
	ck_assert_uint_eq(used, sizeof(hello));
	ck_assert_int_eq(memcmp(out, "hello\n", 6), 0);
	free(out);
}
END_TEST

static Suite *
bundle_suite(void)
{
	Suite *s = suite_create("bundle");
	TCase *tc;

	tc = tcase_create("pack");
	tcase_add_test(tc, malformed_delta_is_named);
	tcase_add_test(tc, object_count_bounded_by_pack_size);
	tcase_add_test(tc, inflate_size_bounded_by_input);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(bundle_suite()) ? 1 : 0;
}
