/*
 * extract.c - airlock pull's unpacking, the client's side: the temporary
 * directory, the child, its report, the check of what it wrote, the move
 * into place and the clean-up; see extract.h.
 *
 * Trust: runs in the client process and never parses the archive (lint
 * checks that no object outside scanners/child/ opens an archive stream).
 * What it reads from the child (the report) and from the tree the child
 * made is hostile: a child taken over by its input may have written
 * anything it could beneath the temporary directory, so that tree is
 * walked here without following a link (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW)
 * and every link is resolved by the kernel with RESOLVE_BENEATH before
 * anything moves.
 *
 * Limits: the report up to AL_PULL_REPORT_BYTES, the tree AL_MAX_DIR_DEPTH
 * deep, AL_ARCHIVE_MAX_ENTRIES entries, names AL_MAX_PATH long.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "extract.h"
#include "extract_child.h"
#include "path.h"
#include "proto.h"
#include "util.h"

#define STAGE_PREFIX ".airlock-pull."

static int
open_beneath(int root, const char *path, int flags, uint64_t resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.resolve = resolve;
	return (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
}

/* What is left of a hostile string, escaped, for a message. */
static const char *
shown(struct dynbuf *b, const char *s)
{
	dynbuf_reset(b);
	if (al_term_escape(b, s, strlen(s)) < 0)
		return "(a name too long to show)";
	return dynbuf_str(b);
}

/* ---- the report -------------------------------------------------------- */

static int
report_add(struct extract_report *r, struct extract_entry *e)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct extract_entry *v;

		if (cap > AL_ARCHIVE_MAX_ENTRIES + 1)
			return al_err_set(AL_ELIMIT, "the child reported more "
			    "than %u entries", AL_ARCHIVE_MAX_ENTRIES);
		if ((v = realloc(r->v, cap * sizeof(*v))) == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = *e;
	r->files += e->type == EXTRACT_FILE;
	r->dirs += e->type == EXTRACT_DIR;
	r->links += e->type == EXTRACT_LINK;
	r->bytes += e->size;
	return 0;
}

void
extract_report_free(struct extract_report *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		extract_entry_clear(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* The records in buf: entries, then one end record, then nothing. */
static int
report_decode(struct extract_report *out, const struct dynbuf *buf)
{
	const unsigned char *p = (const unsigned char *)buf->data;
	size_t left = buf->len, used;
	struct extract_rec rec;
	struct dynbuf esc;
	int rc;

	for (;;) {
		if ((rc = extract_proto_decode(&rec, p, left, &used)) < 0)
			return rc;
		p += used;
		left -= used;
		if (rec.end)
			break;
		if (al_name_problem(rec.entry.path, 1) != NULL) {
			extract_entry_clear(&rec.entry);
			return al_err_set(AL_EINVAL, "the child reported a name "
			    "it must not write");
		}
		if ((rc = report_add(out, &rec.entry)) < 0) {
			extract_entry_clear(&rec.entry);
			return rc;
		}
	}
	if (left != 0)
		return al_err_set(AL_EINVAL, "the child's report goes on after "
		    "its end");
	if (rec.status == 0)
		return 0;
	dynbuf_init(&esc, 4 * EXTRACT_MSG_MAX + 64);
	rc = al_err_set(rec.status == AL_ELIMIT ? AL_ELIMIT : AL_EINVAL,
	    "refused: %s; nothing was unpacked", shown(&esc, rec.msg));
	dynbuf_free(&esc);
	return rc;
}

/* ---- the child --------------------------------------------------------- */

/* Reads the report to its end (the child's exit closes it), then reaps the
 * child; a report past its cap kills it. */
static int
child_collect(pid_t pid, int rfd, struct dynbuf *buf)
{
	char chunk[65536];
	int status, rc = 0;
	ssize_t n;

	for (;;) {
		n = read(rfd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (dynbuf_add(buf, chunk, (size_t)n) < 0) {
			(void)kill(pid, SIGKILL);
			rc = al_err_set(AL_ELIMIT, "the unpacking child's report "
			    "passed %u bytes; it was stopped", AL_PULL_REPORT_BYTES);
			break;
		}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return al_err_set(AL_EIO, "waitpid: %s", strerror(errno));
	if (rc < 0)
		return rc;
	if (WIFSIGNALED(status))
		return al_err_set(AL_EINVAL, "the unpacking child was killed by "
		    "signal %d (%s)%s; nothing was unpacked", WTERMSIG(status),
		    strsignal(WTERMSIG(status)), WTERMSIG(status) == SIGSYS ?
		    ": it tried a system call its sandbox forbids" :
		    WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL ?
		    ": it ran out of time" : "");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return al_err_set(AL_EIO, "the unpacking child failed (exit %d: "
		    "%s); nothing was unpacked", WEXITSTATUS(status),
		    WEXITSTATUS(status) == PROTO_EXIT_SANDBOX ? "its sandbox could not be set up" :
		    "it could not start or report");
	return 0;
}

static int
child_run(struct extract_report *out, int archive_fd, const char *name,
    int stage)
{
	struct extract_child_args args;
	struct dynbuf buf;
	const char *fault = getenv("AIRLOCK_TEST_PULL_FAULT");
	mode_t um = umask(022);
	int p[2], rc;
	pid_t pid;

	(void)umask(um);
	if (pipe2(p, O_CLOEXEC) < 0)
		return al_err_set(AL_EIO, "pipe: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		rc = al_err_set(AL_EIO, "fork: %s", strerror(errno));
		(void)close(p[0]);
		(void)close(p[1]);
		return rc;
	}
	if (pid == 0) {
		(void)close(p[0]);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		args.archive_fd = archive_fd;
		args.root_fd = stage;
		args.report_fd = p[1];
		args.name = name;
		args.umask = (unsigned)um;
		args.fault = fault ? fault : "";
		extract_child_main(&args);
	}
	(void)close(p[1]);
	dynbuf_init(&buf, AL_PULL_REPORT_BYTES);
	rc = child_collect(pid, p[0], &buf);
	(void)close(p[0]);
	if (rc == 0)
		rc = report_decode(out, &buf);
	dynbuf_free(&buf);
	return rc;
}

/* ---- the tree the child left ------------------------------------------- */

struct walk {
	int stage;                /* the temporary directory */
	uint64_t count;           /* entries seen */
	struct dynbuf rel;        /* the path being looked at, from stage */
	struct dynbuf esc;
};

static int
has_dotdot(const char *t)
{
	const char *seg;

	for (seg = t; *seg;) {
		size_t len = strcspn(seg, "/");

		if (len == 2 && seg[0] == '.' && seg[1] == '.')
			return 1;
		seg += len;
		if (*seg)
			seg++;
	}
	return 0;
}

/* A link, at w->rel: its target read lexically, then resolved by the
 * kernel from the temporary directory, never leaving it. A link to nothing
 * is kept only if it climbs nowhere ('..'), so that it cannot come to lead
 * out through entries already beside it in the target. */
static int
check_link(struct walk *w, int dfd, const char *name)
{
	char t[AL_MAX_PATH + 1];
	const char *rel = dynbuf_str(&w->rel);
	ssize_t n = readlinkat(dfd, name, t, sizeof(t));
	int fd;

	if (n < 0 || (size_t)n >= sizeof(t))
		return al_err_set(AL_EINVAL, "%s: an unreadable link",
		    shown(&w->esc, rel));
	t[n] = '\0';
	if (t[0] == '\0' || t[0] == '/' || al_link_escapes(rel, t))
		return al_err_set(AL_EINVAL, "%s: a symbolic link out of the "
		    "target", shown(&w->esc, rel));
	fd = open_beneath(w->stage, rel, O_PATH, RESOLVE_BENEATH |
	    RESOLVE_NO_MAGICLINKS);
	if (fd >= 0) {
		(void)close(fd);
		return 0;
	}
	if (errno == ENOENT && !has_dotdot(t))
		return 0;
	return al_err_set(AL_EINVAL, "%s: a symbolic link that %s",
	    shown(&w->esc, rel), errno == EXDEV ? "resolves outside the target" :
	    errno == ELOOP ? "loops" : errno == ENOENT ? "leads nowhere through "
	    "'..'" : strerror(errno));
}

static int
check_dir(struct walk *w, int dfd, unsigned depth)
{
	DIR *d;
	struct dirent *de;
	int fd, rc = 0;

	if (depth > AL_MAX_DIR_DEPTH)
		return al_err_set(AL_ELIMIT, "%s: deeper than %u directories",
		    shown(&w->esc, dynbuf_str(&w->rel)), AL_MAX_DIR_DEPTH);
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			(void)close(fd);
		return al_err_set(AL_EIO, "reading the unpacked tree: %s",
		    strerror(errno));
	}
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		size_t mark = w->rel.len;
		struct stat st;
		int sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->count > AL_ARCHIVE_MAX_ENTRIES)
			rc = al_err_set(AL_ELIMIT, "more than %u entries",
			    AL_ARCHIVE_MAX_ENTRIES);
		else if ((mark > 0 && dynbuf_addc(&w->rel, '/') < 0) ||
		    dynbuf_adds(&w->rel, de->d_name) < 0)
			rc = al_err_set(AL_ELIMIT, "a name longer than %u bytes",
			    AL_MAX_PATH);
		else if (al_name_problem(dynbuf_str(&w->rel), 1) != NULL)
			rc = al_err_set(AL_EINVAL, "%s: %s", shown(&w->esc,
			    dynbuf_str(&w->rel)), al_name_problem(dynbuf_str(&w->rel),
			    1));
		else if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = al_err_set(AL_EIO, "%s: %s", shown(&w->esc,
			    dynbuf_str(&w->rel)), strerror(errno));
		else if ((st.st_mode & 07000) != 0)
			rc = al_err_set(AL_EINVAL, "%s: a setuid, setgid or sticky "
			    "bit", shown(&w->esc, dynbuf_str(&w->rel)));
		else if (S_ISLNK(st.st_mode))
			rc = check_link(w, dirfd(d), de->d_name);
		else if (S_ISREG(st.st_mode) && st.st_nlink != 1)
			rc = al_err_set(AL_EINVAL, "%s: a hard link", shown(&w->esc,
			    dynbuf_str(&w->rel)));
		else if (S_ISDIR(st.st_mode) && (st.st_mode & 0700) != 0700)
			rc = al_err_set(AL_EINVAL, "%s: a directory its owner "
			    "cannot enter", shown(&w->esc, dynbuf_str(&w->rel)));
		else if (S_ISDIR(st.st_mode)) {
			if ((sub = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				rc = al_err_set(AL_EIO, "%s: %s", shown(&w->esc,
				    dynbuf_str(&w->rel)), strerror(errno));
			else {
				rc = check_dir(w, sub, depth + 1);
				(void)close(sub);
			}
		} else if (!S_ISREG(st.st_mode))
			rc = al_err_set(AL_EINVAL, "%s: not a file, directory or "
			    "link", shown(&w->esc, dynbuf_str(&w->rel)));
		w->rel.len = mark;
		if (w->rel.data != NULL)
			w->rel.data[mark] = '\0';
	}
	if (rc == 0 && errno != 0)
		rc = al_err_set(AL_EIO, "reading the unpacked tree: %s",
		    strerror(errno));
	closedir(d);
	return rc;
}

/* Removes name in dfd and everything beneath it, following no link;
 * what cannot be removed is left (it is all inside the temporary
 * directory). */
static void
remove_tree(int dfd, const char *name, unsigned depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode) && depth <= AL_MAX_DIR_DEPTH + 1 &&
	    (fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0) {
		(void)fchmod(fd, 0700);
		if ((d = fdopendir(fd)) == NULL) {
			(void)close(fd);
			return;
		}
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 &&
			    strcmp(de->d_name, "..") != 0)
				remove_tree(dirfd(d), de->d_name, depth + 1);
		closedir(d);
	}
	(void)unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

/* ---- into place -------------------------------------------------------- */

struct names {
	char **v;
	size_t n, cap;
};

static void
names_free(struct names *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/* The temporary directory's top-level names. */
static int
top_names(int stage, struct names *out)
{
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	if ((fd = openat(stage, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			(void)close(fd);
		return al_err_set(AL_EIO, "reading the unpacked tree: %s",
		    strerror(errno));
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 32;
			char **v = realloc(out->v, cap * sizeof(*v));

			if (v == NULL) {
				rc = al_err_set(AL_ENOMEM, "out of memory");
				break;
			}
			out->v = v;
			out->cap = cap;
		}
		if ((out->v[out->n] = strdup(de->d_name)) == NULL)
			rc = al_err_set(AL_ENOMEM, "out of memory");
		else
			out->n++;
	}
	closedir(d);
	return rc;
}

/* Every top-level name moves, or none: a name the target has already
 * stops it before anything moves (and RENAME_NOREPLACE stops a race). */
static int
move_into(int stage, int target)
{
	struct names ns = {NULL, 0, 0};
	struct dynbuf esc;
	struct stat st;
	size_t i, moved = 0;
	int rc;

	dynbuf_init(&esc, 4 * AL_MAX_PATH + 64);
	if ((rc = top_names(stage, &ns)) < 0)
		goto out;
	for (i = 0; i < ns.n && rc == 0; i++)
		if (fstatat(target, ns.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    errno != ENOENT)
			rc = al_err_set(AL_EEXIST, "%s: %s; nothing was unpacked "
			    "(pull never overwrites)", shown(&esc, ns.v[i]),
			    errno == ENOENT || errno == 0 ? "already in the target" :
			    strerror(errno));
	for (i = 0; i < ns.n && rc == 0; i++)
		if (renameat2(stage, ns.v[i], target, ns.v[i],
		    RENAME_NOREPLACE) < 0)
			rc = al_err_set(errno == EEXIST ? AL_EEXIST : AL_EIO,
			    "%s: %s; nothing was unpacked", shown(&esc, ns.v[i]),
			    strerror(errno));
		else
			moved++;
	if (rc < 0)
		while (moved-- > 0)
			(void)renameat2(target, ns.v[moved], stage, ns.v[moved],
			    RENAME_NOREPLACE);
out:
	names_free(&ns);
	dynbuf_free(&esc);
	return rc;
}

/* ---- the whole --------------------------------------------------------- */

/* A new, empty directory in target, named STAGE_PREFIX and random hex. */
static int
stage_make(int target, char name[32])
{
	unsigned char r[6];
	int i, fd;

	for (i = 0; i < 8; i++) {
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return al_err_set(AL_EIO, "getrandom: %s", strerror(errno));
		memcpy(name, STAGE_PREFIX, sizeof(STAGE_PREFIX) - 1);
		al_hex(name + sizeof(STAGE_PREFIX) - 1, r, sizeof(r));
		if (mkdirat(target, name, 0700) == 0)
			break;
		if (errno != EEXIST)
			return al_err_set(AL_EIO, "making the temporary directory "
			    "in the target: %s", strerror(errno));
	}
	if (i == 8)
		return al_err_set(AL_EIO, "no free temporary name in the target");
	fd = open_beneath(target, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
	    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
	if (fd < 0 && errno == ENOSYS) {
		(void)unlinkat(target, name, AT_REMOVEDIR);
		return al_err_set(AL_EIO, "this kernel has no openat2 (Linux 5.6 "
		    "or later): pull does not unpack without it");
	}
	if (fd < 0) {
		int rc = al_err_set(AL_EIO, "the temporary directory: %s",
		    strerror(errno));

		(void)unlinkat(target, name, AT_REMOVEDIR);
		return rc;
	}
	return fd;
}

static int
landlock_present(void)
{
	return syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION) >= 1;
}

int
extract_archive_fd(struct extract_report *out, int archive_fd,
    const char *name, int target_dirfd)
{
	struct walk w;
	char sname[32];
	int stage, rc;

	memset(out, 0, sizeof(*out));
	memset(sname, 0, sizeof(sname));
	if ((stage = stage_make(target_dirfd, sname)) < 0)
		return stage;
	out->landlock = landlock_present();
	rc = child_run(out, archive_fd, name, stage);
	if (rc == 0) {
		memset(&w, 0, sizeof(w));
		w.stage = stage;
		dynbuf_init(&w.rel, AL_MAX_PATH);
		dynbuf_init(&w.esc, 4 * AL_MAX_PATH + 64);
		if ((rc = check_dir(&w, stage, 0)) < 0) {
			char m[1024];

			(void)snprintf(m, sizeof(m), "%s", al_err_msg());
			rc = al_err_set(rc, "refused: %s; nothing was unpacked", m);
		} else if (w.count != out->n)
			rc = al_err_set(AL_EINVAL, "the unpacking child reported "
			    "%zu entries and left %llu; nothing was unpacked",
			    out->n, (unsigned long long)w.count);
		dynbuf_free(&w.rel);
		dynbuf_free(&w.esc);
	}
	if (rc == 0)
		rc = move_into(stage, target_dirfd);
	(void)close(stage);
	remove_tree(target_dirfd, sname, 0);
	if (rc < 0)
		extract_report_free(out);
	return rc;
}
