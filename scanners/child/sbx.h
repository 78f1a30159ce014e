/*
 * sbx.h - the scan child's sandbox.
 *
 * The process that parses artifact bytes (libarchive, libgit2, libmagic, the
 * regex engines) must not be able to do anything but compute: if a hostile
 * artifact takes over a parser, it should find itself in a process that can
 * read the fds it was handed, write results to its pipe, and allocate memory.
 * sbx_enter() gets there, in the order OpenSSH and file(1) use: close every
 * fd not kept, set rlimits, set no-new-privs, load a seccomp allow-list
 * whose default action kills the process.
 *
 * Everything the child needs from disk (the rules, the compiled
 * database, the magic database) must be loaded before sbx_enter().
 */
#ifndef AIRLOCK_SBX_H
#define AIRLOCK_SBX_H

#include <stddef.h>
#include <stdint.h>

struct sbx_limits {
	uint64_t address_space; /* bytes (RLIMIT_AS) */
	uint64_t cpu_seconds;   /* RLIMIT_CPU: SIGXCPU, then SIGKILL */
	uint64_t file_size;     /* RLIMIT_FSIZE, bytes: 0 for the scan child */
};

/* The most fds a scan child keeps (it keeps two), besides a sanitized
 * build's report fd. */
#define SBX_MAX_KEEP 8

/* The defaults for a scan child (al_limits.h). */
void sbx_default_limits(struct sbx_limits *lim);

/*
 * Closes every fd but keep[0..nkeep), applies the limits (and FSIZE=0,
 * NOFILE, NPROC=0, CORE=0), sets PR_SET_NO_NEW_PRIVS and loads the seccomp
 * allow-list. Allowed afterwards: read, readv, write, writev, recvmsg (to
 * receive fds), lseek, close, memory management (brk, mmap, munmap, mremap,
 * mprotect, madvise), clock_gettime, sigaltstack, rt_sigreturn, exit,
 * exit_group. Any other system call kills the process with SIGSYS. Returns 0, or a negative al_err if the
 * sandbox could not be set up (the caller must then exit, never go on).
 */
int sbx_enter(const int *keep, size_t nkeep, const struct sbx_limits *lim);

/*
 * The pull child's sandbox (scanners/child/extract_child.c): the same order and
 * limits, then Landlock (where the kernel has it: *landlocked is set to 1)
 * lets the process create and write only beneath root_fd, and the seccomp
 * allow-list adds openat2 with root_fd as its dirfd, mkdirat, symlinkat and
 * fchmod without setuid, setgid or sticky bits. Returns as sbx_enter().
 */
int sbx_enter_extract(const int *keep, size_t nkeep,
    const struct sbx_limits *lim, int root_fd, int *landlocked);

/* 0 in AddressSanitizer builds, where RLIMIT_AS cannot be applied. */
int sbx_limits_address_space(void);

/*
 * Sanitized builds (AddressSanitizer: make asan): a sandboxed child must
 * be able to write a sanitizer's report, or a bug it hit in a parser is
 * lost (its stderr was closed, and the report's own system calls were
 * killed by the filter). In such builds sbx_enter() keeps fd 2 (the scan
 * child's is a pipe to its parent, which relays the report:
 * parent_relay_report) and the scan child's filter allows, besides
 * writing, what the report takes: getpid (the report's
 * "==PID==" prefix), ioctl(2, TCGETS) (is it a terminal, for colours) and
 * futex (the report's lock). Never in other builds.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SBX_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SBX_SANITIZED 1
#endif
#endif
#ifndef SBX_SANITIZED
#define SBX_SANITIZED 0
#endif
#define SBX_REPORT_FD 2

/* Before the sandbox, in a sanitized build: the sanitizer's symbolizer
 * (the binary's and libraries' debug information, the memory map) is
 * loaded now, while files can be opened, so that a report inside the
 * sandbox names functions and lines; a sanitizer's fatal error ends the
 * process with PROTO_EXIT_SANITIZER. Nothing in other builds. */
void sbx_sanitizer_prepare(void);

#endif
