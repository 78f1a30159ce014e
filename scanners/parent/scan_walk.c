/*
 * scan_walk.c - directory walking for `airlock scan`; see scan_walk.h.
 *
 * Directories are opened relative to their parent's fd with O_NOFOLLOW, so
 * a directory swapped for a link during the walk is not entered; depth is
 * capped by AL_MAX_DIR_DEPTH and path length by AL_MAX_PATH.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "al_limits.h"
#include "scan_engine.h"
#include "scan_walk.h"
#include "util.h"

void
walk_list_free(struct walk_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].relpath);
		free(l->v[i].message);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int
walk_push(struct walk_list *l, enum walk_kind kind, const char *path,
    const char *relpath, const char *rule_id, const char *message)
{
	struct walk_entry *e;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 256;
		struct walk_entry *nv = realloc(l->v, ncap * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		l->v = nv;
		l->cap = ncap;
	}
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->rule_id = rule_id;
	e->path = strdup(path);
	e->relpath = strdup(relpath);
	e->message = message ? strdup(message) : NULL;
	if (!e->path || !e->relpath || (message && !e->message)) {
		free(e->path);
		free(e->relpath);
		free(e->message);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	l->n++;
	return 0;
}

static int
note_link(struct walk_list *l, int dirfd, const char *name, const char *path,
    const char *relpath)
{
	char target[AL_MAX_PATH];
	char msg[AL_MAX_PATH + 64];
	ssize_t n;

	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n < 0) {
		snprintf(msg, sizeof(msg), "symbolic link that cannot be read: %s",
		    strerror(errno));
		return walk_push(l, WALK_NOTE, path, relpath, AL_RULE_UNSCANNABLE,
		    msg);
	}
	target[n] = '\0';
	snprintf(msg, sizeof(msg), "symbolic link to %s (not followed)", target);
	return walk_push(l, WALK_NOTE, path, relpath,
	    al_link_into_git(target) ? AL_RULE_SYMLINK_GIT :
	    al_link_escapes(relpath, target) ? AL_RULE_SYMLINK_ESCAPE :
	    AL_RULE_SYMLINK, msg);
}

static const char *
special_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "FIFO (not opened)";
	if (S_ISSOCK(mode))
		return "socket (not opened)";
	return "device node (not opened)";
}

/* Names are stored with their d_type in the first byte. */
static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

/* Reads and sorts a directory's names; the caller frees them. */
static int
read_names(DIR *d, char ***out, size_t *nout)
{
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		size_t len;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **nv;

			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL) {
				rc = al_err_set(AL_ENOMEM, "out of memory");
				break;
			}
			v = nv;
		}
		len = strlen(de->d_name);
		if ((v[n] = malloc(len + 2)) == NULL) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		v[n][0] = (char)de->d_type;
		memcpy(v[n] + 1, de->d_name, len + 1);
		n++;
		errno = 0;
	}
	if (rc == 0 && errno != 0)
		rc = al_err_set(AL_EIO, "%s", strerror(errno));
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_name);
	*out = v;
	*nout = n;
	return rc;
}

static int walk_dir(struct walk_list *l, int fd, const char *path,
    const char *relpath, unsigned depth);

static int
walk_child(struct walk_list *l, int dirfd, const char *name,
    unsigned char type, const char *path, const char *relpath, int in_git,
    unsigned depth)
{
	char msg[256];
	struct stat st;
	int fd;

	/* The worker opens with O_NOFOLLOW and checks the type again, so the
	 * type readdir gave is enough to list a regular file. */
	if (type == DT_REG)
		return walk_push(l, WALK_FILE, path, relpath, NULL, NULL);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(msg, sizeof(msg), "cannot stat: %s", strerror(errno));
		return walk_push(l, WALK_NOTE, path, relpath, AL_RULE_UNSCANNABLE,
		    msg);
	}
	if (S_ISLNK(st.st_mode))
		return note_link(l, dirfd, name, path, relpath);
	if (S_ISREG(st.st_mode))
		return walk_push(l, WALK_FILE, path, relpath, NULL, NULL);
	if (!S_ISDIR(st.st_mode))
		return walk_push(l, WALK_NOTE, path, relpath, AL_RULE_SPECIAL,
		    special_kind(st.st_mode));
	/* Compressed object storage; the bundle and patch readers cover it. */
	if (in_git && strcmp(name, "objects") == 0)
		return 0;
	if (depth + 1 > AL_MAX_DIR_DEPTH) {
		snprintf(msg, sizeof(msg), "directory nested deeper than %u "
		    "levels; not entered", AL_MAX_DIR_DEPTH);
		return walk_push(l, WALK_NOTE, path, relpath, AL_RULE_UNSCANNABLE,
		    msg);
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "cannot open directory: %s",
		    strerror(errno));
		return walk_push(l, WALK_NOTE, path, relpath, AL_RULE_UNSCANNABLE,
		    msg);
	}
	return walk_dir(l, fd, path, relpath, depth + 1);
}

/* Walks the directory open at fd, which it closes. */
static int
walk_dir(struct walk_list *l, int fd, const char *path, const char *relpath,
    unsigned depth)
{
	size_t plen = strlen(path), n = 0, i;
	char **names = NULL;
	int rc, in_git;
	DIR *d = fdopendir(fd);

	/* Is this directory called .git (the root may be given as "x/.git/")? */
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	in_git = plen >= 4 && memcmp(path + plen - 4, ".git", 4) == 0 &&
	    (plen == 4 || path[plen - 5] == '/');
	if (d == NULL) {
		rc = al_err_set(AL_EIO, "%s", strerror(errno));
		close(fd);
	} else {
		rc = read_names(d, &names, &n);
	}
	if (rc == AL_EIO) {
		char msg[300];

		snprintf(msg, sizeof(msg), "cannot read directory: %s",
		    al_err_msg());
		rc = walk_push(l, WALK_NOTE, path, relpath, AL_RULE_UNSCANNABLE,
		    msg);
	}
	for (i = 0; i < n && rc == 0; i++) {
		struct dynbuf p, r;

		dynbuf_init(&p, AL_MAX_PATH);
		dynbuf_init(&r, AL_MAX_PATH);
		if (dynbuf_addf(&p, "%s%s%s", path,
		    path[0] && path[strlen(path) - 1] != '/' ? "/" : "",
		    names[i] + 1) < 0 ||
		    dynbuf_addf(&r, "%s%s%s", relpath, relpath[0] ? "/" : "",
		    names[i] + 1) < 0) {
			rc = walk_push(l, WALK_NOTE, path, relpath,
			    AL_RULE_UNSCANNABLE,
			    "a name inside is longer than the path limit");
		} else {
			rc = walk_child(l, dirfd(d), names[i] + 1,
			    (unsigned char)names[i][0], dynbuf_str(&p),
			    dynbuf_str(&r), in_git, depth);
		}
		dynbuf_free(&p);
		dynbuf_free(&r);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (d != NULL)
		closedir(d);
	return rc;
}

int
scan_walk(struct walk_list *out, const char *root)
{
	struct stat st;
	const char *rel = root;
	int fd;

	if (lstat(root, &st) < 0)
		return al_err_set(errno == ENOENT ? AL_ENOTFOUND : AL_EIO,
		    "%s: %s", root, strerror(errno));
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (rel[0] == '/')
		rel++;
	if (S_ISLNK(st.st_mode))
		return note_link(out, AT_FDCWD, root, root, "");
	if (S_ISREG(st.st_mode)) {
		if (walk_push(out, WALK_FILE, root, rel, NULL, NULL) < 0)
			return -1;
		out->v[out->n - 1].top = 1;
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return walk_push(out, WALK_NOTE, root, rel, AL_RULE_SPECIAL,
		    special_kind(st.st_mode));
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "cannot open directory: %s",
		    strerror(errno));
		return walk_push(out, WALK_NOTE, root, "", AL_RULE_UNSCANNABLE,
		    msg);
	}
	return walk_dir(out, fd, root, "", 0);
}
