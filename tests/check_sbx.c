/*
 * check_sbx.c - the scan child's sandbox: inside it the engine still scans,
 * and every forbidden system call kills the process (SIGSYS), fds not kept
 * are closed, and the address-space limit holds. Each case forks a real
 * child, enters the real sandbox and reports through a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "test_util.h"

#include "al_limits.h"
#include "sbx.h"

#define TOKEN "ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ"

/* What a child did: its exit status or signal, and what it wrote. */
struct outcome {
	int signaled;
	int sig;
	int code;
	char said[64];
};

typedef void (*child_fn)(int out, void *arg);

static void
run_child(child_fn fn, void *arg, struct outcome *o)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		fn(p[1], arg);
		_exit(0);
	}
	close(p[1]);
	memset(o, 0, sizeof(*o));
	n = read(p[0], o->said, sizeof(o->said) - 1);
	o->said[n > 0 ? n : 0] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	o->signaled = WIFSIGNALED(status);
	o->sig = o->signaled ? WTERMSIG(status) : 0;
	o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
enter(int out)
{
	struct sbx_limits lim;

	sbx_default_limits(&lim);
	if (sbx_enter(&out, 1, &lim) < 0)
		_exit(99);
}

static void
child_writes(int out, void *arg)
{
	(void)arg;
	enter(out);
	(void)!write(out, "alive", 5);
}

static void
child_opens(int out, void *arg)
{
	(void)arg;
	enter(out);
	(void)!write(out, "before", 6);
	(void)open("/etc/passwd", O_RDONLY); /* must never return */
	(void)!write(out, "escaped", 7);
}

static void
child_socket(int out, void *arg)
{
	(void)arg;
	enter(out);
	(void)socket(AF_INET, SOCK_STREAM, 0);
	(void)!write(out, "escaped", 7);
}

static void
child_execs(int out, void *arg)
{
	char *argv[] = {"/bin/true", NULL};

	(void)arg;
	enter(out);
	execv("/bin/true", argv);
	(void)!write(out, "escaped", 7);
}

static int
cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

static void
child_sorts(int out, void *arg)
{
	static int v[4096];
	size_t i;

	(void)arg;
	enter(out);
	for (i = 0; i < 4096; i++)
		v[i] = (int)i;
	/* More than 1 KiB: glibc's qsort wants the memory size (sysinfo),
	 * which the filter forbids unless it was asked before. */
	qsort(v, 4096, sizeof(v[0]), cmp_desc);
	(void)!write(out, v[0] == 4095 ? "sorted" : "wrong", v[0] == 4095 ? 6 :
	    5);
}

START_TEST(allowed_work_continues)
{
	struct outcome o;

	run_child(child_writes, NULL, &o);
	ck_assert_int_eq(o.signaled, 0);
	ck_assert_int_eq(o.code, 0);
	ck_assert_str_eq(o.said, "alive");
	/* A large sort inside the sandbox is work, not a forbidden call. */
	run_child(child_sorts, NULL, &o);
	ck_assert_int_eq(o.signaled, 0);
	ck_assert_str_eq(o.said, "sorted");
}
END_TEST

START_TEST(forbidden_syscalls_kill)
{
	struct outcome o;

	/* open(2) of any file: killed by the seccomp filter. */
	run_child(child_opens, NULL, &o);
	ck_assert_int_eq(o.signaled, 1);
	ck_assert_int_eq(o.sig, SIGSYS);
	ck_assert_str_eq(o.said, "before");
	/* No network, no new programs. */
	run_child(child_socket, NULL, &o);
	ck_assert_int_eq(o.sig, SIGSYS);
	ck_assert_str_eq(o.said, "");
	run_child(child_execs, NULL, &o);
	ck_assert_int_eq(o.sig, SIGSYS);
	ck_assert_str_eq(o.said, "");
}
END_TEST

static void
child_uses_old_fd(int out, void *arg)
{
	int fd = *(int *)arg;
	ssize_t n;

	enter(out);
	/* The fd was open before the sandbox and not kept: it is gone. */
	n = write(fd, "x", 1);
	(void)!write(out, n < 0 && errno == EBADF ? "closed" : "open", n < 0 &&
	    errno == EBADF ? 6 : 4);
}

START_TEST(other_fds_closed)
{
	struct outcome o;
	int fd = open("/dev/null", O_WRONLY);

	ck_assert_int_ge(fd, 0);
	run_child(child_uses_old_fd, &fd, &o);
	close(fd);
	ck_assert_str_eq(o.said, "closed");
	ck_assert_int_eq(o.signaled, 0);
}
END_TEST

static void
child_allocates(int out, void *arg)
{
	void *p;

	(void)arg;
	enter(out);
	/* Twice the address-space limit cannot be had. */
	p = malloc((size_t)(2 * AL_SBX_ADDRESS_SPACE));
	(void)!write(out, p == NULL ? "refused" : "granted", 7);
}

START_TEST(address_space_limited)
{
	struct outcome o;

	run_child(child_allocates, NULL, &o);
	ck_assert_str_eq(o.said, "refused");
}
END_TEST

static void
child_scans(int out, void *arg)
{
	struct tu_scanner *sc = arg;
	struct finding_list fl = {0};
	char msg[32];
	int n;

	/* Rules, database and worker are ready before the sandbox closes. */
	enter(out);
	if (scan_mem(sc->w, "x = " TOKEN "\n", strlen(TOKEN) + 5, "a.py", "a.py",
	    &fl) < 0)
		_exit(98);
	n = snprintf(msg, sizeof(msg), "%zu %s", fl.n,
	    fl.n ? fl.v[0].rule->id : "-");
	(void)!write(out, msg, (size_t)n);
}

START_TEST(engine_scans_inside)
{
	struct tu_scanner sc;
	struct outcome o;

	tu_scanner_init(&sc,
	    "rules:\n"
	    "  - id: gh-pat\n"
	    "    title: T\n"
	    "    category: secret\n"
	    "    severity: critical\n"
	    "    pattern: '\\b(ghp_[A-Za-z0-9]{36})\\b'\n"
	    "    secret: 1\n"
	    "    description: D\n");
	run_child(child_scans, &sc, &o);
	tu_scanner_free(&sc);
	ck_assert_int_eq(o.signaled, 0);
	ck_assert_int_eq(o.code, 0);
	ck_assert_str_eq(o.said, "1 gh-pat");
}
END_TEST

static Suite *
sbx_suite(void)
{
	Suite *s = suite_create("sbx");
	TCase *tc = tcase_create("sandbox");

	tcase_add_test(tc, allowed_work_continues);
	tcase_add_test(tc, forbidden_syscalls_kill);
	tcase_add_test(tc, other_fds_closed);
	if (sbx_limits_address_space())
		tcase_add_test(tc, address_space_limited);
	else
		printf("sbx: AddressSanitizer build: address-space limit not "
		    "applied, its test not run\n");
	tcase_add_test(tc, engine_scans_inside);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(sbx_suite()) ? 1 : 0;
}
