/*
 * allowlist.h - the gate's own allow-list: findings accepted once, by a
 * person, for exactly one rule, one path pattern and one file content.
 *
 * An entry names all three of (rule, path glob, SHA-256 of the whole file),
 * never a path alone: if the file changes by one byte, its findings come
 * back. The list is read from the gate's configuration (a file the operator
 * names), never from the artifact being scanned: an artifact that could
 * carry its own allow-list could switch the gate off.
 */
#ifndef AIRLOCK_ALLOWLIST_H
#define AIRLOCK_ALLOWLIST_H

#include <stddef.h>

#include "dynbuf.h"
#include "scan.h"

struct allow_entry {
	char *rule;
	char *path;       /* glob, as in rules */
	char *sha256;     /* 64 lower-case hex digits */
	char *reason;
	int line;
};

struct allowlist {
	struct allow_entry *v;
	size_t n;
};

/* Loads FILE; problems are appended to diags with file and line. */
int allowlist_load(struct allowlist **out, const char *file,
    struct dynbuf *diags);
void allowlist_free(struct allowlist *al);

/*
 * Removes from l[first..] the findings an entry allows for a file at
 * relpath whose content has this digest ("" matches nothing). Returns how
 * many were removed.
 */
size_t allowlist_apply(const struct allowlist *al, struct finding_list *l,
    size_t first, const char *relpath, const char *digest);

#endif
