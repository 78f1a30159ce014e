/*
 * check_util.c - the shared helpers and the small pure parts of the rule
 * module: bounded buffers, entropy, UTF-8 handling, terminal escaping,
 * path globs, the required-literal analysis and symlink escape checks.
 */
#include "test_util.h"

#include "scan_check.h"
#include "path.h"
#include "scan_walk.h"
#include "util.h"

START_TEST(dynbuf_bounded)
{
	struct dynbuf b;

	dynbuf_init(&b, 8);
	ck_assert_int_eq(dynbuf_adds(&b, "12345678"), 0);
	ck_assert_int_eq(dynbuf_addc(&b, 'x'), AL_ELIMIT);
	ck_assert_uint_eq(b.len, 8);
	ck_assert_str_eq(dynbuf_str(&b), "12345678");
	dynbuf_reset(&b);
	ck_assert_int_eq(dynbuf_addf(&b, "%d-%s", 42, "ab"), 0);
	ck_assert_str_eq(dynbuf_str(&b), "42-ab");
	ck_assert_int_eq(dynbuf_addf(&b, "%s", "longer than room"), AL_ELIMIT);
	ck_assert_str_eq(dynbuf_str(&b), "42-ab");
	dynbuf_free(&b);
}
END_TEST

START_TEST(dynbuf_large_format)
{
	struct dynbuf b;
	char big[1000];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	dynbuf_init(&b, 4096);
	ck_assert_int_eq(dynbuf_addf(&b, "<%s>", big), 0);
	ck_assert_uint_eq(b.len, 1001);
	ck_assert_int_eq(b.data[0], '<');
	ck_assert_int_eq(b.data[1000], '>');
	dynbuf_free(&b);
}
END_TEST

START_TEST(size_overflow)
{
	size_t out;

	ck_assert_int_eq(al_size_add(&out, (size_t)-1, 1), AL_ELIMIT);
	ck_assert_int_eq(al_size_mul(&out, (size_t)-1 / 2, 3), AL_ELIMIT);
	ck_assert_int_eq(al_size_add(&out, 2, 3), 0);
	ck_assert_uint_eq(out, 5);
}
END_TEST

START_TEST(entropy_values)
{
	ck_assert(al_entropy((const unsigned char *)"", 0) == 0.0);
	ck_assert(al_entropy((const unsigned char *)"aaaa", 4) == 0.0);
	ck_assert(al_entropy((const unsigned char *)"abab", 4) == 1.0);
	ck_assert(al_entropy((const unsigned char *)"abcd", 4) == 2.0);
}
END_TEST

START_TEST(utf8_sanitize_replaces_invalid)
{
	struct dynbuf b;

	dynbuf_init(&b, 100);
	/* invalid lead byte, overlong '/', surrogate, valid e-acute, NUL */
	ck_assert_int_eq(al_utf8_sanitize(&b, "a\xff" "b\xc0\xaf" "\xed\xa0\x80"
	    "\xc3\xa9" "\0z", 12), 0);
	ck_assert_str_eq(dynbuf_str(&b), "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd"
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "\xc3\xa9\xef\xbf\xbdz");
	dynbuf_free(&b);
}
END_TEST

START_TEST(utf8_count_code_points)
{
	ck_assert_uint_eq(al_utf8_count("h\xc3\xa9llo", 6), 5);
	ck_assert_uint_eq(al_utf8_count("\xf0\x9f\x98\x80", 4), 1);
	ck_assert_uint_eq(al_utf8_count("\xff\xfe", 2), 2);
}
END_TEST

START_TEST(term_escape_defuses_control_and_bidi)
{
	struct dynbuf b;

	dynbuf_init(&b, 200);
	ck_assert_int_eq(al_term_escape(&b, "a\033[31mb\xe2\x80\xae" "c\td\xff",
	    14), 0);
	ck_assert_str_eq(dynbuf_str(&b), "a\\x1b[31mb<U+202E>c d\\xff");
	ck_assert_ptr_null(memchr(b.data, 0x1b, b.len));
	dynbuf_free(&b);
}
END_TEST

START_TEST(memcasemem_finds)
{
	const char *h = "some ExAmPle text";

	ck_assert_ptr_eq(al_memcasemem(h, strlen(h), "example", 7), h + 5);
	ck_assert_ptr_null(al_memcasemem(h, strlen(h), "examples", 8));
	ck_assert_ptr_null(al_memcasemem("ab", 2, "abc", 3));
}
END_TEST

START_TEST(glob_basename_and_suffix)
{
	ck_assert(rule_glob_match("*.pth", "a/b/evil.pth"));
	ck_assert(rule_glob_match("setup.py", "pkg/setup.py"));
	ck_assert(!rule_glob_match("setup.py", "pkg/setup.py.txt"));
	ck_assert(rule_glob_match(".github/workflows/*.yml",
	    "repo/.github/workflows/ci.yml"));
	ck_assert(rule_glob_match(".github/workflows/*.yml",
	    ".github/workflows/ci.yml"));
	ck_assert(!rule_glob_match(".github/workflows/*.yml",
	    ".github/workflows/sub/ci.yml"));
	ck_assert(!rule_glob_match(".github/workflows/*.yml",
	    "x.github/workflows/ci.yml"));
	/* `*` and a literal (read without the general walk): the star may
	 * be empty, the case is ignored, only the name counts. */
	ck_assert(rule_glob_match("*.py", "a/.py"));
	ck_assert(rule_glob_match("*.py", "A/B/SETUP.PY"));
	ck_assert(rule_glob_match("*rc", "home/.bashrc"));
	ck_assert(!rule_glob_match("*.py", "a/py"));
	ck_assert(!rule_glob_match("*.py", "a/x.py.bak"));
	ck_assert(!rule_glob_match("*.py", "x.py/readme"));
	ck_assert(!rule_glob_match("*.pyw", "a/x.py"));
	ck_assert(rule_glob_match("*", "a/b"));
	ck_assert(rule_glob_match("*.[1-9]", "man/ls.1"));
}
END_TEST

START_TEST(glob_case_insensitive)
{
	/* A case-insensitive file system runs .GitHub/Workflows as workflows. */
	ck_assert(rule_glob_match(".github/workflows/*.yml",
	    ".GitHub/Workflows/CI.YML"));
	ck_assert(rule_glob_match("package.json", "PACKAGE.JSON"));
}
END_TEST

START_TEST(glob_double_star_and_anchor)
{
	ck_assert(rule_glob_match(".husky/**", "app/.husky/pre-commit"));
	ck_assert(rule_glob_match(".husky/**", "app/.husky/_/h"));
	ck_assert(rule_glob_match("a/**/b.txt", "a/b.txt"));
	ck_assert(rule_glob_match("a/**/b.txt", "a/x/y/b.txt"));
	ck_assert(rule_glob_match("/top.txt", "top.txt"));
	ck_assert(!rule_glob_match("/top.txt", "sub/top.txt"));
	ck_assert(rule_glob_match("*.y?l", "x.yml"));
	ck_assert(rule_glob_match("[mM]akefile", "src/Makefile"));
	ck_assert(!rule_glob_match("[!m]akefile", "makefile"));
	ck_assert(rule_glob_match("Dockerfile*", "Dockerfile.prod"));
	ck_assert(!rule_glob_match("*.yml", "dir.yml/file"));
}
END_TEST

START_TEST(literal_analysis)
{
#define LIT(p) rule_pattern_literal(p, strlen(p))
	ck_assert_uint_eq(LIT("ghp_[A-Za-z0-9]{36}"), 4);
	ck_assert_uint_eq(LIT("\\bghp_[A-Za-z0-9]{36}\\b"), 4);
	ck_assert_uint_eq(LIT("[A-Za-z0-9+/]{40}"), 0);
	ck_assert_uint_eq(LIT("(AKIA|ASIA)[A-Z2-7]{16}"), 4);
	ck_assert_uint_eq(LIT("(AKIA|AS)[A-Z]{16}"), 2);
	ck_assert_uint_eq(LIT("[Aa][Ww][Ss]_?key"), 3);
	ck_assert_uint_eq(LIT("(?i)secret"), 6);
	ck_assert_uint_eq(LIT("x?y?z?"), 0);
	ck_assert_uint_eq(LIT("ab+c"), 2);
	ck_assert_uint_eq(LIT("(abc)?de"), 2);
	ck_assert_uint_eq(LIT("\\x2e\\x2e/"), 3);
	ck_assert_uint_eq(LIT("a{2}bc"), 3); /* "aabc" holds "abc" */
	ck_assert_uint_eq(LIT("/dev/(tcp|udp)/"), 5);
	ck_assert_uint_eq(LIT("\\d+\\.\\d+"), 1);
	ck_assert_uint_eq(LIT("[[:space:]]*="), 1);
	ck_assert_uint_eq(LIT("(?<name>token)"), 5);
#undef LIT
}
END_TEST

/* The factors of p, joined with '|', or "" when there is no set. */
static const char *
factors(const char *p)
{
	static char out[512];
	char **v;
	size_t n, m, i, len = 0;

	ck_assert_int_eq(rule_pattern_factors(p, strlen(p), &v, &n, &m), 0);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s",
		    i ? "|" : "", v[i]);
		ck_assert_uint_lt(len, sizeof(out));
		free(v[i]);
	}
	free(v);
	return out;
}

START_TEST(literal_factors)
{
	/* Every match of the pattern contains one of the factors. */
	ck_assert_str_eq(factors("\\b(ghp_[A-Za-z0-9]{36})\\b"), "ghp_");
	ck_assert_str_eq(factors("(AKIA|ASIA)[A-Z2-7]{16}"), "akia|asia");
	ck_assert_str_eq(factors("[Aa][Ww][Ss]_?[Ss]ecret"), "secret");
	ck_assert_str_eq(factors("\\bcat\\s[^\\n]{0,80}~/\\.aws/credentials"),
	    "~/.aws/credentials");
	/* A group of literals is part of the run: every match holds one
	 * of the products. */
	ck_assert_str_eq(factors("/dev/(tcp|udp)/[a-z]+"), "/dev/tcp/|/dev/udp/");
	ck_assert_str_eq(factors("\\bos\\.(?:Create|WriteFile)\\("),
	    "os.create(|os.writefile(");
	ck_assert_str_eq(factors("a(?:|b)cd"), "acd|abcd");
	ck_assert_str_eq(factors("ab(?:cd|e+)fgh"), "fgh");
	ck_assert_str_eq(factors("x(?:abc|cde)+yz"), "abc|cde");
	ck_assert_str_eq(factors("(?i:get-(?:item|content))"),
	    "get-item|get-content");
	/* Constructs the reading does not follow give no set at all. */
	ck_assert_str_eq(factors("(?x)ab cd"), "");
	ck_assert_str_eq(factors("abcd\\Kefgh"), "");
	ck_assert_str_eq(factors("(abcd)\\1"), "");
	ck_assert_str_eq(factors("abcd(*ACCEPT)efgh"), "");
	ck_assert_str_eq(factors("abc(?#x)?defg"), "");
	/* A comment, \cX, \xH and an unfinished POSIX class are read as
	 * PCRE2 reads them. */
	ck_assert_str_eq(factors("ab(?#:x|)cdef"), "abcdef");
	ck_assert_str_eq(factors("\\x4zzzz"), "zzzz");
	ck_assert_str_eq(factors("[^\\c]]wxyz"), "wxyz");
	ck_assert_str_eq(factors("[[:a]wxyz"), "wxyz");
	ck_assert_str_eq(factors("ab+c"), "ab");
	/* An optional part gives nothing; an unusable branch spoils the set. */
	ck_assert_str_eq(factors("x?y"), "y");
	ck_assert_str_eq(factors("(?:foo|[a-z]+)bar"), "bar");
	ck_assert_str_eq(factors("foo|[a-z]+"), "");
	ck_assert_str_eq(factors("(?i)Token"), "token");
}
END_TEST

START_TEST(link_escape)
{
	ck_assert(al_link_escapes("a/link", "/etc/passwd"));
	ck_assert(al_link_escapes("link", "../x"));
	ck_assert(al_link_escapes("a/link", "../../x"));
	ck_assert(!al_link_escapes("a/link", "../x"));
	ck_assert(!al_link_escapes("a/link", "b/../c"));
	ck_assert(al_link_escapes("a/link", "b/../../../c"));
	ck_assert(!al_link_escapes("link", "."));
	ck_assert(al_link_escapes("link", ""));
	/* The link's directory as a path reads: "./" and empty components
	 * are no level ("tar -cf x.tar ." names every member "./..."). */
	ck_assert(al_link_escapes("./link", "../x"));
	ck_assert(al_link_escapes("./sub/link", "../../x"));
	ck_assert(!al_link_escapes("./sub/link", "../x"));
	ck_assert(al_link_escapes("a//link", "../../x"));
	ck_assert(al_link_escapes("a/./link", "../../x"));
	ck_assert(!al_link_escapes("a/./b/link", "../../x"));
	/* A link whose own name climbs out is out already. */
	ck_assert(al_link_escapes("a/../../link", "x"));
	ck_assert(!al_link_escapes("a/../link", "x"));
}
END_TEST

/* Runs a check on a whole line, the match being the first occurrence of m. */
static int
chk(int check, const char *line, const char *m)
{
	const char *at = strstr(line, m);

	ck_assert_ptr_nonnull(at);
	return scan_check_run(check, (const unsigned char *)line, strlen(line),
	    (size_t)(at - line), (size_t)(at - line) + strlen(m), 1);
}

START_TEST(check_bidi)
{
	/* RLO never closed; RLI..PDI closed; PDF closes RLE; PDI closes all. */
	ck_assert(chk(CHECK_BIDI_UNBALANCED, "a \u202e b", "\u202e") ||
	    1); /* (escaped text, not the character: sanity of chk only) */
	ck_assert(chk(CHECK_BIDI_UNBALANCED, "x\xe2\x80\xae y", "\xe2\x80\xae"));
	ck_assert(!chk(CHECK_BIDI_UNBALANCED, "\xe2\x81\xa7" "abc\xe2\x81\xa9 d",
	    "\xe2\x81\xa7"));
	ck_assert(!chk(CHECK_BIDI_UNBALANCED, "\xe2\x80\xab" "ab\xe2\x80\xac",
	    "\xe2\x80\xab"));
	ck_assert(!chk(CHECK_BIDI_UNBALANCED, "\xe2\x81\xa6\xe2\x80\xae" "ab"
	    "\xe2\x81\xa9", "\xe2\x81\xa6"));
	ck_assert(chk(CHECK_BIDI_UNBALANCED, "\xe2\x81\xa6" "a\xe2\x81\xa9"
	    "\xe2\x81\xa6", "\xe2\x81\xa6"));
}
END_TEST

START_TEST(check_zero_width)
{
	/* Between ASCII letters: yes. Between emoji or Arabic letters: no. */
	ck_assert(chk(CHECK_ZERO_WIDTH_IDENT, "pass\xe2\x80\x8bword",
	    "\xe2\x80\x8b"));
	ck_assert(chk(CHECK_ZERO_WIDTH_IDENT, "is\xe2\x80\x8d\xe2\x80\x8d" "Admin",
	    "\xe2\x80\x8d"));
	ck_assert(!chk(CHECK_ZERO_WIDTH_IDENT, "\xf0\x9f\x91\xa8\xe2\x80\x8d"
	    "\xf0\x9f\x91\xa9", "\xe2\x80\x8d"));
	ck_assert(!chk(CHECK_ZERO_WIDTH_IDENT, "\xd9\x85\xe2\x80\x8c\xd8\xae",
	    "\xe2\x80\x8c"));
	ck_assert(!chk(CHECK_ZERO_WIDTH_IDENT, "a \xe2\x80\x8b b",
	    "\xe2\x80\x8b"));
	/* A BOM opening the file is normal; inside a word it is not. */
	ck_assert(!chk(CHECK_ZERO_WIDTH_IDENT, "\xef\xbb\xbfimport",
	    "\xef\xbb\xbf"));
	ck_assert(chk(CHECK_ZERO_WIDTH_IDENT, "im\xef\xbb\xbfport",
	    "\xef\xbb\xbf"));
}
END_TEST

START_TEST(check_tags)
{
	/* England's flag: black flag, g b e n g, cancel tag. */
	ck_assert(!chk(CHECK_TAG_CHARS, "\xf0\x9f\x8f\xb4\xf3\xa0\x81\xa7"
	    "\xf3\xa0\x81\xa2\xf3\xa0\x81\xa5\xf3\xa0\x81\xae"
	    "\xf3\xa0\x81\xa7\xf3\xa0\x81\xbf", "\xf3\xa0\x81\xa2"));
	/* The same tags without the flag, or without the cancel tag. */
	ck_assert(chk(CHECK_TAG_CHARS, "x\xf3\xa0\x81\xa7\xf3\xa0\x81\xa2"
	    "\xf3\xa0\x81\xbf", "\xf3\xa0\x81\xa7"));
	ck_assert(chk(CHECK_TAG_CHARS, "\xf0\x9f\x8f\xb4\xf3\xa0\x81\xa7"
	    "\xf3\xa0\x81\xa2\xf3\xa0\x81\xa5", "\xf3\xa0\x81\xa2"));
	/* Capital letters never appear in flags: hidden ASCII text. */
	ck_assert(chk(CHECK_TAG_CHARS, "\xf0\x9f\x8f\xb4\xf3\xa0\x81\x87"
	    "\xf3\xa0\x81\xa2\xf3\xa0\x81\xbf", "\xf3\xa0\x81\x87"));
}
END_TEST

START_TEST(check_mixed_script)
{
	/* Cyrillic a in "admin"; Greek Delta next to t; a Russian word. */
	ck_assert(chk(CHECK_MIXED_SCRIPT, "is_\xd0\xb0" "dmin()", "_\xd0\xb0"));
	ck_assert(chk(CHECK_MIXED_SCRIPT, "p\xd0\xb0ypal", "p\xd0\xb0"));
	ck_assert(!chk(CHECK_MIXED_SCRIPT, "\xce\x94t = 1", "\xce\x94t"));
	ck_assert(!chk(CHECK_MIXED_SCRIPT, "\xd0\xbf\xd1\x80\xd0\xb8 x",
	    "\xd1\x80"));
	ck_assert(chk(CHECK_MIXED_SCRIPT, "\xd1\x80" "aypal", "\xd1\x80" "a"));
}
END_TEST

static Suite *
util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc;

	tc = tcase_create("dynbuf");
	tcase_add_test(tc, dynbuf_bounded);
	tcase_add_test(tc, dynbuf_large_format);
	tcase_add_test(tc, size_overflow);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_test(tc, entropy_values);
	tcase_add_test(tc, utf8_sanitize_replaces_invalid);
	tcase_add_test(tc, utf8_count_code_points);
	tcase_add_test(tc, term_escape_defuses_control_and_bidi);
	tcase_add_test(tc, memcasemem_finds);
	suite_add_tcase(s, tc);
	tc = tcase_create("globs");
	tcase_add_test(tc, glob_basename_and_suffix);
	tcase_add_test(tc, glob_case_insensitive);
	tcase_add_test(tc, glob_double_star_and_anchor);
	suite_add_tcase(s, tc);
	tc = tcase_create("literals");
	tcase_add_test(tc, literal_analysis);
	tcase_add_test(tc, literal_factors);
	suite_add_tcase(s, tc);
	tc = tcase_create("unicode checks");
	tcase_add_test(tc, check_bidi);
	tcase_add_test(tc, check_zero_width);
	tcase_add_test(tc, check_tags);
	tcase_add_test(tc, check_mixed_script);
	suite_add_tcase(s, tc);
	tc = tcase_create("links");
	tcase_add_test(tc, link_escape);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(util_suite()) ? 1 : 0;
}
