/*
 * extract_child.c - airlock pull's unpacking child; see extract_child.h.
 *
 * Trust: input is hostile; this runs only in the child that
 * extract_archive_fd (scanners/parent/extract.c) forks, after
 * sbx_enter_extract: no network, no exec, no file opened by name except
 * beneath the root fd with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS),
 * and (where the kernel has Landlock) no file created or written anywhere
 * else whatever the call. The client checks the tree it leaves again
 * before moving it into place: nothing here is the last word.
 *
 * The archive is read as the scan child reads it (scan_archive.c): every
 * filter and format libarchive has, a compressed single file as gunzip
 * writes it, the same limits on entries, bytes, expansion ratio and path
 * length. Only the top level is unpacked: an archive inside is a file, as
 * tar and unzip leave it. What is written, in archive order:
 *   - directories, made 0700 and then given their mode with owner rwx kept
 *     (so later entries and the client's move and clean-up can go inside);
 *     parents an archive does not list are made as tar makes them;
 *   - regular files, O_CREAT|O_EXCL (a name twice is refused), their mode
 *     without setuid, setgid and sticky bits, less the client's umask;
 *   - symbolic links whose target is relative, stays inside the target
 *     when read lexically from the link's own directory, and names no .git.
 * Refused, and then nothing more is written (the client removes what
 * was): absolute names, '..', control characters, .git in any spelling,
 * hard links, devices, FIFOs, sockets, encrypted entries, an entry beneath
 * a link (RESOLVE_NO_SYMLINKS: no link is ever followed while unpacking, so
 * a link to '.' gives no second way to a place), a name that is there
 * already, and any limit passed.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "al_limits.h"
#include "arc_formats.h"
#include "dynbuf.h"
#include "err.h"
#include "extract_child.h"
#include "extract_proto.h"
#include "os.h"
#include "path.h"
#include "proto.h"
#include "sbx.h"
#include "scan_archive.h"

struct xt {
	struct archive *a;
	int root;                 /* the directory unpacked into */
	int report;               /* the report pipe */
	mode_t umask;
	uint64_t entries;
	uint64_t expanded;        /* bytes of file content written */
	uint64_t declared;        /* sizes the headers claim */
	size_t size;              /* the archive's own bytes */
	struct dynbuf rep;        /* records not yet written to the pipe */
	char msg[EXTRACT_MSG_MAX];
	char buf[65536];
};

/* Sets the end message; returns code. */
static int
xt_fail(struct xt *x, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
xt_fail(struct xt *x, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
	return code;
}

static int
xt_flush(struct xt *x)
{
	int rc = al_write_full(x->report, x->rep.data ? x->rep.data : "",
	    x->rep.len);

	dynbuf_reset(&x->rep);
	return rc;
}

/* One record of what was made; the pipe is written in 32 KiB pieces. */
static int
xt_report(struct xt *x, enum extract_type type, uint32_t mode, uint64_t size,
    const char *path, const char *link)
{
	struct extract_entry e = {type, mode, size, (char *)path, (char *)link};

	if (extract_proto_entry(&x->rep, &e) < 0 ||
	    (x->rep.len >= 32768 && xt_flush(x) < 0))
		return xt_fail(x, AL_EIO, "the report: %s", al_err_msg());
	return 0;
}

/* openat2 beneath the root, following no link on the way or at the end. */
static int
xt_open(struct xt *x, const char *path, int flags, mode_t mode)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	/* No O_NOFOLLOW: it would open a final link itself (O_PATH) where
	 * RESOLVE_NO_SYMLINKS refuses it (ELOOP), as it refuses every other. */
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, x->root, path, &how, sizeof(how));
}

/* Why a path could not be followed, in words. */
static const char *
xt_why(int err)
{
	switch (err) {
	case ELOOP:
		return "it lies beneath a symbolic link (links are never "
		    "followed while unpacking)";
	case ENOTDIR:
		return "it lies beneath something that is not a directory";
	case EXDEV:
		return "it resolves outside the target";
	case EEXIST:
		return "the name is in the archive twice";
	default:
		return strerror(err);
	}
}

/*
 * The directory path[0..len) beneath the root, made where missing (0700
 * plus, on its own, the umask's rwx for the rest), each component opened
 * from the root again so that the kernel checks the whole way: an O_PATH
 * fd, or -1 with the message set.
 */
static int
xt_dir(struct xt *x, const char *path, size_t len, const char *shown)
{
	char pre[AL_MAX_PATH + 1];
	size_t i;
	int pfd, fd;

	if (len > AL_MAX_PATH)
		return xt_fail(x, -1, "%s: the name is too long", shown);
	if ((pfd = xt_open(x, ".", O_PATH | O_DIRECTORY, 0)) < 0)
		return xt_fail(x, -1, "the target: %s", strerror(errno));
	for (i = 0; i < len; i++) {
		const char *comp = path + i;
		size_t clen = strcspn(comp, "/");

		if (clen > len - i)
			clen = len - i;
		memcpy(pre, path, i + clen);
		pre[i + clen] = '\0';
		if ((fd = xt_open(x, pre, O_PATH | O_DIRECTORY, 0)) < 0 &&
		    errno == ENOENT) {
			char c[AL_MAX_PATH + 1];

			memcpy(c, comp, clen);
			c[clen] = '\0';
			if (mkdirat(pfd, c, 0700 | (0777 & ~x->umask)) < 0) {
				if (errno != EEXIST) {
					(void)close(pfd);
					return xt_fail(x, -1, "%s: %s", shown,
					    strerror(errno));
				}
			} else if (xt_report(x, EXTRACT_DIR, 0700 | (0777 &
			    ~x->umask), 0, pre, NULL) < 0) {
				(void)close(pfd);
				return -1;
			}
			fd = xt_open(x, pre, O_PATH | O_DIRECTORY, 0);
		}
		(void)close(pfd);
		if (fd < 0)
			return xt_fail(x, -1, "%s: %s", shown, xt_why(errno));
		pfd = fd;
		i += clen;
	}
	return pfd;
}

/* The entry's name without "./" or empty components ("./a//b/" is "a/b"),
 * into out; AL_EINVAL with the message set if it must not be written. */
static int
xt_canon(struct xt *x, const char *name, char *out, size_t cap)
{
	const char *problem = al_name_problem(name, 1), *seg;
	size_t n = 0, depth = 0;

	if (problem != NULL)
		return xt_fail(x, AL_EINVAL, "%s: %s", name, problem);
	for (seg = name; *seg;) {
		size_t len = strcspn(seg, "/");

		if (!(len == 0 || (len == 1 && seg[0] == '.'))) {
			if (n + len + 2 > cap)
				return xt_fail(x, AL_EINVAL, "%s: the name is "
				    "too long", name);
			if (++depth > AL_MAX_DIR_DEPTH)
				return xt_fail(x, AL_ELIMIT, "%s: deeper than %u "
				    "directories", name, AL_MAX_DIR_DEPTH);
			if (n > 0)
				out[n++] = '/';
			memcpy(out + n, seg, len);
			n += len;
		}
		seg += len;
		if (*seg)
			seg++;
	}
	out[n] = '\0';
	return 0;
}

/* A link's target: relative, inside when read from the link's directory,
 * no control character and no .git component. */
static int
xt_link_ok(struct xt *x, const char *path, const char *target)
{
	const char *p;

	if (target == NULL || target[0] == '\0')
		return xt_fail(x, AL_EINVAL, "%s: a symbolic link without a "
		    "target", path);
	if (target[0] == '/')
		return xt_fail(x, AL_EINVAL, "%s: a symbolic link to an absolute "
		    "name (%s)", path, target);
	if (al_link_escapes(path, target))
		return xt_fail(x, AL_EINVAL, "%s: a symbolic link out of the "
		    "target (%s)", path, target);
	for (p = target; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return xt_fail(x, AL_EINVAL, "%s: a control character in "
			    "the link's target", path);
	/* The scan's own test (a backslash counts as a separator there). */
	if (al_link_into_git(target))
		return xt_fail(x, AL_EINVAL, "%s: a symbolic link into .git",
		    path);
	return 0;
}

/* Content, counted against the archive limits, into fd. */
static int
xt_copy(struct xt *x, int fd, const char *path, uint64_t *written)
{
	la_ssize_t r;

	while ((r = archive_read_data(x->a, x->buf, sizeof(x->buf))) > 0) {
		uint64_t in = archive_filter_bytes(x->a, -1) > 0 ?
		    (uint64_t)archive_filter_bytes(x->a, -1) : 1;

		x->expanded += (uint64_t)r;
		*written += (uint64_t)r;
		if (x->expanded > AL_ARCHIVE_MAX_BYTES ||
		    (x->expanded > AL_ARCHIVE_RATIO_FLOOR &&
		    x->expanded / in > AL_ARCHIVE_MAX_RATIO))
			return xt_fail(x, AL_ELIMIT, "%s: the archive expands past "
			    "the limits (%llu bytes, %u times its size)", path,
			    (unsigned long long)AL_ARCHIVE_MAX_BYTES,
			    AL_ARCHIVE_MAX_RATIO);
		if (al_write_full(fd, x->buf, (size_t)r) < 0)
			return xt_fail(x, AL_EIO, "%s: %s", path, strerror(errno));
	}
	if (r < 0)
		return xt_fail(x, AL_EINVAL, "%s: the archive is damaged inside "
		    "this entry: %s", path, archive_error_string(x->a) ?
		    archive_error_string(x->a) : "read error");
	return 0;
}

/* One entry, at its canonical path; e is what the report will say:
 * 1 if something was made, 0 if not (a directory there already). */
static int
xt_write(struct xt *x, struct archive_entry *ae, mode_t type,
    struct extract_entry *e)
{
	int made = 1;

	const char *path = e->path, *slash = strrchr(path, '/');
	const char *last = slash ? slash + 1 : path;
	mode_t perm = archive_entry_perm(ae) & 0777 & ~x->umask;
	int pfd, fd, rc = 0;

	if ((pfd = xt_dir(x, path, slash ? (size_t)(slash - path) : 0,
	    path)) < 0)
		return AL_EINVAL;
	switch (type) {
	case AE_IFDIR:
		e->type = EXTRACT_DIR;
		perm |= 0700;
		if (mkdirat(pfd, last, 0700) < 0) {
			if (errno != EEXIST) {
				rc = xt_fail(x, AL_EIO, "%s: %s", path,
				    strerror(errno));
				break;
			}
			made = 0; /* made as a parent, or listed twice */
		}
		if ((fd = xt_open(x, path, O_RDONLY | O_DIRECTORY, 0)) < 0)
			rc = xt_fail(x, AL_EINVAL, "%s: %s", path, xt_why(errno));
		else {
			if (fchmod(fd, perm) < 0)
				rc = xt_fail(x, AL_EIO, "%s: %s", path,
				    strerror(errno));
			(void)close(fd);
		}
		break;
	case AE_IFREG:
		e->type = EXTRACT_FILE;
		if ((fd = xt_open(x, path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0) {
			rc = xt_fail(x, AL_EINVAL, "%s: %s", path, xt_why(errno));
			break;
		}
		rc = xt_copy(x, fd, path, &e->size);
		if (rc == 0 && fchmod(fd, perm) < 0)
			rc = xt_fail(x, AL_EIO, "%s: %s", path, strerror(errno));
		if (close(fd) < 0 && rc == 0)
			rc = xt_fail(x, AL_EIO, "%s: %s", path, strerror(errno));
		break;
	default: /* AE_IFLNK */
		e->type = EXTRACT_LINK;
		perm = 0777;
		if ((e->link = (char *)archive_entry_symlink_utf8(ae)) == NULL)
			e->link = (char *)archive_entry_symlink(ae);
		if ((rc = xt_link_ok(x, path, e->link)) == 0 &&
		    symlinkat(e->link, pfd, last) < 0)
			rc = xt_fail(x, AL_EINVAL, "%s: %s", path, xt_why(errno));
		break;
	}
	(void)close(pfd);
	e->mode = (uint32_t)perm;
	return rc < 0 ? rc : made;
}

/* The name gunzip gives a compressed single file: the artifact's own,
 * less its last suffix. */
static void
xt_raw_name(const char *artifact, char *out, size_t cap)
{
	const char *base = strrchr(artifact, '/'), *dot;

	base = base ? base + 1 : artifact;
	dot = strrchr(base, '.');
	if (snprintf(out, cap, "%.*s", dot && dot > base ? (int)(dot - base) :
	    (int)strlen(base), base) <= 0)
		(void)snprintf(out, cap, "data");
}

static int
xt_entry(struct xt *x, struct archive_entry *ae, const char *artifact)
{
	mode_t type = archive_entry_filetype(ae);
	char rawname[AL_MAX_PATH + 1], path[AL_MAX_PATH + 1];
	const char *name;
	struct extract_entry e = {EXTRACT_FILE, 0, 0, path, NULL};
	int rc;

	if ((name = archive_entry_pathname_utf8(ae)) == NULL)
		name = archive_entry_pathname(ae);
	if (archive_format(x->a) == ARCHIVE_FORMAT_RAW) {
		if (archive_filter_count(x->a) < 2)
			return xt_fail(x, AL_EINVAL, "not an archive or compressed "
			    "file that libarchive knows");
		xt_raw_name(artifact, rawname, sizeof(rawname));
		name = rawname;
	}
	if (name == NULL || name[0] == '\0' || strlen(name) > AL_MAX_PATH)
		return xt_fail(x, AL_EINVAL, "an entry without a usable name");
	if (archive_entry_is_encrypted(ae))
		return xt_fail(x, AL_EINVAL, "%s: an encrypted entry", name);
	if ((rc = xt_canon(x, name, path, sizeof(path))) < 0)
		return rc;
	if (archive_entry_hardlink(ae) != NULL)
		return xt_fail(x, AL_EINVAL, "%s: a hard link (to %s): hard links "
		    "are not unpacked", name, archive_entry_hardlink(ae));
	if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
		return xt_fail(x, AL_EINVAL, "%s: a %s: only files, directories "
		    "and symbolic links are unpacked", name, type == AE_IFIFO ?
		    "FIFO" : type == AE_IFSOCK ? "socket" : type == AE_IFCHR ?
		    "character device" : type == AE_IFBLK ? "block device" :
		    "special file");
	if (archive_entry_size_is_set(ae) && archive_entry_size(ae) > 0)
		x->declared += (uint64_t)archive_entry_size(ae);
	if (x->declared > AL_ARCHIVE_MAX_BYTES)
		return xt_fail(x, AL_ELIMIT, "its entries declare more than %llu "
		    "bytes", (unsigned long long)AL_ARCHIVE_MAX_BYTES);
	if (path[0] == '\0') {
		if (type == AE_IFDIR)
			return 0; /* "./": the target itself */
		return xt_fail(x, AL_EINVAL, "%s: names the target itself", name);
	}
	if ((rc = xt_write(x, ae, type, &e)) <= 0)
		return rc;
	return xt_report(x, e.type, e.mode, e.size, e.path, e.link);
}

static int
xt_run(struct xt *x, const void *data, const char *artifact)
{
	struct archive_entry *ae;
	int r, rc = 0;

	if (archive_read_open_memory(x->a, data, x->size) != ARCHIVE_OK)
		return xt_fail(x, AL_EINVAL, "not a readable archive: %s",
		    archive_error_string(x->a) ? archive_error_string(x->a) :
		    "?");
	while (rc == 0 && (r = archive_read_next_header(x->a, &ae)) !=
	    ARCHIVE_EOF) {
		if (r < ARCHIVE_WARN)
			return xt_fail(x, AL_EINVAL, "the archive is damaged after "
			    "%llu entries: %s", (unsigned long long)x->entries,
			    archive_error_string(x->a) ?
			    archive_error_string(x->a) : "?");
		if (++x->entries > AL_ARCHIVE_MAX_ENTRIES)
			return xt_fail(x, AL_ELIMIT, "more than %u entries",
			    AL_ARCHIVE_MAX_ENTRIES);
		rc = xt_entry(x, ae, artifact);
	}
	return rc;
}

/* Test hook (AIRLOCK_TEST_CHILD_FAULT, tests/e2e_review.sh): a child taken
 * over by its input. "syscall": a system call outside the allow-list (the
 * child dies of SIGSYS). "escape:DIR": it creates DIR/escaped by absolute
 * name, with openat2 and no resolve flags, which seccomp cannot tell from a
 * call beneath the root: only Landlock stops it. */
static void
xt_fault(struct xt *x, const char *spec)
{
	if (strcmp(spec, "syscall") == 0) {
		(void)!open("/etc/passwd", O_RDONLY);
	} else if (strncmp(spec, "escape:", 7) == 0) {
		char p[AL_MAX_PATH + 1];
		struct open_how how;
		int fd;

		memset(&how, 0, sizeof(how));
		how.flags = O_WRONLY | O_CREAT | O_EXCL;
		how.mode = 0600;
		(void)snprintf(p, sizeof(p), "%s/escaped", spec + 7);
		fd = (int)syscall(SYS_openat2, x->root, p, &how, sizeof(how));
		if (fd >= 0)
			(void)close(fd);
	}
}

void
extract_child_main(const struct extract_child_args *args)
{
	static struct xt x; /* its buffer is large; one per process */
	struct sbx_limits lim;
	struct stat st;
	void *data = NULL;
	int keep[2] = {args->root_fd, args->report_fd}, landlocked, rc;

	x.root = args->root_fd;
	x.report = args->report_fd;
	x.umask = (mode_t)args->umask & 0777;
	dynbuf_init(&x.rep, (size_t)1 << 20);
	/* Everything that needs a file comes first: iconv's modules and the
	 * locale (scan_archive_warm), a fixed zone (entry times would read
	 * /etc/localtime), the archive mapped whole (libarchive seeks in a
	 * zip; memory needs no system call). */
	if (scan_archive_warm() < 0 || fstat(args->archive_fd, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		_exit(PROTO_EXIT_PREPARE);
	(void)setenv("TZ", "UTC0", 1);
	tzset();
	x.size = (size_t)st.st_size;
	if (x.size > 0 && (data = mmap(NULL, x.size, PROT_READ, MAP_PRIVATE,
	    args->archive_fd, 0)) == MAP_FAILED)
		_exit(PROTO_EXIT_PREPARE);
	if ((x.a = archive_read_new()) == NULL)
		_exit(PROTO_EXIT_PREPARE);
	al_archive_formats(x.a);
	sbx_default_limits(&lim);
	lim.address_space += x.size;
	lim.cpu_seconds = AL_PULL_CPU_SECONDS;
	lim.file_size = AL_ARCHIVE_MAX_BYTES;
	if (sbx_enter_extract(keep, 2, &lim, x.root, &landlocked) < 0)
		_exit(PROTO_EXIT_SANDBOX);
	(void)landlocked; /* the parent asks the kernel itself */
	if (args->fault != NULL && args->fault[0] != '\0')
		xt_fault(&x, args->fault);
	rc = x.size > 0 ? xt_run(&x, data, args->name) : xt_fail(&x, AL_EINVAL,
	    "an empty file is not an archive");
	if (extract_proto_end(&x.rep, rc, rc < 0 ? x.msg : "") < 0 ||
	    xt_flush(&x) < 0)
		_exit(PROTO_EXIT_REPLY);
	_exit(PROTO_EXIT_OK);
}
