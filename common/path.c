/*
 * path.c - what a name in an artifact will mean on disk; see path.h.
 */
#include <stdint.h>
#include <string.h>

#include "path.h"
#include "util.h"

int
al_member_path_of(const char *path, const char *artifact)
{
	size_t n = strlen(artifact);

	return strncmp(path, artifact, n) == 0 && (path[n] == '\0' ||
	    strncmp(path + n, AL_MEMBER_SEP, 2) == 0);
}

/* U+200C..U+200F, U+202A..U+202E, U+206A..U+206F, U+FEFF: HFS+ drops
 * them when it compares names, so git treats ".g\u200cit" as ".git". */
static int
hfs_ignorable(uint32_t cp)
{
	return (cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a &&
	    cp <= 0x202e) || (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff;
}

int
al_git_component(const char *seg, size_t len)
{
	char folded[8];
	size_t i = 0, n = 0;
	int plain = 1;

	while (i < len) {
		uint32_t cp;
		size_t l = al_utf8_seq((const unsigned char *)seg + i, len - i,
		    &cp);

		if (l == 0)
			l = 1, cp = 0xfffd;
		i += l;
		if (hfs_ignorable(cp)) {
			plain = 0;
			continue;
		}
		if (cp >= 0x80 || n == sizeof(folded))
			return 0;
		if (al_lower((unsigned char)cp) != (unsigned char)cp)
			plain = 0;
		folded[n++] = (char)al_lower((unsigned char)cp);
	}
	/* NTFS ignores trailing dots and spaces. */
	while (n > 0 && (folded[n - 1] == '.' || folded[n - 1] == ' ')) {
		n--;
		plain = 0;
	}
	if (n == 5 && memcmp(folded, "git~1", 5) == 0)
		return 2;
	if (n != 4 || memcmp(folded, ".git", 4) != 0)
		return 0;
	return plain ? 1 : 2;
}

const char *
al_name_problem(const char *name, int git_exact)
{
	const char *p, *seg;

	if (name[0] == '/' || name[0] == '\\' ||
	    (name[0] != '\0' && name[1] == ':'))
		return "absolute name: it writes outside the target";
	for (p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "control character in the name";
	for (seg = name; *seg;) {
		size_t len = strcspn(seg, "/\\");
		int g;

		if (len == 2 && seg[0] == '.' && seg[1] == '.')
			return "'..' in the name: it writes outside the target "
			    "(zip-slip)";
		g = al_git_component(seg, len);
		if (g == 2)
			return "another spelling of .git: on a case-insensitive or "
			    "Windows/macOS file system it is the repository's own "
			    ".git";
		if (g == 1 && git_exact)
			return "inside .git: it writes the repository's own hooks "
			    "or configuration";
		seg += len;
		if (*seg)
			seg++;
	}
	return NULL;
}

/*
 * Walks the '/'-separated components of [p, p + n) from *depth levels
 * down: "" and "." stay, ".." climbs one, a name goes one down. -1 as soon
 * as it climbs above the top.
 */
static int
climb(const char *p, size_t n, long *depth)
{
	const char *end = p + n;

	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t len = slash ? (size_t)(slash - p) : (size_t)(end - p);

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (--*depth < 0)
				return -1;
		} else if (!(len == 0 || (len == 1 && p[0] == '.'))) {
			++*depth;
		}
		p += len + (slash != NULL);
	}
	return 0;
}

int
al_link_escapes(const char *relpath, const char *target)
{
	const char *base = strrchr(relpath, '/');
	long depth = 0;

	if (target[0] == '/' || target[0] == '\0')
		return 1;
	/* The link's directory, read as a path is: "./a//b/link" is in a/b
	 * (two levels), not four; "a/../link" is at the top. */
	if (base != NULL && climb(relpath, (size_t)(base - relpath), &depth) < 0)
		return 1;
	return climb(target, strlen(target), &depth) < 0;
}

int
al_link_into_git(const char *target)
{
	const char *seg = target;

	while (*seg) {
		size_t len = strcspn(seg, "/\\");

		if (al_git_component(seg, len) != 0)
			return 1;
		seg += len;
		if (*seg)
			seg++;
	}
	return 0;
}
