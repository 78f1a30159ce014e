/*
 * rule_glob.c - path globs for rules.
 *
 * Globs come from rule files (trusted); paths come from artifacts (hostile),
 * so matching never allocates and its recursion depth is bounded by the
 * glob's length, not the path's. Matching is ASCII case-insensitive: the
 * artifact may be unpacked on a case-insensitive file system, where
 * `.GitHub/Workflows/x.yml` runs as a workflow.
 */
#include <string.h>

#include "rule.h"
#include "util.h"

static int glob_here(const char *g, const char *p);

/* Matches one [...] class at g against byte c; *gend gets the byte after. */
static int
glob_class(const char *g, unsigned char c, const char **gend)
{
	const char *q = g + 1;
	int neg = 0, hit = 0;

	if (*q == '!' || *q == '^') {
		neg = 1;
		q++;
	}
	if (*q == ']') { /* a leading ] is literal */
		hit |= c == ']';
		q++;
	}
	while (*q && *q != ']') {
		unsigned char lo = (unsigned char)*q, hi;

		if (lo == '\\' && q[1])
			lo = (unsigned char)*++q;
		q++;
		hi = lo;
		if (q[0] == '-' && q[1] && q[1] != ']') {
			hi = (unsigned char)q[1];
			q += 2;
		}
		if ((c >= lo && c <= hi) ||
		    (al_lower(c) >= al_lower(lo) && al_lower(c) <= al_lower(hi)))
			hit = 1;
	}
	if (*q != ']') { /* unterminated: treat '[' as a literal */
		*gend = g + 1;
		return al_lower(c) == '[';
	}
	*gend = q + 1;
	return hit != neg;
}

static int
glob_star2(const char *g, const char *p)
{
	const char *q;

	if (*g == '/')
		g++;
	if (*g == '\0')
		return 1;
	for (q = p;;) {
		if (glob_here(g, q))
			return 1;
		q = strchr(q, '/');
		if (q == NULL)
			return 0;
		q++;
	}
}

static int
glob_here(const char *g, const char *p)
{
	while (*g) {
		if (g[0] == '*' && g[1] == '*')
			return glob_star2(g + 2, p);
		if (g[0] == '*') {
			const char *q;

			for (q = p;; q++) {
				if (glob_here(g + 1, q))
					return 1;
				if (*q == '\0' || *q == '/')
					return 0;
			}
		}
		if (*p == '\0')
			return 0;
		if (g[0] == '?') {
			if (*p == '/')
				return 0;
		} else if (g[0] == '[') {
			const char *gend;

			if (*p == '/' || !glob_class(g, (unsigned char)*p, &gend))
				return 0;
			g = gend;
			p++;
			continue;
		} else {
			if (g[0] == '\\' && g[1])
				g++;
			if (al_lower((unsigned char)*g) != al_lower((unsigned char)*p))
				return 0;
		}
		g++;
		p++;
	}
	return *p == '\0';
}

/* `*` and a literal (`*.py`, `*rc`): does name end with the literal? The
 * `*` matches any run of bytes without a `/`, and name has none. */
static int
star_suffix(const char *lit, const char *name)
{
	size_t ll = strlen(lit), nl = strlen(name), i;

	if (ll > nl)
		return 0;
	name += nl - ll;
	for (i = 0; i < ll; i++)
		if (al_lower((unsigned char)lit[i]) !=
		    al_lower((unsigned char)name[i]))
			return 0;
	return 1;
}

int
rule_glob_match(const char *glob, const char *path)
{
	const char *p;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (glob[0] == '/')
		return glob_here(glob + 1, path);
	if (strchr(glob, '/') == NULL) {
		p = strrchr(path, '/');
		/* The most common glob, `*.ext`, without the general walk
		 * (which tries the rest at every byte of the name). */
		if (glob[0] == '*' && glob[1] != '*' &&
		    strpbrk(glob + 1, "*?[\\") == NULL)
			return star_suffix(glob + 1, p ? p + 1 : path);
		return glob_here(glob, p ? p + 1 : path);
	}
	for (p = path;;) {
		if (glob_here(glob, p))
			return 1;
		p = strchr(p, '/');
		if (p == NULL)
			return 0;
		p++;
	}
}
