/*
 * scan_archive.c - archives, member by member; see scan_archive.h.
 *
 * Limits (al_limits.h): entries, expanded bytes, expansion ratio, path
 * length. Past any of them the archive is unscannable and reading stops.
 * Archives inside archives are opened in turn, held in memory (no
 * temporary file; at most AL_ARCHIVE_NESTED_MAX_BYTES), up to
 * AL_ARCHIVE_MAX_DEPTH; all levels count against the same limits, measured
 * against the outermost file's size.
 *
 * Every archive, the file's and each nested one, is read twice: once by
 * scan_container.c, over its raw bytes, for the structure its extractors
 * read (an ambiguous one is unscannable), and once by libarchive, with
 * seeks, so that a zip is read by its central directory as unzip reads it.
 */
#include <archive.h>
#include <archive_entry.h>
#include <iconv.h>
#include <langinfo.h>
#include <locale.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "al_limits.h"
#include "arc_formats.h"
#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "scan_archive.h"
#include "scan_container.h"
#include "scan_type.h"
#include "scan_walk.h"
#include "util.h"

/*
 * libarchive converts entry names between character sets with iconv (pax
 * and zip names are UTF-8, 7z's UTF-16, old zips' CP437), and glibc's iconv
 * opens its module cache and modules on first use: in the sandbox that open
 * would kill the child. So every conversion the readers may ask for is
 * opened now, and kept open, so that its module stays loaded.
 */
int
scan_archive_warm(void)
{
	static const char *const from[] = {"UTF-8", "UTF-16LE", "UTF-16BE",
	    "CP437", "CP1252", "ISO-8859-1"};
	static iconv_t kept[2 * sizeof(from) / sizeof(from[0])];
	const char *cur;
	size_t i, k = 0;

	/* Names are converted to the locale's character set: in the C
	 * locale (ASCII) a UTF-8 name cannot be held and libarchive drops
	 * it. C.UTF-8 is built into glibc. */
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		return al_err_set(AL_EIO, "no C.UTF-8 locale");
	cur = nl_langinfo(CODESET);

	for (i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		if ((kept[k] = iconv_open(cur, from[i])) != (iconv_t)-1)
			k++;
		if ((kept[k] = iconv_open(from[i], cur)) != (iconv_t)-1)
			k++;
	}
	return k > 0 ? 0 : al_err_set(AL_EIO, "iconv does not start");
}

int
scan_is_archive_magic(const unsigned char *h, size_t n)
{
	if (n < 4)
		return 0;
	return (h[0] == 0x1f && h[1] == 0x8b) ||              /* gzip */
	    memcmp(h, "BZh", 3) == 0 ||                        /* bzip2 */
	    (n >= 6 && memcmp(h, "\xfd" "7zXZ\0", 6) == 0) ||  /* xz */
	    memcmp(h, "\x28\xb5\x2f\xfd", 4) == 0 ||           /* zstd */
	    memcmp(h, "\x04\x22\x4d\x18", 4) == 0 ||           /* lz4 */
	    memcmp(h, "PK\x03\x04", 4) == 0 ||                 /* zip */
	    memcmp(h, "PK\x05\x06", 4) == 0 ||                 /* empty zip */
	    (n >= 6 && memcmp(h, "7z\xbc\xaf\x27\x1c", 6) == 0) || /* 7z */
	    (n >= 6 && (memcmp(h, "070707", 6) == 0 ||
	    memcmp(h, "070701", 6) == 0 || memcmp(h, "070702", 6) == 0)) ||
	    memcmp(h, "\xc7\x71", 2) == 0 ||                   /* binary cpio */
	    (n >= 262 && memcmp(h + 257, "ustar", 5) == 0);    /* tar */
}

/* What all the archives of one artifact share: nested ones count against
 * the outermost file's size and the same limits. */
struct arc_budget {
	uint64_t size;            /* the artifact's file */
	uint64_t compressed;      /* bytes read from it (the furthest offset) */
	uint64_t expanded;        /* bytes members gave, at every depth */
	uint64_t entries;
	uint64_t declared;        /* sizes headers claim, at every depth */
};

/* Where an archive's bytes come from: the file, or memory (a blob, or a
 * member of the archive around it). */
struct arc_in {
	int fd;
	const char *mem;          /* NULL: read fd */
	uint64_t size, pos;
	int outermost;            /* its reads count as the artifact's */
	struct arc_budget *budget;
	char buf[65536];
};

struct member {
	struct archive *a;
	struct arc_budget *budget;
	const char *prefix;       /* bytes read ahead to sniff the member */
	size_t prefix_len, prefix_pos;
	int over;                 /* a size or ratio limit was reached */
	int broken;               /* libarchive failed */
};

static int
budget_over(const struct arc_budget *b)
{
	return b->expanded > AL_ARCHIVE_MAX_BYTES ||
	    (b->expanded > AL_ARCHIVE_RATIO_FLOOR &&
	    b->expanded / (b->compressed ? b->compressed : 1) >
	    AL_ARCHIVE_MAX_RATIO);
}

/* A member's bytes straight from libarchive, counted against the limits. */
static ssize_t
member_data(struct member *m, char *dst, size_t n)
{
	la_ssize_t r = archive_read_data(m->a, dst, n);

	if (r < 0) {
		m->broken = 1;
		errno = EIO;
		return -1;
	}
	m->budget->expanded += (uint64_t)r;
	if (budget_over(m->budget)) {
		m->over = 1;
		errno = EFBIG;
		return -1;
	}
	return r;
}

/* scan_read_fn: the sniffed prefix, then the rest. */
static ssize_t
member_read(void *ctx, char *dst, size_t n)
{
	struct member *m = ctx;

	if (m->prefix_pos < m->prefix_len) {
		size_t k = m->prefix_len - m->prefix_pos;

		if (k > n)
			k = n;
		memcpy(dst, m->prefix + m->prefix_pos, k);
		m->prefix_pos += k;
		return (ssize_t)k;
	}
	return member_data(m, dst, n);
}

static la_ssize_t
arc_read(struct archive *a, void *ud, const void **buf)
{
	struct arc_in *in = ud;
	size_t want = in->size - in->pos < sizeof(in->buf) ?
	    (size_t)(in->size - in->pos) : sizeof(in->buf);
	ssize_t n;

	if (in->mem != NULL) {
		*buf = in->mem + in->pos;
		n = (ssize_t)want;
	} else {
		do
			n = pread(in->fd, in->buf, want, (off_t)in->pos);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			archive_set_error(a, errno, "read error");
			return -1;
		}
		*buf = in->buf;
	}
	in->pos += (uint64_t)n;
	if (in->outermost && in->pos > in->budget->compressed)
		in->budget->compressed = in->pos;
	return n;
}

/* Seeks make libarchive read a zip by its central directory, as unzip and
 * zipfile do, not by its local headers. */
static la_int64_t
arc_seek(struct archive *a, void *ud, la_int64_t off, int whence)
{
	struct arc_in *in = ud;
	la_int64_t to = whence == SEEK_SET ? off : whence == SEEK_CUR ?
	    (la_int64_t)in->pos + off : (la_int64_t)in->size + off;

	if (to < 0 || (uint64_t)to > in->size) {
		archive_set_error(a, EINVAL, "seek out of the archive");
		return ARCHIVE_FATAL;
	}
	in->pos = (uint64_t)to;
	return to;
}

/* The raw bytes, for the structure checks: as much may be decompressed
 * as the limits let the members expand to. */
static struct ctr_src
arc_src(const struct arc_in *in)
{
	uint64_t size = in->budget->size, max;
	struct ctr_src src = {in->fd, (const unsigned char *)in->mem, in->size, 0};

	max = size > AL_ARCHIVE_MAX_BYTES / AL_ARCHIVE_MAX_RATIO ?
	    AL_ARCHIVE_MAX_BYTES : size * AL_ARCHIVE_MAX_RATIO;
	src.max_out = max < AL_ARCHIVE_RATIO_FLOOR ? AL_ARCHIVE_RATIO_FLOOR : max;
	return src;
}

/* The raw structure (scan_container.c): an archive its extractors would
 * read otherwise than libarchive is unscannable. */
static int
arc_structure(const struct arc_in *in, const char *path,
    struct finding_list *out)
{
	struct ctr_src src = arc_src(in);
	char why[512];
	int r;

	if ((r = ctr_check(&src, why, sizeof(why))) <= 0)
		return r;
	return finding_add_builtin(out, AL_RULE_UNSCANNABLE, path, why);
}

/*
 * A gzip'd tar is inflated once (scan_container.c's ctr_gz): libarchive
 * reads the inflated tar from here while the structure checks see the
 * same bytes go by, rather than each inflating the whole stream.
 */
struct gz_feed {
	struct ctr_gz *g;
	struct arc_in *in;
};

static la_ssize_t
gz_read(struct archive *a, void *ud, const void **buf)
{
	struct gz_feed *f = ud;
	const unsigned char *p;
	size_t n;

	if (ctr_gz_next(f->g, &p, &n) < 0) {
		archive_set_error(a, ENOMEM, "out of memory");
		return -1;
	}
	if (f->in->outermost && ctr_gz_raw(f->g) > f->in->budget->compressed)
		f->in->budget->compressed = ctr_gz_raw(f->g);
	*buf = p;
	return (la_ssize_t)n;
}

/* 1 when in is a gzip'd tar, opened for reading through f. */
static int
gz_tar_open(struct arc_in *in, struct gz_feed *f)
{
	unsigned char h[2] = {0, 0};
	struct ctr_src src = arc_src(in);
	int is_tar = 0, rc;

	f->g = NULL;
	f->in = in;
	if (in->size < 2)
		return 0;
	if (in->mem != NULL)
		memcpy(h, in->mem, 2);
	else if (pread(in->fd, h, 2, 0) != 2)
		return 0;
	if (h[0] != 0x1f || h[1] != 0x8b)
		return 0;
	if ((rc = ctr_gz_open(&f->g, &src, &is_tar)) < 0)
		return rc;
	if (!is_tar) {
		ctr_gz_free(f->g);
		f->g = NULL;
	}
	return is_tar;
}

/* Case-folded names seen so far, for duplicates and case collisions. */
struct nameset {
	char **v;
	size_t cap;               /* a power of two */
	size_t n;
};

static uint64_t
name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ al_lower((unsigned char)*s)) * 1099511628211ULL;
	return h;
}

/* Adds name; returns 1 if a case-insensitively equal name was there. */
static int
nameset_add(struct nameset *ns, const char *name, int *err)
{
	size_t i;

	if (ns->n * 2 >= ns->cap) {
		struct nameset bigger = {NULL, ns->cap ? ns->cap * 2 : 1024, 0};

		bigger.v = calloc(bigger.cap, sizeof(char *));
		if (bigger.v == NULL) {
			*err = 1;
			return 0;
		}
		for (i = 0; i < ns->cap; i++)
			if (ns->v[i] != NULL) {
				size_t j = name_hash(ns->v[i]) & (bigger.cap - 1);

				while (bigger.v[j] != NULL)
					j = (j + 1) & (bigger.cap - 1);
				bigger.v[j] = ns->v[i];
				bigger.n++;
			}
		free(ns->v);
		*ns = bigger;
	}
	for (i = name_hash(name) & (ns->cap - 1); ns->v[i] != NULL;
	    i = (i + 1) & (ns->cap - 1))
		if (strcasecmp(ns->v[i], name) == 0)
			return 1;
	if ((ns->v[i] = strdup(name)) == NULL) {
		*err = 1;
		return 0;
	}
	ns->n++;
	return 0;
}

static void
nameset_free(struct nameset *ns)
{
	size_t i;

	for (i = 0; i < ns->cap; i++)
		free(ns->v[i]);
	free(ns->v);
}

/* Findings about one entry's header; 1 if its content should be scanned. */
static int
check_entry(struct archive_entry *e, const char *name, const char *shown,
    struct nameset *seen, struct finding_list *out, int *rc)
{
	mode_t type = archive_entry_filetype(e), perm = archive_entry_perm(e);
	const char *problem = al_name_problem(name, 0), *target;
	int err = 0;

	if (problem != NULL)
		*rc = finding_add_builtinf(out, AL_RULE_ARCHIVE_PATH, shown, "%s", problem);
	if (*rc == 0 && type != AE_IFDIR && nameset_add(seen, name, &err))
		*rc = finding_add_builtinf(out, AL_RULE_ARCHIVE_DUPLICATE, shown, "this name (or "
		    "one differing only in case) is in the archive more than once");
	if (err)
		*rc = al_err_set(AL_ENOMEM, "out of memory");
	if (*rc == 0 && (perm & (S_ISUID | S_ISGID)))
		*rc = finding_add_builtinf(out, AL_RULE_ARCHIVE_MODE, shown, "mode %04o: %s",
		    (unsigned)perm, (perm & S_ISUID) ? "setuid" : "setgid");
	else if (*rc == 0 && (perm & S_IWOTH) && type != AE_IFLNK)
		*rc = finding_add_builtinf(out, AL_RULE_ARCHIVE_MODE, shown, "mode %04o: "
		    "world-writable", (unsigned)perm);
	if (*rc != 0)
		return 0;
	if ((target = archive_entry_hardlink_utf8(e)) != NULL ||
	    (target = archive_entry_hardlink(e)) != NULL) {
		*rc = finding_add_builtinf(out, AL_RULE_ARCHIVE_HARDLINK, shown, "hard link to %s",
		    target);
		return 0;
	}
	switch (type) {
	case AE_IFREG:
		return 1;
	case AE_IFDIR:
		return 0;
	case AE_IFLNK:
		if ((target = archive_entry_symlink_utf8(e)) == NULL)
			target = archive_entry_symlink(e);
		*rc = finding_add_builtinf(out, target != NULL &&
		    al_link_into_git(target) ? AL_RULE_SYMLINK_GIT :
		    target == NULL || al_link_escapes(name, target) ?
		    AL_RULE_SYMLINK_ESCAPE : AL_RULE_SYMLINK, shown,
		    "symbolic link to %s (not followed)", target ? target : "?");
		return 0;
	default:
		*rc = finding_add_builtinf(out, AL_RULE_SPECIAL, shown, "%s entry (not unpacked)",
		    type == AE_IFIFO ? "FIFO" : type == AE_IFSOCK ? "socket" :
		    "device");
		return 0;
	}
}

static int scan_archive(struct scan_worker *w, struct arc_in *in,
    const char *path, unsigned depth, struct finding_list *out,
    uint64_t *bytes);

/* Reads a member's first bytes; an archive in it is opened in turn (up to
 * AL_ARCHIVE_MAX_DEPTH), anything else is scanned as a file. */
static int
scan_member(struct scan_worker *w, struct member *m, const char *shown,
    const char *name, unsigned depth, struct finding_list *out,
    uint64_t *bytes)
{
	char head[4096];
	size_t got = 0;
	ssize_t r;
	int rc = 0;

	while (got < sizeof(head) &&
	    (r = member_data(m, head + got, sizeof(head) - got)) > 0)
		got += (size_t)r;
	m->prefix = head;
	m->prefix_len = got;
	m->prefix_pos = 0;
	/* Broken before a byte of it came: nothing to scan, and the caller
	 * says why (once). */
	if (m->broken && got == 0)
		return 0;
	if (m->over || m->broken || !scan_is_archive_magic((unsigned char *)head,
	    got))
		return scan_stream(w, member_read, m, shown, name, out, bytes);
	if (scan_name_promises_data(name) && (rc = finding_add_builtin(out,
	    AL_RULE_TYPE_MISMATCH, shown, "named like text or an image, but "
	    "the content is an archive")) < 0)
		return rc;
	if (depth >= AL_ARCHIVE_MAX_DEPTH)
		return finding_add_builtinf(out, AL_RULE_UNSCANNABLE, shown, "an archive nested "
		    "more than %u deep: not opened (a nested archive bomb?)",
		    AL_ARCHIVE_MAX_DEPTH);
	{
		struct arc_in *in;
		struct dynbuf whole;
		char *data;
		size_t len;

		/* Held whole: a zip is read from its end, and the structure
		 * checked at every level. */
		dynbuf_init(&whole, AL_ARCHIVE_NESTED_MAX_BYTES);
		while ((r = member_read(m, head, sizeof(head))) > 0)
			if ((rc = dynbuf_add(&whole, head, (size_t)r)) < 0) {
				dynbuf_free(&whole);
				if (rc == AL_ENOMEM)
					return rc;
				return finding_add_builtinf(out, AL_RULE_UNSCANNABLE,
				    shown, "an archive inside an archive larger than "
				    "%u MiB: not opened", AL_ARCHIVE_NESTED_MAX_BYTES >> 20);
			}
		if (m->over || m->broken) {
			dynbuf_free(&whole);
			return 0;     /* the caller says why */
		}
		len = whole.len;
		if ((data = dynbuf_take(&whole, &len)) == NULL &&
		    (data = strdup("")) == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		if ((in = calloc(1, sizeof(*in))) == NULL) {
			free(data);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
		in->fd = -1;
		in->mem = data;
		in->size = len;
		in->budget = m->budget;
		rc = scan_archive(w, in, shown, depth + 1, out, bytes);
		free(in);
		free(data);
	}
	return rc;
}

static int
scan_archive(struct scan_worker *w, struct arc_in *in, const char *path,
    unsigned depth, struct finding_list *out, uint64_t *bytes)
{
	struct archive *a = archive_read_new();
	struct nameset seen = {NULL, 0, 0};
	struct arc_budget *bud = in->budget;
	struct archive_entry *e;
	struct gz_feed gz = {NULL, in};
	int r = ARCHIVE_OK, compressed, opened;
	uint64_t entries = 0;
	char rawname[AL_MAX_PATH + 1];
	int rc = 0;

	if (a == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	al_archive_formats(a);
	if ((rc = gz_tar_open(in, &gz)) < 0)
		goto done;
	if (gz.g == NULL && (rc = arc_structure(in, path, out)) < 0)
		goto done;
	rc = 0;
	if (gz.g != NULL) {
		opened = archive_read_open(a, &gz, NULL, gz_read, NULL);
	} else {
		archive_read_set_seek_callback(a, arc_seek);
		opened = archive_read_open(a, in, NULL, arc_read, NULL);
	}
	if (opened != ARCHIVE_OK) {
		rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "not a readable archive: "
		    "%s", archive_error_string(a) ? archive_error_string(a) : "?");
		goto done;
	}
	while (rc == 0 && (r = archive_read_next_header(a, &e)) != ARCHIVE_EOF) {
		const char *name;
		struct dynbuf shown;
		struct member m = {a, bud, NULL, 0, 0, 0, 0};

		if (r < ARCHIVE_WARN) {
			rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "the archive is "
			    "corrupt or truncated after %llu entries: %s",
			    (unsigned long long)entries, archive_error_string(a) ?
			    archive_error_string(a) : "?");
			break;
		}
		entries++;
		if (++bud->entries > AL_ARCHIVE_MAX_ENTRIES) {
			rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "more than %u "
			    "entries; the rest were not read",
			    AL_ARCHIVE_MAX_ENTRIES);
			break;
		}
		/* UTF-8: the C locale the child runs in cannot hold every
		 * name, and a name that cannot be shown is no name. */
		if ((name = archive_entry_pathname_utf8(e)) == NULL)
			name = archive_entry_pathname(e);
		if (archive_format(a) == ARCHIVE_FORMAT_RAW) {
			/* gunzip's output: the file's own name less its suffix. */
			const char *base = strrchr(path, '/'), *dot;

			base = base ? base + 1 : path;
			dot = strrchr(base, '.');
			if (archive_filter_count(a) < 2) {
				rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "not an archive "
				    "or compressed file that libarchive knows");
				break;
			}
			if (snprintf(rawname, sizeof(rawname), "%.*s", dot && dot >
			    base ? (int)(dot - base) : (int)strlen(base), base) <= 0)
				snprintf(rawname, sizeof(rawname), "data");
			name = rawname;
		}
		if (name == NULL || name[0] == '\0' || strlen(name) > AL_MAX_PATH) {
			rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "an entry without "
			    "a usable name");
			break;
		}
		dynbuf_init(&shown, (AL_ARCHIVE_MAX_DEPTH + 2) * (AL_MAX_PATH + 2));
		if (dynbuf_addf(&shown, "%s" AL_MEMBER_SEP "%s", path, name) < 0) {
			dynbuf_free(&shown);
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
			bud->declared += (uint64_t)archive_entry_size(e);
		if (bud->declared > AL_ARCHIVE_MAX_BYTES) {
			rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "its entries "
			    "declare more than %llu bytes; reading stopped",
			    (unsigned long long)AL_ARCHIVE_MAX_BYTES);
			dynbuf_free(&shown);
			break;
		}
		if (archive_entry_is_encrypted(e)) {
			rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, dynbuf_str(&shown),
			    "encrypted entry: its content cannot be scanned");
		} else if (check_entry(e, name, dynbuf_str(&shown), &seen, out,
		    &rc) && rc == 0) {
			scan_worker_item_mode(w, (uint32_t)archive_entry_mode(e));
			rc = scan_member(w, &m, dynbuf_str(&shown), name, depth, out,
			    bytes);
			if (rc == 0 && m.over)
				rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "expands past "
				    "the limits (%llu bytes, %u times its size); "
				    "reading stopped", (unsigned long long)
				    AL_ARCHIVE_MAX_BYTES, AL_ARCHIVE_MAX_RATIO);
			else if (rc == 0 && m.broken)
				rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, dynbuf_str(&shown),
				    "the archive is corrupt or truncated inside this "
				    "entry: %s", archive_error_string(a) ?
				    archive_error_string(a) : "read error");
			if (rc == 0 && (m.over || m.broken)) {
				dynbuf_free(&shown);
				break;
			}
		}
		dynbuf_free(&shown);
	}
	/* Zeros read as tar's end-of-archive marker: tar unpacks nothing, but
	 * gunzip would write the whole stream, whatever follows the zeros. */
	compressed = gz.g != NULL || archive_filter_count(a) > 1;
	if (rc == 0 && r == ARCHIVE_EOF && entries == 0 && compressed &&
	    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR)
		rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "a compressed stream "
		    "that reads as an empty tar: what tar unpacks (nothing) is "
		    "not what decompressing it writes");
	/* What unpacking would write, against the artifact's own size: binary
	 * members are not read to their end here, their declared size counts. */
	if (rc == 0 && r == ARCHIVE_EOF && depth == 1 &&
	    bud->declared > AL_ARCHIVE_RATIO_FLOOR &&
	    bud->declared / (bud->compressed ? bud->compressed : 1) >
	    AL_ARCHIVE_MAX_RATIO)
		rc = finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "expands past the "
		    "limits: %llu bytes from %llu, more than %u times its size "
		    "(an archive bomb?)", (unsigned long long)bud->declared,
		    (unsigned long long)bud->compressed, AL_ARCHIVE_MAX_RATIO);
	/* The gzip'd tar's structure, once the rest of it is inflated. */
	if (rc >= 0 && gz.g != NULL) {
		char why[512];
		int v = ctr_gz_finish(gz.g, why, sizeof(why));

		rc = v < 0 ? v : v > 0 ? finding_add_builtin(out,
		    AL_RULE_UNSCANNABLE, path, why) : rc;
	}
done:
	archive_read_free(a);
	ctr_gz_free(gz.g);
	nameset_free(&seen);
	return rc < 0 ? rc : 0;
}

/* The outermost archive of a nest, at fd or in memory. */
static int
scan_archive_top(struct scan_worker *w, int fd, const char *data,
    uint64_t len, const char *path, struct finding_list *out, uint64_t *bytes)
{
	struct arc_budget bud = {len, 0, 0, 0, 0};
	struct arc_in *in = calloc(1, sizeof(*in));
	int rc;

	if (in == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	in->fd = fd;
	in->mem = data;
	in->size = len;
	in->outermost = 1;
	in->budget = &bud;
	rc = scan_archive(w, in, path, 1, out, bytes);
	free(in);
	return rc;
}

int
scan_archive_fd(struct scan_worker *w, int fd, const char *path,
    struct finding_list *out, uint64_t *bytes)
{
	/* (lseek, not fstat: the sandbox allows the one, not the other.) */
	off_t size = lseek(fd, 0, SEEK_END);

	if (size < 0)
		return finding_add_builtin(out, AL_RULE_UNSCANNABLE, path,
		    "an archive that cannot be read from its end, as unzip "
		    "reads it");
	return scan_archive_top(w, fd, NULL, (uint64_t)size, path, out, bytes);
}

int
scan_archive_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out, uint64_t *bytes)
{
	return scan_archive_top(w, -1, data, len, path, out, bytes);
}
