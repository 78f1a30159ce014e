/*
 * scan_walk.h - lists what `airlock scan PATH...` will read.
 *
 * Trust: the tree is hostile (names, links, special files, depth). Symbolic
 * links are reported and never followed; special files are reported and
 * never opened; `.git/objects` is skipped (its content is compressed object
 * storage, read through git in the bundle scanner), the rest of `.git`
 * (hooks, config) is scanned.
 */
#ifndef AIRLOCK_SCAN_WALK_H
#define AIRLOCK_SCAN_WALK_H

#include <stddef.h>

enum walk_kind {
	WALK_FILE,   /* a regular file to scan */
	WALK_NOTE,   /* a built-in finding: rule_id and message */
};

struct walk_entry {
	enum walk_kind kind;
	char *path;         /* display path: the root as given, then the rest */
	char *relpath;      /* path below the root, for globs */
	const char *rule_id;
	char *message;
	int top;            /* the root itself, a file: a whole artifact */
};

struct walk_list {
	struct walk_entry *v;
	size_t n;
	size_t cap;
};

/* Appends root's entries, in sorted order. Fails only for a root that does
 * not exist or out of memory; problems below the root become notes. */
int scan_walk(struct walk_list *out, const char *root);
void walk_list_free(struct walk_list *l);

/* How a path component names git's own directory: 0 not at all, 1 exactly
 * ".git", 2 another spelling that some file system or git itself takes for
 * it (".GIT", ".git." or ".git " on NTFS, "git~1", ".git" with characters
 * HFS+ ignores, U+200C and the like). */
int scan_git_component(const char *seg, size_t len);

/* What makes a name unsafe to write where it says (absolute, '..', control
 * characters, a .git component: exact ones too when git_exact is set), or
 * NULL. Names are '/'-separated; '\\' counts as a separator as Windows reads
 * it. */
const char *scan_name_problem(const char *name, int git_exact);

/* 1 if a link at relpath with this target leaves the tree (lexically). */
int scan_link_escapes(const char *relpath, const char *target);

#endif
