/*
 * check_common.c - the ground floor (common/): the shared vocabulary of
 * kinds, states, verdicts and severities; member paths and name safety;
 * whole reads and writes; the text cursor and bounded numbers; terminal
 * output.
 */
#include <fcntl.h>

#include "test_util.h"

#include "fold.h"
#include "json_text.h"
#include "os.h"
#include "path.h"
#include "term.h"
#include "text.h"
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

/* A member is the artifact itself or below "ARTIFACT!/", nothing else. */
START_TEST(member_paths)
{
	ck_assert(al_member_path_of("a.tar", "a.tar"));
	ck_assert(al_member_path_of("a.tar!/x", "a.tar"));
	ck_assert(al_member_path_of("a.tar!/b.zip!/y", "a.tar"));
	ck_assert(!al_member_path_of("a.tar.gz", "a.tar"));
	ck_assert(!al_member_path_of("a.tar!", "a.tar"));
	ck_assert(!al_member_path_of("a.ta", "a.tar"));
	ck_assert(!al_member_path_of("b.tar!/x", "a.tar"));
}
END_TEST

/* Names that write outside the target or into .git, in any spelling. */
START_TEST(name_problems)
{
	ck_assert_ptr_nonnull(al_name_problem("/etc/passwd", 0));
	ck_assert_ptr_nonnull(al_name_problem("C:evil", 0));
	ck_assert_ptr_nonnull(al_name_problem("a/../../x", 0));
	ck_assert_ptr_nonnull(al_name_problem("a\\..\\x", 0));
	ck_assert_ptr_nonnull(al_name_problem("a/b\x01c", 0));
	ck_assert_ptr_nonnull(al_name_problem(".GIT/config", 0));
	ck_assert_ptr_nonnull(al_name_problem("x/git~1/hooks/pre-commit", 0));
	ck_assert_ptr_null(al_name_problem(".git/config", 0));
	ck_assert_ptr_nonnull(al_name_problem(".git/config", 1));
	ck_assert_ptr_null(al_name_problem("src/..x/a.c", 1));
	ck_assert_int_eq(al_git_component(".git", 4), 1);
	ck_assert_int_eq(al_git_component(".git. ", 6), 2);
	ck_assert_int_eq(al_git_component(".g\xe2\x80\x8cit", 7), 2);
	ck_assert_int_eq(al_git_component(".gitx", 5), 0);
}
END_TEST

/* Whole reads: short pieces are joined, the end of a stream and a
 * deadline are told apart. */
/* The key of a name, or NULL when it is refused. */
static const char *
fold_of(const char *name, char out[AL_FOLD_MAX + 1])
{
	return al_name_fold(out, AL_FOLD_MAX + 1, name, strlen(name), NULL,
	    NULL) < 0 ? NULL : out;
}

/* Names a reader takes for one name have one key: case, width, the
 * spaces around and between, NFKC's compatibility letters. */
START_TEST(fold_same_person)
{
	static const char *const alice[] = {
		"alice", "Alice", "  ALICE\t", "\xef\xbc\xa1\xef\xbd\x8c"
		"\xef\xbd\x89\xef\xbd\x83\xef\xbd\x85",  /* fullwidth */
		"\xc2\xa0" "alice\xe3\x80\x80",              /* NBSP, ideographic */
	};
	char a[AL_FOLD_MAX + 1], b[AL_FOLD_MAX + 1];
	size_t i, start = 0, len = 0;

	for (i = 0; i < sizeof(alice) / sizeof(alice[0]); i++) {
		ck_assert_ptr_nonnull(fold_of(alice[i], a));
		ck_assert_str_eq(a, "alice");
	}
	/* sharp s and long s are "ss" and "s"; inner runs of white space are
	 * one space; Latin-1 capitals their small letters. */
	ck_assert_str_eq(fold_of("Stra\xc3\x9f" "e", a), "strasse");
	ck_assert_str_eq(fold_of("Stra\xc5\xbfse", b), "strasse");
	ck_assert_str_eq(fold_of("Zo\xc3\xab   \xc3\x84rger", a),
	    fold_of("ZO\xc3\x8b \xc3\xa4RGER", b));
	/* Distinct names stay distinct. */
	ck_assert_str_ne(fold_of("alice.smith", a), fold_of("alice", b));
	ck_assert_str_ne(fold_of("bob-laptop", a), fold_of("bob", b));
	/* What is shown is the name's own spelling, trimmed. */
	ck_assert_int_gt(al_name_fold(a, sizeof(a), "  Bob ", 6, &start, &len),
	    0);
	ck_assert_uint_eq(start, 2);
	ck_assert_uint_eq(len, 3);
}
END_TEST

/* Fail closed: what the table cannot fold faithfully is refused, never
 * guessed at. */
START_TEST(fold_refuses_what_it_cannot_fold)
{
	static const char *const bad[] = {
		"", "   ",
		"alice\xcc\x81",           /* a combining acute accent */
		"\xce\xb1lice",            /* Greek alpha */
		"\xc4\xb0stanbul",         /* U+0130: folding adds a mark */
		"al\xe2\x80\x8bice",      /* a zero-width space */
		"ali\xc0\xa3" "e",            /* an overlong encoding */
		"ali\xed\xa0\x80" "e",       /* a surrogate */
		"ali\x01" "ce",                /* a control character */
		"\xe6\x9d\x8e",           /* CJK */
	};
	char out[AL_FOLD_MAX + 1], big[AL_FOLD_MAX + 8];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(al_name_fold(out, sizeof(out), bad[i], strlen(bad[i]),
		    NULL, NULL) == AL_EINVAL, "accepted bad name %zu", i);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(al_name_fold(out, sizeof(out), big, strlen(big), NULL,
	    NULL), AL_EINVAL);
}
END_TEST

START_TEST(read_write_full)
{
	char buf[16];
	size_t got = 99;
	int sv[2];

	ck_assert_int_eq(pipe(sv), 0);
	ck_assert_int_eq(al_write_full(sv[1], "abc", 3), 0);
	ck_assert_int_eq(al_write_full(sv[1], "def", 3), 0);
	ck_assert_int_eq(al_read_full(sv[0], buf, 6, -1, &got), 0);
	ck_assert_uint_eq(got, 6);
	ck_assert_int_eq(memcmp(buf, "abcdef", 6), 0);
	/* Nothing comes: the deadline passes. */
	ck_assert_int_eq(al_read_full(sv[0], buf, 1, al_mono_now() + 0.05,
	    &got), AL_ELIMIT);
	ck_assert_uint_eq(got, 0);
	/* Two bytes, then the end. */
	ck_assert_int_eq(al_write_full(sv[1], "gh", 2), 0);
	close(sv[1]);
	ck_assert_int_eq(al_read_full(sv[0], buf, 4, -1, &got), AL_ENOTFOUND);
	ck_assert_uint_eq(got, 2);
	close(sv[0]);
	ck_assert_int_eq(al_write_full(-1, "x", 1), AL_EIO);
}
END_TEST

START_TEST(clock_and_iso_time)
{
	char iso[32];
	double a = al_mono_now(), b = al_mono_now();

	ck_assert(b >= a);
	ck_assert_int_gt(al_now_ms(), 1700000000000LL);
	al_time_iso(1764616800123LL, iso);
	ck_assert_str_eq(iso, "2025-12-01T19:20:00.123Z");
	al_time_iso(0, iso);
	ck_assert_str_eq(iso, "1970-01-01T00:00:00.000Z");
	/* Past the year 9999, or past what gmtime can say: the epoch. */
	al_time_iso(253402390923004LL, iso);
	ck_assert_str_eq(iso, "1970-01-01T00:00:00.000Z");
	al_time_iso(INT64_MAX, iso);
	ck_assert_str_eq(iso, "1970-01-01T00:00:00.000Z");
}
END_TEST

/* Lines and their numbers; the last line may have no newline. */
START_TEST(text_cursor_lines)
{
	static const char doc[] = "one\n\nthree\nfour";
	struct al_text t;
	const char *l;
	size_t n;

	al_text_init(&t, doc, sizeof(doc) - 1);
	ck_assert_uint_eq(t.line, 0);
	ck_assert_int_eq(al_text_next(&t, &l, &n), 1);
	ck_assert_uint_eq(t.line, 1);
	ck_assert(n == 3 && memcmp(l, "one", 3) == 0);
	ck_assert_int_eq(al_text_next(&t, &l, &n), 1);
	ck_assert(t.line == 2 && n == 0);
	ck_assert_int_eq(al_text_next(&t, &l, &n), 1);
	ck_assert(t.line == 3 && n == 5 && memcmp(l, "three", 5) == 0);
	ck_assert_int_eq(al_text_next(&t, &l, &n), 1);
	ck_assert(t.line == 4 && n == 4 && memcmp(l, "four", 4) == 0);
	ck_assert_int_eq(al_text_next(&t, &l, &n), 0);
	ck_assert_uint_eq(t.line, 4);
	ck_assert(al_starts("diff --git a", 12, "diff --git "));
	ck_assert(!al_starts("diff", 4, "diff --git "));
}
END_TEST

/*
 * Numbers end where their bytes end: the digits are put against a page
 * that cannot be read, so any read past them faults, in every build.
 */
START_TEST(dec_parse_bounded)
{
	const char *p, *q;
	uint64_t v = 7;
	size_t maplen;
	char *map, *digits = tu_at_page_end("12345", 5, &map, &maplen);

	p = digits;
	ck_assert_int_eq(al_dec_parse(&p, digits + 5, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 12345);
	ck_assert_ptr_eq(p, digits + 5);
	/* Stops at the end given, even with digits after it. */
	p = digits;
	ck_assert_int_eq(al_dec_parse(&p, digits + 2, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, 12);
	/* Past max, no digit, an empty span: refused, nothing moved. */
	p = digits;
	ck_assert_int_eq(al_dec_parse(&p, digits + 5, 12344, &v), -1);
	ck_assert_ptr_eq(p, digits);
	q = "x1";
	ck_assert_int_eq(al_dec_parse(&q, q + 2, 100, &v), -1);
	q = "18446744073709551616";
	ck_assert_int_eq(al_dec_parse(&q, q + 20, UINT64_MAX, &v), -1);
	q = "18446744073709551615";
	ck_assert_int_eq(al_dec_parse(&q, q + 20, UINT64_MAX, &v), 0);
	ck_assert(v == UINT64_MAX);
	p = digits;
	ck_assert_int_eq(al_dec_parse(&p, digits, 100, &v), -1);
	/* A bound below 9: a digit above it is past it too. */
	q = "7";
	ck_assert_int_eq(al_dec_parse(&q, q + 1, 5, &v), -1);
	q = "1";
	ck_assert_int_eq(al_dec_parse(&q, q + 1, 0, &v), -1);
	q = "5";
	ck_assert_int_eq(al_dec_parse(&q, q + 1, 5, &v), 0);
	ck_assert_uint_eq(v, 5);
	munmap(map, maplen);
}
END_TEST

/* The findings printer: grouped by path, escaped, counted by severity. */
START_TEST(findings_printed_escaped)
{
	struct al_finding_row rows[3] = {
		{"a.sh", 3, 5, "critical", "curl-pipe", "Download and run",
		    "curl x | sh"},
		{"a.sh", 0, 0, "low", "autorun", NULL, ""},
		{"b\x1b[2J.txt", 1, 1, "?", "r", NULL, "\xe2\x80\xae" "evil"},
	};
	char *text = NULL, size[32];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	al_findings_print(out, rows, 3, 0);
	fclose(out);
	ck_assert_str_eq(text,
	    "a.sh\n"
	    "       3:5    critical  curl-pipe  Download and run\n"
	    "              curl x | sh\n"
	    "  file        low       autorun\n"
	    "\n"
	    "b\\x1b[2J.txt\n"
	    "       1:1    ?         r\n"
	    "              <U+202E>evil\n"
	    "\n"
	    "3 findings (1 critical, 1 low)");
	free(text);
	al_human_size(size, sizeof(size), 17);
	ck_assert_str_eq(size, "17 bytes");
	al_human_size(size, sizeof(size), 1536);
	ck_assert_str_eq(size, "1.5 KiB");
	al_human_size(size, sizeof(size), 3LL << 30);
	ck_assert_str_eq(size, "3.0 GiB");
}
END_TEST

/* A list of problems that outgrows its buffer says so at its end, in
 * whole lines, once. */
START_TEST(diag_list_says_it_is_incomplete)
{
	static const char more[] = "(more problems; not all are shown)\n";
	struct dynbuf d;
	int i;

	dynbuf_init(&d, 100);
	for (i = 0; i < 20; i++)
		dynbuf_diag(&d, "rules.yml:%d: problem number %d\n", i + 1, i);
	ck_assert_uint_le(d.len, 100);
	ck_assert_uint_ge(d.len, sizeof(more) - 1);
	ck_assert_str_eq(dynbuf_str(&d) + d.len - (sizeof(more) - 1), more);
	ck_assert_ptr_null(strstr(dynbuf_str(&d), "number 19"));
	ck_assert_ptr_nonnull(strstr(dynbuf_str(&d), "rules.yml:1: problem "
	    "number 0\n"));
	/* Every line before the marker is whole. */
	ck_assert_int_eq(dynbuf_str(&d)[d.len - sizeof(more)], '\n');
	dynbuf_free(&d);
	/* A list that fits is left alone. */
	dynbuf_init(&d, 100);
	dynbuf_diag(&d, "a:1: %s\n", "x");
	ck_assert_str_eq(dynbuf_str(&d), "a:1: x\n");
	dynbuf_free(&d);
}
END_TEST

/* ---- text in JSON (docs/api.md, "Text that is not UTF-8") ----------------- */

/*
 * Sets key to the n bytes at p in a fresh object and checks what the
 * document says: the string shown, the _hex sibling (NULL: none), that the
 * document serialises (jansson refuses to make invalid JSON, so a NULL
 * here would be a dropped field), and that the bytes come back exactly.
 */
static void
text_case(const char *p, size_t n, const char *shown, const char *hex)
{
	json_t *o = json_object(), *back;
	struct dynbuf b;
	char *doc;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(al_json_set_text(o, "path", p, n), 0);
	ck_assert(json_is_string(json_object_get(o, "path")));
	ck_assert_uint_eq(json_string_length(json_object_get(o, "path")),
	    strlen(shown));
	ck_assert_str_eq(json_string_value(json_object_get(o, "path")), shown);
	if (hex == NULL) {
		ck_assert_ptr_null(json_object_get(o, "path_hex"));
		ck_assert_uint_eq(json_object_size(o), 1);
	} else {
		ck_assert_str_eq(json_string_value(json_object_get(o, "path_hex")),
		    hex);
		ck_assert_uint_eq(json_object_size(o), 2);
		ck_assert_int_eq(al_json_is_hex_sibling(o, "path_hex"), 1);
	}
	ck_assert_int_eq(al_json_is_hex_sibling(o, "path"), 0);
	ck_assert_int_eq(al_text_plain(p, n), hex == NULL);
	/* Serialised and read again (ASCII-only too), then the bytes. */
	doc = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	ck_assert_ptr_nonnull(doc);
	back = json_loads(doc, 0, NULL);
	ck_assert_ptr_nonnull(back);
	dynbuf_init(&b, 1024);
	ck_assert_int_eq(al_json_text_bytes(back, "path", &b), 0);
	ck_assert_uint_eq(b.len, n);
	ck_assert(memcmp(b.data ? b.data : "", p, n) == 0);
	dynbuf_free(&b);
	free(doc);
	json_decref(back);
	json_decref(o);
}

/* Valid UTF-8 (ASCII, 2-, 3- and 4-byte forms, the last code point) is a
 * plain string and nothing else. */
START_TEST(json_text_valid_is_plain)
{
	text_case("", 0, "", NULL);
	text_case("pkg/install.sh", 14, "pkg/install.sh", NULL);
	text_case("Zo\xc3\xab \xe2\x82\xac \xf0\x9f\x98\x80", 13,
	    "Zo\xc3\xab \xe2\x82\xac \xf0\x9f\x98\x80", NULL);
	text_case("\xf4\x8f\xbf\xbf", 4, "\xf4\x8f\xbf\xbf", NULL);
	text_case("\xed\x9f\xbf", 3, "\xed\x9f\xbf", NULL);   /* U+D7FF */
	text_case("\xee\x80\x80", 3, "\xee\x80\x80", NULL);   /* U+E000 */
	/* Control characters are valid UTF-8: JSON escapes them, terminals
	 * get them escaped by term.c. */
	text_case("a\x1b[2J", 5, "a\x1b[2J", NULL);
}
END_TEST

#define FFFD "\xef\xbf\xbd"

/* Every byte that does not begin a valid sequence is one U+FFFD, and the
 * bytes are in the sibling. */
START_TEST(json_text_invalid_gets_hex)
{
	/* A stray byte and a lone continuation byte. */
	text_case("pkg/\xff\xfeinstall.sh", 16, "pkg/" FFFD FFFD "install.sh",
	    "706b672ffffe696e7374616c6c2e7368");
	text_case("a\x80z", 3, "a" FFFD "z", "61807a");
	/* Truncated sequences: at the end, and followed by ASCII. */
	text_case("x\xe2\x82", 3, "x" FFFD FFFD, "78e282");
	text_case("\xf0\x9f\x98" "a", 4, FFFD FFFD FFFD "a", "f09f9861");
	/* Overlong forms of '/', of NUL and of U+07FF. */
	text_case("\xc0\xaf", 2, FFFD FFFD, "c0af");
	text_case("\xc0\x80", 2, FFFD FFFD, "c080");
	text_case("\xe0\x9f\xbf", 3, FFFD FFFD FFFD, "e09fbf");
	text_case("\xf0\x8f\xbf\xbf", 4, FFFD FFFD FFFD FFFD, "f08fbfbf");
	/* Surrogates D800 and DFFF encoded as UTF-8 (CESU). */
	text_case("\xed\xa0\x80", 3, FFFD FFFD FFFD, "eda080");
	text_case("\xed\xbf\xbf", 3, FFFD FFFD FFFD, "edbfbf");
	/* Past U+10FFFF, and the bytes that can never start one. */
	text_case("\xf4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD, "f4908080");
	text_case("\xf8\x88\x80\x80\x80", 5, FFFD FFFD FFFD FFFD FFFD,
	    "f888808080");
	/* A valid character after an invalid one is kept as it is. */
	text_case("\xff\xc3\xab", 3, FFFD "\xc3\xab", "ffc3ab");
}
END_TEST

/* NUL is valid UTF-8 but cuts C strings: replaced, with the bytes in hex. */
START_TEST(json_text_nul_gets_hex)
{
	text_case("a\0b", 3, "a" FFFD "b", "610062");
	text_case("\0", 1, FFFD, "00");
}
END_TEST

/* A key or its sibling that is there already is never written over, in
 * either order; a NULL text is null without a sibling. */
START_TEST(json_text_never_overwrites)
{
	json_t *o = json_object();

	ck_assert_int_eq(al_json_set_textz(o, "task", "T-1"), 0);
	ck_assert_int_eq(al_json_set_textz(o, "task", "T-2"), AL_EEXIST);
	ck_assert_str_eq(json_string_value(json_object_get(o, "task")), "T-1");
	/* A label "x_hex" first, then "x" that needs the sibling. */
	ck_assert_int_eq(al_json_set_textz(o, "x_hex", "41"), 0);
	ck_assert_int_eq(al_json_set_text(o, "x", "\xff", 1), AL_EEXIST);
	ck_assert_ptr_null(json_object_get(o, "x"));
	ck_assert_str_eq(json_string_value(json_object_get(o, "x_hex")), "41");
	/* "y" with its sibling first, then a label "y_hex". */
	ck_assert_int_eq(al_json_set_text(o, "y", "\xff", 1), 0);
	ck_assert_int_eq(al_json_set_textz(o, "y_hex", "41"), AL_EEXIST);
	ck_assert_str_eq(json_string_value(json_object_get(o, "y_hex")), "ff");
	ck_assert_int_eq(al_json_set_textz(o, "none", NULL), 0);
	ck_assert(json_is_null(json_object_get(o, "none")));
	ck_assert_ptr_null(json_object_get(o, "none_hex"));
	json_decref(o);
	o = json_array();
	ck_assert_int_eq(al_json_set_textz(o, "k", "v"), AL_EINVAL);
	json_decref(o);
}
END_TEST

/* Reading back: a sibling that is not lowercase hex of whole bytes, or
 * that contradicts the string, is not believed. */
START_TEST(json_text_bytes_checks_the_sibling)
{
	static const char *const bad[] = {
		"{\"p\": \"\\ufffd\", \"p_hex\": \"f\"}",      /* half a byte */
		"{\"p\": \"\\ufffd\", \"p_hex\": \"FF\"}",     /* uppercase */
		"{\"p\": \"\\ufffd\", \"p_hex\": \"zz\"}",     /* not hex */
		"{\"p\": \"ok\", \"p_hex\": \"ff\"}",          /* says otherwise */
		"{\"p\": \"\\ufffd\", \"p_hex\": \"41\"}",     /* says otherwise */
		"{\"p\": \"\\ufffd\", \"p_hex\": 255}",        /* not a string */
	};
	struct dynbuf b;
	json_t *j;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = json_loads(bad[i], 0, NULL);
		ck_assert_ptr_nonnull(j);
		dynbuf_init(&b, 64);
		ck_assert_int_eq(al_json_text_bytes(j, "p", &b), AL_EINVAL);
		ck_assert_uint_eq(b.len, 0);
		dynbuf_free(&b);
		json_decref(j);
	}
	j = json_loads("{\"p\": null, \"q\": 1}", 0, NULL);
	dynbuf_init(&b, 64);
	ck_assert_int_eq(al_json_text_bytes(j, "p", &b), AL_ENOTFOUND);
	ck_assert_int_eq(al_json_text_bytes(j, "q", &b), AL_ENOTFOUND);
	ck_assert_int_eq(al_json_text_bytes(j, "r", &b), AL_ENOTFOUND);
	dynbuf_free(&b);
	json_decref(j);
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
	tc = tcase_create("paths");
	tcase_add_test(tc, member_paths);
	tcase_add_test(tc, name_problems);
	suite_add_tcase(s, tc);
	tc = tcase_create("fold");
	tcase_add_test(tc, fold_same_person);
	tcase_add_test(tc, fold_refuses_what_it_cannot_fold);
	suite_add_tcase(s, tc);
	tc = tcase_create("os");
	tcase_add_test(tc, read_write_full);
	tcase_add_test(tc, clock_and_iso_time);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_test(tc, text_cursor_lines);
	tcase_add_test(tc, dec_parse_bounded);
	tcase_add_test(tc, findings_printed_escaped);
	tcase_add_test(tc, diag_list_says_it_is_incomplete);
	suite_add_tcase(s, tc);
	tc = tcase_create("json text");
	tcase_add_test(tc, json_text_valid_is_plain);
	tcase_add_test(tc, json_text_invalid_gets_hex);
	tcase_add_test(tc, json_text_nul_gets_hex);
	tcase_add_test(tc, json_text_never_overwrites);
	tcase_add_test(tc, json_text_bytes_checks_the_sibling);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(common_suite()) ? 1 : 0;
}
