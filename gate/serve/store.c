/*
 * store.c - the content-addressed quarantine store; see store.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynbuf.h"
#include "err.h"
#include "store.h"
#include "util.h"

struct gate_store {
	char *dir;                /* the data directory */
	int objects;              /* fd of objects/ */
	int tmp;                  /* fd of tmp/ */
};

struct store_upload {
	struct gate_store *s;
	int fd;
	char name[64];            /* in tmp/ */
	uint64_t size, max;
	EVP_MD_CTX *md;
};

/* A failed system call's error: AL_EFULL when the disk or a quota is
 * full (so that the gate can say so: 507), else AL_EIO. */
static int
io_fail(int e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
io_fail(int e, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return al_err_set(e == ENOSPC || e == EDQUOT ? AL_EFULL : AL_EIO,
	    "%s: %s", msg, strerror(e));
}

static int
open_dir(const char *path, int create, int *fd_out)
{
	if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	*fd_out = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd_out < 0)
		return al_err_set(errno == ENOENT ? AL_ENOTFOUND : AL_EIO, "%s: %s",
		    path, strerror(errno));
	return 0;
}

/* Removes what uploads cut short left in tmp/. */
static void
clean_tmp(int tmp)
{
	int fd = dup(tmp);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "upload-", 7) == 0)
			(void)unlinkat(tmp, e->d_name, 0);
	closedir(d);
}

int
store_open(struct gate_store **out, const char *datadir, int create)
{
	struct gate_store *s = calloc(1, sizeof(*s));
	struct dynbuf p;
	int rc;

	*out = NULL;
	if (s == NULL || (s->dir = strdup(datadir)) == NULL) {
		free(s);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	s->objects = s->tmp = -1;
	dynbuf_init(&p, 8192);
	rc = dynbuf_addf(&p, "%s/objects", datadir) < 0 ? AL_ENOMEM :
	    open_dir(dynbuf_str(&p), create, &s->objects);
	dynbuf_reset(&p);
	if (rc == 0)
		rc = dynbuf_addf(&p, "%s/tmp", datadir) < 0 ? AL_ENOMEM :
		    open_dir(dynbuf_str(&p), create, &s->tmp);
	dynbuf_free(&p);
	if (rc < 0) {
		store_close(s);
		return rc == AL_ENOMEM ? al_err_set(rc, "out of memory") : rc;
	}
	clean_tmp(s->tmp);
	*out = s;
	return 0;
}

void
store_close(struct gate_store *s)
{
	if (s == NULL)
		return;
	if (s->objects >= 0)
		close(s->objects);
	if (s->tmp >= 0)
		close(s->tmp);
	free(s->dir);
	free(s);
}

int
store_upload_begin(struct gate_store *s, uint64_t max,
    struct store_upload **out)
{
	struct store_upload *u = calloc(1, sizeof(*u));
	unsigned char rnd[12];

	*out = NULL;
	if (u == NULL || (u->md = EVP_MD_CTX_new()) == NULL) {
		free(u);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	if (EVP_DigestInit_ex(u->md, al_sha256_md(), NULL) != 1) {
		EVP_MD_CTX_free(u->md);
		free(u);
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	}
	u->s = s;
	u->max = max;
	/* A random name: no guessing, no clash between concurrent uploads. */
	if (getentropy(rnd, sizeof(rnd)) < 0)
		abort();
	memcpy(u->name, "upload-", 7);
	al_hex(u->name + 7, rnd, sizeof(rnd));
	u->fd = openat(s->tmp, u->name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0400);
	if (u->fd < 0) {
		int e = errno;

		EVP_MD_CTX_free(u->md);
		free(u);
		return io_fail(e, "cannot create an upload file");
	}
	*out = u;
	return 0;
}

int
store_upload_write(struct store_upload *u, const void *p, size_t n)
{
	const char *b = p;

	if (n > u->max - u->size)
		return al_err_set(AL_ELIMIT, "more than %llu bytes",
		    (unsigned long long)u->max);
	if (EVP_DigestUpdate(u->md, p, n) != 1)
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	u->size += n;
	while (n > 0) {
		ssize_t k = write(u->fd, b, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return io_fail(errno, "writing the upload");
		if (k == 0)
			return al_err_set(AL_EIO, "writing the upload: no "
			    "progress");
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

void
store_upload_abort(struct store_upload *u)
{
	if (u == NULL)
		return;
	close(u->fd);
	(void)unlinkat(u->s->tmp, u->name, 0);
	EVP_MD_CTX_free(u->md);
	free(u);
}

/* 1 if objects/rel holds bytes that hash to sha256; else says so in the
 * log (the upload in hand replaces it) and 0. */
static int
intact(struct gate_store *s, const char *rel, const char *sha256)
{
	char got[65];
	int fd = openat(s->objects, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC),
	    rc = fd < 0 ? al_err_set(AL_EIO, "%s", strerror(errno)) :
	    store_blob_check(fd, sha256, got);

	if (fd >= 0)
		close(fd);
	if (rc == 0)
		return 1;
	fprintf(stderr, "airlock serve: integrity: objects/%s: %s; replaced by "
	    "an upload of its bytes\n", rel, al_err_msg());
	return 0;
}

int
store_upload_commit(struct store_upload *u, char sha256_out[65],
    uint64_t *size_out)
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	char sub[3], rel[3 + 65];
	int sd = -1, rc = 0, made = 0;

	if (EVP_DigestFinal_ex(u->md, md, &mdlen) != 1 || mdlen != 32) {
		store_upload_abort(u);
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	}
	al_hex(sha256_out, md, sizeof(md));
	*size_out = u->size;
	if (fsync(u->fd) < 0) {
		rc = io_fail(errno, "fsync of the upload");
		goto out;
	}
	memcpy(sub, sha256_out, 2);
	sub[2] = '\0';
	if (mkdirat(u->s->objects, sub, 0700) == 0)
		made = 1;
	else if (errno != EEXIST) {
		rc = io_fail(errno, "mkdir objects/%s", sub);
		goto out;
	}
	snprintf(rel, sizeof(rel), "%s/%s", sub, sha256_out);
	/* Identical bytes are there already: keep those, drop these, and
	 * renew their mtime, which tells the sweep they are wanted again;
	 * unless those were damaged, when these, which hash to the name,
	 * replace them (rename is atomic: a reader has the old or the new
	 * file). */
	if (faccessat(u->s->objects, rel, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	    intact(u->s, rel, sha256_out)) {
		if (utimensat(u->s->objects, rel, NULL, AT_SYMLINK_NOFOLLOW) < 0)
			rc = io_fail(errno, "renewing an object's mtime");
		goto out;
	}
	if (renameat(u->s->tmp, u->name, u->s->objects, rel) < 0) {
		rc = io_fail(errno, "storing the upload");
		goto out;
	}
	u->name[0] = '\0';
	/* The new name must survive a crash too: fsync the directories. */
	if ((sd = openat(u->s->objects, sub, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || fsync(sd) < 0 || (made &&
	    fsync(u->s->objects) < 0))
		rc = io_fail(errno, "fsync objects/%s", sub);
out:
	if (sd >= 0)
		close(sd);
	close(u->fd);
	if (u->name[0] != '\0')
		(void)unlinkat(u->s->tmp, u->name, 0);
	EVP_MD_CTX_free(u->md);
	free(u);
	return rc;
}

int
store_put(struct gate_store *s, const void *p, size_t n, const char *want)
{
	struct store_upload *u;
	char got[65];
	uint64_t size = 0;
	int rc;

	if ((rc = store_upload_begin(s, n, &u)) < 0)
		return rc;
	if (n > 0 && (rc = store_upload_write(u, p, n)) < 0) {
		store_upload_abort(u);
		return rc;
	}
	/* Checked before the rename would be best; the hash is only known
	 * at commit, and a blob under its own hash misleads nobody. */
	if ((rc = store_upload_commit(u, got, &size)) < 0)
		return rc;
	if (strcmp(got, want) != 0 || size != n)
		return al_err_set(AL_EINVAL, "stored bytes hash to %.12s, not "
		    "%.12s", got, want);
	return 0;
}

/* Sweeps the objects of one objects/XX directory; see store_sweep. */
static int
sweep_dir(struct gate_store *s, const char *sub, int64_t cutoff, size_t max,
    int (*keep)(const char *, void *), void *arg, size_t *n)
{
	int fd = openat(s->objects, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC), rc = 0, k, removed = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;         /* not a directory of ours */
	}
	while (rc == 0 && *n < max && (e = readdir(d)) != NULL) {
		if (strlen(e->d_name) != 64 || strncmp(e->d_name, sub, 2) != 0 ||
		    !al_is_hex(e->d_name, 64) ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || (int64_t)st.st_mtim.tv_sec >= cutoff)
			continue;
		if ((k = keep(e->d_name, arg)) < 0)
			rc = k;
		else if (k == 0 && unlinkat(fd, e->d_name, 0) == 0) {
			(*n)++;
			removed = 1;
		}
	}
	if (removed)
		(void)fsync(fd);
	closedir(d);
	return rc;
}

int
store_sweep(struct gate_store *s, int64_t cutoff, size_t max,
    int (*keep)(const char *sha256, void *arg), void *arg, size_t *n_out)
{
	/* Its own open file, so that its reading position is its own. */
	int fd = openat(s->objects, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC),
	    rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	*n_out = 0;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return al_err_set(AL_EIO, "objects/: %s", strerror(errno));
	}
	while (rc == 0 && *n_out < max && (e = readdir(d)) != NULL)
		if (strlen(e->d_name) == 2 && al_is_hex(e->d_name, 2))
			rc = sweep_dir(s, e->d_name, cutoff, max, keep, arg,
			    n_out);
	closedir(d);
	return rc;
}

int
store_blob_open(struct gate_store *s, const char *sha256, int *fd_out)
{
	char rel[3 + 65];
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((sha256[i] >= '0' && sha256[i] <= '9') ||
		    (sha256[i] >= 'a' && sha256[i] <= 'f')))
			return al_err_set(AL_EINVAL, "not a sha256");
	if (sha256[64] != '\0')
		return al_err_set(AL_EINVAL, "not a sha256");
	snprintf(rel, sizeof(rel), "%.2s/%s", sha256, sha256);
	*fd_out = openat(s->objects, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd_out < 0)
		return al_err_set(errno == ENOENT ? AL_ENOTFOUND : AL_EIO,
		    "blob %.12s: %s", sha256, strerror(errno));
	return 0;
}

int
store_blob_check(int fd, const char *want, char got[65])
{
	unsigned char buf[65536], md[32];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint64_t off = 0;
	ssize_t n;

	got[0] = '\0';
	if (ctx == NULL || EVP_DigestInit_ex(ctx, al_sha256_md(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	}
	for (;;) {
		n = pread(fd, buf, sizeof(buf), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		AL_ASSERT(EVP_DigestUpdate(ctx, buf, (size_t)n) == 1);
		off += (uint64_t)n;
	}
	if (n < 0) {
		int e = errno;

		EVP_MD_CTX_free(ctx);
		return al_err_set(AL_EIO, "reading the stored bytes: %s",
		    strerror(e));
	}
	AL_ASSERT(EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32);
	EVP_MD_CTX_free(ctx);
	al_hex(got, md, sizeof(md));
	if (strcmp(got, want) != 0)
		return al_err_set(AL_EINVAL, "the stored bytes (%llu of them) "
		    "hash to %.16s…, not to their sha256 %.16s…",
		    (unsigned long long)off, got, want);
	return 0;
}
