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

#endif
