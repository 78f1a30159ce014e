/*
 * sbx.c - entering the scan child's sandbox, or the pull child's; see sbx.h.
 *
 * Runs in the freshly forked child only. The scan child's allow-list is
 * deliberately narrower than file(1)'s: it never opens, stats or maps files
 * by name, never creates sockets, never spawns, never signals. The pull
 * child's adds what writing beneath one directory fd needs (openat2 from
 * that fd only, mkdirat, symlinkat, fchmod without setuid, setgid or sticky
 * bits) and, where the kernel has Landlock, a ruleset that lets it create
 * and write only beneath that directory: seccomp cannot read a path, so it
 * is Landlock that keeps an absolute path out. In a sanitized build (and
 * only there) the scan child also keeps fd 2 and may make the few calls a
 * sanitizer's report takes (sbx.h); the pull child is as in any build.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "al_limits.h"
#include "err.h"
#include "proto.h"
#include "sbx.h"

#if SBX_SANITIZED
#include <dlfcn.h>
#include <sanitizer/common_interface_defs.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* A sanitizer's fatal error, its report written: the parent names it. */
static void
sbx_sanitizer_died(void)
{
	_exit(PROTO_EXIT_SANITIZER);
}

/*
 * UndefinedBehaviorSanitizer's handler of a signed overflow, as the
 * compilers call it (GCC's and clang's runtime ABI): a source location
 * and a type. Weak: a build without -fsanitize=undefined has none.
 */
struct sbx_ubsan_location {
	const char *file;
	uint32_t line, column;
};
struct sbx_ubsan_type {
	uint16_t kind;            /* 0: an integer */
	uint16_t info;            /* log2(bits) << 1 | signed */
	char name[4];
};
struct sbx_ubsan_overflow {
	struct sbx_ubsan_location loc;
	const struct sbx_ubsan_type *type;
};
void __ubsan_handle_add_overflow(void *data, void *lhs, void *rhs)
    __attribute__((weak));

/*
 * GCC links UndefinedBehaviorSanitizer as a runtime of its own
 * (libubsan), which starts at its first report, reading the binary's name
 * and /proc/self/environ: inside the sandbox that start is killed before
 * a word is written. So one report is made now, into /dev/null (a signed
 * overflow through the recoverable handler; its location is then spent),
 * and libubsan's fatal errors end the process as AddressSanitizer's do.
 */
static void
sbx_ubsan_prepare(void)
{
	static const struct sbx_ubsan_type int_type = {0, 5 << 1 | 1, "int"};
	static struct sbx_ubsan_overflow warm = {{"sandbox warm-up", 1, 1},
	    &int_type};
	char where[256];
	void *h;
	int err, null;

	if (__ubsan_handle_add_overflow != NULL &&
	    (err = dup(STDERR_FILENO)) >= 0) {
		if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
			(void)dup2(null, STDERR_FILENO);
			__ubsan_handle_add_overflow(&warm, (void *)(uintptr_t)INT32_MAX,
			    (void *)(uintptr_t)1);
			close(null);
		}
		(void)dup2(err, STDERR_FILENO);
		close(err);
	}
	if ((h = dlopen("libubsan.so.1", RTLD_LAZY | RTLD_NOLOAD)) != NULL) {
		void (*on_death)(void (*)(void)) = (void (*)(void (*)(void)))
		    dlsym(h, "__sanitizer_set_death_callback");
		void (*symbolize)(void *, const char *, char *, size_t) =
		    (void (*)(void *, const char *, char *, size_t))
		    dlsym(h, "__sanitizer_symbolize_pc");

		if (on_death != NULL)
			on_death(sbx_sanitizer_died);
		if (symbolize != NULL)
			symbolize((void *)(uintptr_t)sbx_ubsan_prepare, "%p %F %L",
			    where, sizeof(where));
		dlclose(h);
	}
}
#else
#define TCGETS 0
#endif

void
sbx_default_limits(struct sbx_limits *lim)
{
	lim->address_space = AL_SBX_ADDRESS_SPACE;
	lim->cpu_seconds = AL_SBX_CPU_SECONDS;
	lim->file_size = 0;
}

static int
kept(int fd, const int *keep, size_t nkeep)
{
	size_t i;

	for (i = 0; i < nkeep; i++)
		if (keep[i] == fd)
			return 1;
	return 0;
}

/*
 * Closes every descriptor not kept: close_range() over the gaps between kept
 * fds (one system call each, however high the fd limit is), or one close()
 * per possible fd where the kernel lacks close_range().
 */
static int
close_others(const int *keep, size_t nkeep)
{
	unsigned lo = 0;
	long max;
	int fd;

	for (;;) {
		unsigned next = ~0U;
		size_t i;

		/* The smallest kept fd at or above lo. */
		for (i = 0; i < nkeep; i++)
			if (keep[i] >= 0 && (unsigned)keep[i] >= lo &&
			    (unsigned)keep[i] < next)
				next = (unsigned)keep[i];
		if (next > lo && close_range(lo, next - 1, 0) < 0)
			goto fallback;
		if (next == ~0U)
			return 0;
		lo = next + 1;
	}
fallback:
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (fd = 0; fd < max; fd++)
		if (!kept(fd, keep, nkeep))
			(void)close(fd); /* EBADF for the unused ones */
	return 0;
}

static int
set_limit(int resource, uint64_t value, const char *name)
{
	struct rlimit rl;

	rl.rlim_cur = rl.rlim_max = (rlim_t)value;
	if (setrlimit(resource, &rl) < 0)
		return al_err_set(AL_EIO, "setrlimit %s: %s", name,
		    strerror(errno));
	return 0;
}

/* AddressSanitizer reserves terabytes of shadow address space: under it the
 * address-space limit cannot apply (the sanitizer build is for finding bugs,
 * not for running the gate). */
#define SBX_LIMIT_AS (!SBX_SANITIZED)

int
sbx_limits_address_space(void)
{
	return SBX_LIMIT_AS;
}

static int
apply_limits(const struct sbx_limits *lim, size_t nkeep)
{
	int rc;

	if ((SBX_LIMIT_AS &&
	    (rc = set_limit(RLIMIT_AS, lim->address_space, "AS")) < 0) ||
	    (rc = set_limit(RLIMIT_CPU, lim->cpu_seconds, "CPU")) < 0 ||
	    (rc = set_limit(RLIMIT_FSIZE, lim->file_size, "FSIZE")) < 0 ||
	    (rc = set_limit(RLIMIT_CORE, 0, "CORE")) < 0 ||
	    (rc = set_limit(RLIMIT_NPROC, 0, "NPROC")) < 0 ||
	    /* Room for the kept fds and those recvmsg() hands over. */
	    (rc = set_limit(RLIMIT_NOFILE, nkeep + AL_CHILD_INFLIGHT + 3,
	    "NOFILE")) < 0)
		return rc;
	return 0;
}

static const int allowed_syscalls[] = {
	SCMP_SYS(read), SCMP_SYS(readv), SCMP_SYS(write), SCMP_SYS(writev),
	SCMP_SYS(recvmsg), SCMP_SYS(close),
	/* Rewinding the artifact after a look at its first bytes; zip and 7z
	 * readers seek within it. */
	SCMP_SYS(lseek), SCMP_SYS(pread64),
	SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(mprotect), SCMP_SYS(madvise),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(exit), SCMP_SYS(exit_group),
	/* Only its own signal stack; sanitizer runtimes reset it on exit. */
	SCMP_SYS(sigaltstack),
	/* Reading the clock (normally the vDSO, without a system call). */
	SCMP_SYS(clock_gettime),
};

/*
 * What the pull child may do beyond the scan child's list, each only on an
 * fd it holds: open beneath the root fd (openat2 with the root fd as its
 * dirfd; the resolve flags sit in a struct seccomp cannot read), make
 * directories and links, set a mode without the setuid, setgid and sticky
 * bits. Nothing that opens by name from the working directory (open,
 * openat), removes, renames, links, or makes a device or a FIFO.
 */
static int
add_extract_rules(scmp_filter_ctx ctx, int root_fd)
{
	int rc;

	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat2), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, (uint32_t)root_fd))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mkdirat),
	    0)) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(symlinkat),
	    0)) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fchmod), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 07000, 0))) < 0)
		return rc;
	return 0;
}

/*
 * What writing a sanitizer's report to fd 2 takes, in sanitized builds
 * only (sbx.h): its "==PID==" prefix, the terminal test of its colours on
 * fd 2 alone, and the wake-up of the lock it takes (futex).
 */
static int
add_report_rules(scmp_filter_ctx ctx)
{
	int rc;

	if (!SBX_SANITIZED)
		return 0;
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getpid),
	    0)) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2,
	    SCMP_A0(SCMP_CMP_EQ, SBX_REPORT_FD, 0),
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, TCGETS))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(futex),
	    0)) < 0)
		return rc;
	return 0;
}

void
sbx_sanitizer_prepare(void)
{
#if SBX_SANITIZED
	__sanitizer_sandbox_arguments args;
	char where[256];

	/* libubsan first: its dlopen() makes AddressSanitizer forget the
	 * modules it knows, which must be known from here on. Then the
	 * memory map, cached; the symbolizer's state, made by one lookup (it
	 * reads every module's debug information at its first); the way out
	 * of a fatal report. */
	sbx_ubsan_prepare();
	memset(&args, 0, sizeof(args));
	args.coverage_fd = -1;
	__sanitizer_sandbox_on_notify(&args);
	__sanitizer_symbolize_pc((void *)(uintptr_t)sbx_sanitizer_prepare,
	    "%p %F %L", where, sizeof(where));
	__sanitizer_set_death_callback(sbx_sanitizer_died);
#endif
}

static int
cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) -
	    (*(const int *)a < *(const int *)b);
}

/*
 * glibc's qsort asks the kernel for the machine's memory (sysinfo) the
 * first time it sorts more than 1 KiB, and keeps the answer: a sort of a
 * few hundred links or findings inside the sandbox would be killed for
 * it. One such sort before the filter is in force, so that the answer is
 * kept, and sysinfo stays forbidden.
 */
static void
warm_qsort(void)
{
	int v[1024];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = (int)(sizeof(v) / sizeof(v[0]) - i);
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), cmp_int);
}

/* root_fd < 0: the scan child's list; else the pull child's (see above). */
static int
load_seccomp(int root_fd)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc = 0;

	warm_qsort();
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (ctx == NULL)
		return al_err_set(AL_ENOMEM, "seccomp_init failed");
	for (i = 0; i < sizeof(allowed_syscalls) / sizeof(allowed_syscalls[0]) &&
	    rc == 0; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed_syscalls[i], 0);
	if (rc == 0 && root_fd < 0)
		rc = add_report_rules(ctx);
	if (rc == 0 && root_fd >= 0)
		rc = add_extract_rules(ctx, root_fd);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0)
		return al_err_set(AL_EIO, "seccomp: %s", strerror(-rc));
	return 0;
}

/*
 * keep, and in a sanitized build fd 2 for the sanitizer's report, into
 * out (room for nkeep + 1); how many.
 */
static size_t
with_report_fd(int *out, const int *keep, size_t nkeep)
{
	size_t i;

	for (i = 0; i < nkeep; i++)
		out[i] = keep[i];
	if (SBX_SANITIZED)
		out[nkeep++] = SBX_REPORT_FD;
	return nkeep;
}

int
sbx_enter(const int *keep, size_t nkeep, const struct sbx_limits *lim)
{
	int all[SBX_MAX_KEEP + 1];
	int rc;

	if (nkeep > SBX_MAX_KEEP)
		return al_err_set(AL_EINVAL, "sandbox: more than %d fds to keep",
		    SBX_MAX_KEEP);
	nkeep = with_report_fd(all, keep, nkeep);
	if ((rc = close_others(all, nkeep)) < 0 ||
	    (rc = apply_limits(lim, nkeep)) < 0)
		return rc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return al_err_set(AL_EIO, "PR_SET_NO_NEW_PRIVS: %s",
		    strerror(errno));
	return load_seccomp(-1);
}

/* Rights of Landlock ABI 3 and 5 that Debian 12's headers do not name. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

/*
 * Every file-system right the kernel's Landlock knows is handled (denied
 * unless a rule allows it); beneath root_fd only making directories,
 * regular files and links, writing files and listing directories are
 * allowed. Returns 1 when the ruleset is in force, 0 when the kernel has no
 * Landlock (ENOSYS, or disabled at boot), negative on any other failure.
 * Needs no_new_privs already set.
 */
static int
landlock_beneath(int root_fd)
{
	struct landlock_ruleset_attr ra;
	struct landlock_path_beneath_attr pb;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	int rs, rc = 1;

	if (abi < 1)
		return errno == ENOSYS || errno == EOPNOTSUPP ? 0 :
		    al_err_set(AL_EIO, "landlock: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = LANDLOCK_ACCESS_FS_MAKE_DIR |
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SYM |
	    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	pb.parent_fd = root_fd;
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra),
	    0)) < 0)
		return al_err_set(AL_EIO, "landlock ruleset: %s",
		    strerror(errno));
	if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb,
	    0) < 0 || syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		rc = al_err_set(AL_EIO, "landlock: %s", strerror(errno));
	(void)close(rs);
	return rc;
}

int
sbx_enter_extract(const int *keep, size_t nkeep, const struct sbx_limits *lim,
    int root_fd, int *landlocked)
{
	int rc;

	*landlocked = 0;
	if ((rc = close_others(keep, nkeep)) < 0 ||
	    (rc = apply_limits(lim, nkeep)) < 0)
		return rc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return al_err_set(AL_EIO, "PR_SET_NO_NEW_PRIVS: %s",
		    strerror(errno));
	if ((rc = landlock_beneath(root_fd)) < 0)
		return rc;
	*landlocked = rc;
	return load_seccomp(root_fd);
}
