/*
 * path.h - names as a consumer will write them: the separator between an
 * artifact and its members in what the gate reports, and the checks that
 * tell whether a name, written where it says, leaves the target or lands in
 * git's own directory. The scan child reports such names as findings; the
 * client refuses to unpack them.
 *
 * Trust: names are hostile (from archives, patches, bundles); the checks
 * are lexical, allocation-free walks over NUL-terminated strings.
 */
#ifndef AIRLOCK_PATH_H
#define AIRLOCK_PATH_H

#include <stddef.h>

/* Between an artifact and a member inside it, at every level of nesting:
 * "out.tar!/src/a.py", "series.mbox!/0002!/setup.py". */
#define AL_MEMBER_SEP "!/"

/* 1 if path is artifact itself or a member inside it (artifact!/...). */
int al_member_path_of(const char *path, const char *artifact);

/* How a path component names git's own directory: 0 not at all, 1 exactly
 * ".git", 2 another spelling that some file system or git itself takes for
 * it (".GIT", ".git." or ".git " on NTFS, "git~1", ".git" with characters
 * HFS+ ignores, U+200C and the like). */
int al_git_component(const char *seg, size_t len);

/* What makes a name unsafe to write where it says (absolute, '..', control
 * characters, a .git component: exact ones too when git_exact is set), or
 * NULL. Names are '/'-separated; '\\' counts as a separator as Windows reads
 * it. */
const char *al_name_problem(const char *name, int git_exact);

/* 1 if a link at relpath with this target leaves the tree (lexically). */
int al_link_escapes(const char *relpath, const char *target);

/* 1 if a symbolic link's target names .git in a component, in any
 * spelling al_git_component knows ("./.git/hooks", "sub/../.GIT", a
 * backslash as a separator). */
int al_link_into_git(const char *target);

#endif
