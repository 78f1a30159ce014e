/*
 * scan_patch.c - patches; see scan_patch.h.
 *
 * A file's added lines are scanned as one text: each hunk's post-image with
 * its context lines left empty, so that line numbers inside a hunk count as
 * in the result, and a table maps them back to the post-image numbers the
 * hunk header gives. Limits (al_limits.h): size of the patch, files in it,
 * bytes a binary hunk inflates to, symbolic links followed through each
 * other. Mailboxes are read in scan_mbox.c, which hands each message's
 * diff to scan_patch_diff.
 *
 * What a diff does not carry is said, not guessed: a rename, copy or mode
 * change brings base-tree content, judged by where it lands (scan_runnable);
 * symbolic links are reported at the end of the diff, each followed through
 * the others.
 */
#include <git2.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "scan_artifact.h"
#include "scan_decode.h"
#include "scan_engine_int.h"
#include "scan_patch.h"
#include "scan_walk.h"
#include "text.h"
#include "util.h"

/* Commit messages and authors are prose for a human: scanned under this
 * name so that the rules for documents apply to them. */
#define MSG_RELPATH "COMMIT_MSG.txt"

int
scan_git_init(void)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;

	/* Bundles hash objects with SHA-1: fetch it from libcrypto now,
	 * while the providers may still be loaded from disk. */
	if (EVP_Digest("", 0, md, &mdlen, EVP_sha1(), NULL) != 1)
		return al_err_set(AL_EENGINE, "libcrypto has no SHA-1");
	if (git_libgit2_init() < 0)
		return al_err_set(AL_EENGINE, "libgit2 does not start: %s",
		    git_error_last() ? git_error_last()->message : "?");
	return 0;
}

/* ---- lines ------------------------------------------------------------- */

/* A diff starts at p: "diff --git", or "--- " followed by "+++ ". */
static int
diff_starts(const char *p, const char *end)
{
	const char *next, *second;
	size_t n = al_line_len(p, end, &next);

	if (al_starts(p, n, "diff --git "))
		return 1;
	if (!al_starts(p, n, "--- ") || next >= end)
		return 0;
	second = next;
	n = al_line_len(second, end, &next);
	return al_starts(second, n, "+++ ");
}

const char *
scan_patch_find_diff(const char *p, const char *end)
{
	const char *next;

	for (; p < end; p = next) {
		al_line_len(p, end, &next);
		if (diff_starts(p, end))
			return p;
	}
	return end;
}

int
scan_looks_patch(const char *p, size_t n)
{
	if (n == 0)
		return 0;
	return diff_starts(p, p + n) || scan_patch_find_diff(p, p + n) < p + n;
}

/* ---- one diff ----------------------------------------------------------- */

struct seg {
	uint64_t synth;           /* first line in the scanned text */
	uint64_t real;            /* its post-image line number */
};

/* A symbolic link the diff writes. */
struct plink {
	char *path;               /* where, as the diff names it */
	char *shown;              /* its display path */
	char *target;             /* NULL: the base tree's (a moved link) */
	const char *verb;         /* "creates", "points", ... */
};

struct pscan {
	struct scan_worker *w;
	struct finding_list *out;
	const char *prefix;       /* "PATH!/" or "PATH!/0002!/" */
	const char *item;         /* where whole-patch problems are reported */
	int rc;                   /* first hard error (out of memory) */
	size_t files;
	/* the file being gathered */
	const git_diff_delta *d;
	struct dynbuf shown;
	struct dynbuf text;
	uint64_t synth_line;      /* lines in text so far */
	struct seg *segs;
	size_t nsegs, capsegs;
	int binary;               /* its content came as a binary hunk */
	int eofnl;                /* the last added line had no newline */
	uint64_t added;           /* lines its hunks add */
	/* The links the diff makes, resolved through each other at the end. */
	struct plink *links;
	size_t nlinks, caplinks;
};

static int
pnote(struct pscan *ps, const char *rule, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
pnote(struct pscan *ps, const char *rule, const char *path,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (ps->rc == 0)
		ps->rc = finding_add_builtinv(ps->out, rule, path, fmt, ap);
	va_end(ap);
	return ps->rc;
}

/* Post-image line numbers for the findings the last scan added. */
static void
remap_lines(struct pscan *ps, size_t first)
{
	size_t i;

	for (i = first; i < ps->out->n; i++) {
		struct finding *f = &ps->out->v[i];
		size_t lo = 0, hi = ps->nsegs;

		if (f->line == 0 || ps->nsegs == 0)
			continue;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (ps->segs[mid].synth <= f->line)
				lo = mid;
			else
				hi = mid;
		}
		if (ps->segs[lo].synth <= f->line)
			f->line = ps->segs[lo].real + (f->line - ps->segs[lo].synth);
	}
}

static const char *
delta_path(const git_diff_delta *d)
{
	return d->new_file.path ? d->new_file.path : d->old_file.path;
}

/* ---- symbolic links ---------------------------------------------------- */

enum link_verdict { LINK_INSIDE, LINK_ESCAPES, LINK_GIT };

static const char *const link_rules[] = {
	[LINK_INSIDE] = AL_RULE_SYMLINK,
	[LINK_ESCAPES] = AL_RULE_SYMLINK_ESCAPE,
	[LINK_GIT] = AL_RULE_SYMLINK_GIT,
};

static int
plink_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct plink *)a)->path,
	    ((const struct plink *)b)->path);
}

/* The diff's link at path (links sorted; case-insensitive, as such a file
 * system finds it), or NULL. */
static const struct plink *
link_at(const struct pscan *ps, const char *path)
{
	struct plink key = { .path = (char *)(uintptr_t)path };

	return bsearch(&key, ps->links, ps->nlinks < AL_PATCH_MAX_LINKS ?
	    ps->nlinks : AL_PATCH_MAX_LINKS, sizeof(key), plink_cmp);
}

/*
 * Follows link l's target as the file system will once every link of the
 * diff is written: component by component from the link's directory, a
 * component that is one of the diff's links replaced by that link's target
 * (then ".." applies to where it led). A link that reaches .git, or leaves
 * the tree, only through another is as dangerous as one that says so.
 * *via names the last link it went through; why says why it gave up.
 */
static enum link_verdict
link_resolve(const struct pscan *ps, const struct plink *l,
    const char **via, char *why, size_t whylen)
{
	struct dynbuf cur, rest, tmp;
	enum link_verdict v = LINK_INSIDE;
	unsigned hops = 0, steps = 0;
	const char *slash = strrchr(l->path, '/');
	size_t at = 0;

	*via = NULL;
	why[0] = '\0';
	if (al_link_escapes(l->path, l->target))
		return LINK_ESCAPES;
	if (al_link_into_git(l->target))
		return LINK_GIT;
	dynbuf_init(&cur, AL_MAX_PATH + 1);
	dynbuf_init(&rest, 2 * AL_MAX_PATH + 2);
	dynbuf_init(&tmp, 2 * AL_MAX_PATH + 2);
	if ((slash && dynbuf_add(&cur, l->path, (size_t)(slash - l->path)) < 0) ||
	    dynbuf_adds(&rest, l->target) < 0)
		goto toolong;
	while (v == LINK_INSIDE && at < rest.len) {
		const char *c = rest.data + at;
		size_t len = strcspn(c, "/"), keep = cur.len;
		const struct plink *m;

		at += len + (c[len] == '/');
		if (++steps > AL_MAX_PATH) {
			snprintf(why, whylen, "too many steps to follow");
			v = LINK_ESCAPES;
			break;
		}
		if (len == 0 || (len == 1 && c[0] == '.'))
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			char *cut;

			if (cur.len == 0) {
				v = LINK_ESCAPES;
				break;
			}
			cut = memrchr(cur.data, '/', cur.len);
			cur.len = cut ? (size_t)(cut - cur.data) : 0;
			cur.data[cur.len] = '\0';
			continue;
		}
		if ((cur.len > 0 && dynbuf_addc(&cur, '/') < 0) ||
		    dynbuf_add(&cur, c, len) < 0)
			goto toolong;
		if ((m = link_at(ps, dynbuf_str(&cur))) == NULL)
			continue;
		*via = m->path;
		if (++hops > AL_LINK_MAX_HOPS) {
			snprintf(why, whylen, "more than %u links deep (a loop)",
			    AL_LINK_MAX_HOPS);
			v = LINK_ESCAPES;
		} else if (m->target == NULL) {
			snprintf(why, whylen, "a link whose target the patch does "
			    "not carry");
			v = LINK_ESCAPES;
		} else if (m->target[0] == '/' || m->target[0] == '\0') {
			v = LINK_ESCAPES;
		} else if (al_link_into_git(m->target)) {
			v = LINK_GIT;
		} else {
			/* Back to m's directory; m's target, then the rest. */
			cur.len = keep;
			if (cur.data != NULL)
				cur.data[cur.len] = '\0';
			dynbuf_reset(&tmp);
			if (dynbuf_adds(&tmp, m->target) < 0 ||
			    dynbuf_addc(&tmp, '/') < 0 ||
			    dynbuf_adds(&tmp, rest.data + at) < 0)
				goto toolong;
			dynbuf_reset(&rest);
			if (dynbuf_add(&rest, tmp.data, tmp.len) < 0)
				goto toolong;
			at = 0;
		}
	}
	goto out;
toolong:
	snprintf(why, whylen, "a path too long to follow");
	v = LINK_ESCAPES;
out:
	dynbuf_free(&cur);
	dynbuf_free(&rest);
	dynbuf_free(&tmp);
	return v;
}

/* Keeps a link for the end of the diff; one past the limit is reported at
 * once, and the diff is unscannable. */
static void
link_keep(struct pscan *ps, const char *path, const char *shown,
    const char *target, const char *verb)
{
	struct plink *l;

	if (ps->nlinks == AL_PATCH_MAX_LINKS) {
		pnote(ps, AL_RULE_UNSCANNABLE, ps->item, "more than %u symbolic "
		    "links in one patch: they were not resolved through each "
		    "other", AL_PATCH_MAX_LINKS);
		ps->nlinks++;
	}
	if (ps->nlinks > AL_PATCH_MAX_LINKS) {
		if (target != NULL)
			pnote(ps, al_link_into_git(target) ?
			    AL_RULE_SYMLINK_GIT : al_link_escapes(path, target) ?
			    AL_RULE_SYMLINK_ESCAPE : AL_RULE_SYMLINK, shown, "%s a "
			    "symbolic link to %s", verb, target);
		return;
	}
	if (ps->nlinks == ps->caplinks) {
		size_t cap = ps->caplinks ? ps->caplinks * 2 : 8;
		struct plink *v = reallocarray(ps->links, cap, sizeof(*v));

		if (v == NULL) {
			ps->rc = al_err_set(AL_ENOMEM, "out of memory");
			return;
		}
		ps->links = v;
		ps->caplinks = cap;
	}
	l = &ps->links[ps->nlinks];
	l->path = strdup(path);
	l->shown = strdup(shown);
	l->target = target ? strdup(target) : NULL;
	l->verb = verb;
	if (l->path == NULL || l->shown == NULL || (target && !l->target)) {
		free(l->path);
		free(l->shown);
		free(l->target);
		ps->rc = al_err_set(AL_ENOMEM, "out of memory");
		return;
	}
	ps->nlinks++;
}

/* Reports every link kept, each resolved through the others. */
static void
links_report(struct pscan *ps)
{
	size_t i, n = ps->nlinks < AL_PATCH_MAX_LINKS ? ps->nlinks :
	    AL_PATCH_MAX_LINKS;
	char why[96];

	if (n > 1)
		qsort(ps->links, n, sizeof(*ps->links), plink_cmp);
	for (i = 0; i < n && ps->rc == 0; i++) {
		const struct plink *l = &ps->links[i];
		const char *via;
		enum link_verdict v;

		if (l->target == NULL)
			continue;         /* reported when it was read */
		v = link_resolve(ps, l, &via, why, sizeof(why));
		pnote(ps, link_rules[v], l->shown, "%s a symbolic link to %s (mode "
		    "120000)%s%s%s%s%s%s", l->verb, l->target[0] ? l->target :
		    "(empty)", v == LINK_GIT ? ": inside .git" : "", via ? ", through " : "", via ? via : "",
		    via ? ", another link in the patch" : "", why[0] ? ": " : "",
		    why);
	}
	for (i = 0; i < n; i++) {
		free(ps->links[i].path);
		free(ps->links[i].shown);
		free(ps->links[i].target);
	}
	free(ps->links);
	ps->links = NULL;
	ps->nlinks = ps->caplinks = 0;
}

/* ---- where a file runs ------------------------------------------------ */

/*
 * A rename, a copy or a mode change brings a file's content from the base
 * tree, which the gate never sees: only the added lines are in the patch.
 * What matters is where that content lands. The places that run by
 * themselves are the operator's: every rule of category install-hook or
 * persistence scoped by paths names one (a workflow, a hook, package.json,
 * a shell rc file), so the destination is run through those rules' globs
 * rather than through a second list kept here. Scripts are judged by name
 * (a shebang would be in the base content), executables by their mode.
 */
enum run_class {
	RUN_NONE = 0,             /* data or a document */
	RUN_SCRIPT,               /* runs when someone runs it */
	RUN_AUTO,                 /* runs by itself (a tool or CI runs it) */
};

static const char *const script_exts[] = {
	"sh", "bash", "zsh", "ksh", "csh", "tcsh", "fish", "command", "py",
	"pyw", "pl", "pm", "rb", "js", "mjs", "cjs", "ts", "php", "ps1", "psm1",
	"bat", "cmd", "vbs", "lua", "tcl", "awk", "mk",
};
static const char *const script_names[] = {
	"Makefile", "GNUmakefile", "makefile", "BSDmakefile", "Rakefile",
	"justfile", "Justfile",
};
static const char *const script_dirs[] = {
	"bin", "sbin", "scripts", "script", "libexec", ".bin",
};

static int
name_is_script(const char *path)
{
	const char *base = strrchr(path, '/'), *dot, *seg;
	size_t i, len;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(script_names) / sizeof(script_names[0]); i++)
		if (strcmp(base, script_names[i]) == 0)
			return 1;
	if ((dot = strrchr(base, '.')) != NULL && dot != base)
		for (i = 0; i < sizeof(script_exts) / sizeof(script_exts[0]); i++)
			if (strcasecmp(dot + 1, script_exts[i]) == 0)
				return 1;
	for (seg = path; seg < base; seg += len + 1) {
		len = strcspn(seg, "/");
		for (i = 0; i < sizeof(script_dirs) / sizeof(script_dirs[0]); i++)
			if (strlen(script_dirs[i]) == len &&
			    strncasecmp(seg, script_dirs[i], len) == 0)
				return 1;
	}
	return 0;
}

/* The install-hook or persistence rule whose paths name this one, or NULL
 * (the most severe when several do). */
static const struct rule *
autorun_rule(const struct scan_worker *w, const char *path)
{
	const struct rule_set *rs = scan_engine_rules(w->e);
	const struct rule *best = NULL;
	size_t i, j;

	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];
		int in = 0;

		if (r->paths.n == 0 || (strcmp(r->category, "install-hook") != 0 &&
		    strcmp(r->category, "persistence") != 0))
			continue;
		for (j = 0; j < r->paths.n && !in; j++)
			in = rule_glob_match(r->paths.v[j], path);
		for (j = 0; in && j < r->exclude_paths.n; j++)
			if (rule_glob_match(r->exclude_paths.v[j], path))
				in = 0;
		if (in && (best == NULL || r->severity > best->severity))
			best = r;
	}
	return best;
}

static enum run_class
run_class(const struct scan_worker *w, const char *path, uint32_t mode,
    const struct rule **rule)
{
	return (enum run_class)scan_runnable(w, path, mode, rule);
}

int
scan_runnable(const struct scan_worker *w, const char *path, uint32_t mode,
    const struct rule **rule)
{
	*rule = autorun_rule(w, path);
	if (*rule != NULL)
		return RUN_AUTO;
	if (mode == GIT_FILEMODE_BLOB_EXECUTABLE || name_is_script(path))
		return RUN_SCRIPT;
	return RUN_NONE;
}

/*
 * A regular file that existed before the change and is renamed, copied or
 * has its mode changed into a place where it runs: a finding that names
 * where its content comes from. Returns 1 when one was reported (the mode
 * change is then said there, not again as executable-mode).
 *
 * Policy: medium when it becomes a script or an executable, high when it
 * lands where it runs by itself; a rename or copy that keeps it as
 * runnable as it was (scripts/a.sh to scripts/b.sh) is low: the content
 * is still not in the patch, but it could already run at its old place. A
 * mode change that does not make the file more runnable is left to
 * executable-mode.
 */
static int
base_content(struct pscan *ps, const git_diff_delta *d, const char *shown)
{
	const char *from = d->old_file.path, *to = delta_path(d);
	uint32_t om = d->old_file.mode, nm = d->new_file.mode;
	const struct rule *fr, *tr;
	enum run_class fc, tc;
	enum al_severity sev;
	int moved;
	const char *verb, *why;
	char was[96], mode[40];

	if (d->status == GIT_DELTA_ADDED || d->status == GIT_DELTA_DELETED ||
	    from == NULL)
		return 0;
	moved = strcmp(from, to) != 0 || d->status == GIT_DELTA_RENAMED ||
	    d->status == GIT_DELTA_COPIED;
	/* A rename or copy without mode or index lines keeps the mode the
	 * file has in the base tree, and libgit2 leaves both sides 0: then
	 * only the name can say where it lands. */
	if (!(nm == GIT_FILEMODE_BLOB || nm == GIT_FILEMODE_BLOB_EXECUTABLE ||
	    (nm == 0 && moved)) || !(om == GIT_FILEMODE_BLOB ||
	    om == GIT_FILEMODE_BLOB_EXECUTABLE || om == 0))
		return 0;
	if (!moved && (om == 0 || om == nm))
		return 0;
	fc = run_class(ps->w, from, om ? om : nm, &fr);
	tc = run_class(ps->w, to, nm, &tr);
	if (tc == RUN_NONE || (!moved && tc <= fc))
		return 0;
	sev = tc <= fc ? AL_SEV_LOW : tc == RUN_AUTO ? AL_SEV_HIGH :
	    AL_SEV_MEDIUM;
	verb = d->status == GIT_DELTA_COPIED ? "copies" : moved ? "renames" :
	    "changes the mode of";
	why = tc == RUN_AUTO ? "a place that runs by itself" :
	    nm == GIT_FILEMODE_BLOB_EXECUTABLE ? "an executable file" :
	    "a script by its name";
	was[0] = '\0';
	if (tc <= fc)
		snprintf(was, sizeof(was), "; it was already %s there",
		    fc == RUN_AUTO ? "run by a tool" : "a script or executable");
	if (om != 0 && om != nm)
		snprintf(mode, sizeof(mode), "mode %o to %o", om, nm);
	else if (nm != 0)
		snprintf(mode, sizeof(mode), "mode %o", nm);
	else
		snprintf(mode, sizeof(mode), "mode not stated: as in the base "
		    "tree");
	if (pnote(ps, AL_RULE_BASE_CONTENT, shown, "%s %s%s%s (%s): it becomes "
	    "%s%s%s%s; its content comes from the base tree and is not in the "
	    "patch (%llu line%s added), so airlock did not scan it%s", verb,
	    from, moved ? " to " : "", moved ? to : "", mode, why,
	    tr ? " (rule " : "", tr ? tr->id : "", tr ? ")" : "",
	    (unsigned long long)ps->added, ps->added == 1 ? "" : "s", was) < 0)
		return 0;
	ps->out->v[ps->out->n - 1].severity = sev;
	return 1;
}

/* Scans what the current file's change adds, and reports its header. */
static void
file_flush(struct pscan *ps)
{
	const git_diff_delta *d = ps->d;
	const char *shown, *relpath, *problem;
	uint32_t om, nm;

	if (d == NULL || ps->rc != 0)
		return;
	ps->d = NULL;
	shown = dynbuf_str(&ps->shown);
	relpath = delta_path(d);
	om = d->old_file.mode;
	nm = d->new_file.mode;
	if ((problem = al_name_problem(relpath, 1)) != NULL)
		pnote(ps, AL_RULE_PATCH_PATH, shown, "%s", problem);
	else if (d->old_file.path != NULL && strcmp(d->old_file.path, relpath) &&
	    (problem = al_name_problem(d->old_file.path, 1)) != NULL)
		pnote(ps, AL_RULE_PATCH_PATH, shown, "from %s: %s",
		    d->old_file.path, problem);
	if (d->status == GIT_DELTA_DELETED || ps->rc != 0)
		return;
	if (nm == GIT_FILEMODE_LINK && (om != GIT_FILEMODE_LINK ||
	    ps->nsegs > 0)) {
		struct dynbuf target;

		dynbuf_init(&target, AL_MAX_PATH + 1);
		if (dynbuf_add(&target, ps->text.data, ps->text.len) < 0)
			dynbuf_reset(&target);
		while (target.len > 0 && target.data[target.len - 1] == '\n')
			target.data[--target.len] = '\0';
		link_keep(ps, relpath, shown, dynbuf_str(&target),
		    om == GIT_FILEMODE_LINK ? "points" : om ?
		    "changes the file into" : "creates");
		dynbuf_free(&target);
	} else if (nm == GIT_FILEMODE_LINK && d->old_file.path != NULL &&
	    strcmp(d->old_file.path, relpath) != 0) {
		/* Renamed or copied without a hunk: its target is the base
		 * tree's, now read from another directory. */
		size_t from = 0, to = 0;
		const char *p;

		for (p = d->old_file.path; *p; p++)
			from += *p == '/';
		for (p = relpath; *p; p++)
			to += *p == '/';
		link_keep(ps, relpath, shown, NULL, "");
		pnote(ps, to < from ? AL_RULE_SYMLINK_ESCAPE : AL_RULE_SYMLINK,
		    shown, "%s the symbolic link %s here: its target is in the "
		    "base tree, not in the patch%s", d->status ==
		    GIT_DELTA_COPIED ? "copies" : "moves", d->old_file.path,
		    to < from ? ", and a '..' in it that stayed inside the tree "
		    "may climb out of it from this shallower directory" : "");
	} else if (nm == GIT_FILEMODE_COMMIT) {
		/* The full id is on the "+Subproject commit" line; the index
		 * line has only an abbreviation. */
		const char *sc = ps->text.len ? al_memcasemem(ps->text.data,
		    ps->text.len, "Subproject commit ", 18) : NULL;
		int k = 0;

		if (sc != NULL)
			for (sc += 18; k < GIT_OID_HEXSZ && sc + k < ps->text.data +
			    ps->text.len && ((sc[k] >= '0' && sc[k] <= '9') ||
			    (sc[k] >= 'a' && sc[k] <= 'f')); k++)
				;
		pnote(ps, AL_RULE_SUBMODULE, shown, "%s a submodule (gitlink, "
		    "mode 160000) at commit %.*s: its code is not in the patch",
		    om == GIT_FILEMODE_COMMIT ? "moves" : "adds", k ? k : 7,
		    k ? sc : "unknown");
	} else if (!base_content(ps, d, shown) &&
	    nm == GIT_FILEMODE_BLOB_EXECUTABLE &&
	    om != GIT_FILEMODE_BLOB_EXECUTABLE) {
		pnote(ps, AL_RULE_EXEC_MODE, shown, om ? "makes the file "
		    "executable (mode %o to 100755)" : "a new executable file "
		    "(mode 100755)%.0o", om);
	}
	if (ps->rc == 0 && !ps->binary) {
		size_t first = ps->out->n;

		/* (The item is what the diff adds, not the whole file.) */
		scan_worker_item_mode(ps->w, nm);
		ps->rc = scan_mem(ps->w, ps->text.data, ps->text.len, shown,
		    relpath, ps->out);
		remap_lines(ps, first);
	}
}

static int
on_file(const git_diff_delta *d, float progress, void *ctx)
{
	struct pscan *ps = ctx;

	(void)progress;
	file_flush(ps);
	if (ps->rc != 0)
		return -1;
	if (++ps->files > AL_PATCH_MAX_FILES) {
		pnote(ps, AL_RULE_UNSCANNABLE, ps->item, "more than %u files in "
		    "one patch; the rest were not read", AL_PATCH_MAX_FILES);
		return -1;
	}
	ps->d = d;
	dynbuf_reset(&ps->shown);
	dynbuf_reset(&ps->text);
	ps->synth_line = 1;
	ps->nsegs = 0;
	ps->binary = ps->eofnl = 0;
	ps->added = 0;
	if (dynbuf_addf(&ps->shown, "%s%s", ps->prefix, delta_path(d)) < 0) {
		ps->rc = al_err_set(AL_ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

static int
on_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *ctx)
{
	struct pscan *ps = ctx;

	(void)d;
	if (ps->nsegs == ps->capsegs) {
		size_t cap = ps->capsegs ? ps->capsegs * 2 : 16;
		struct seg *s = reallocarray(ps->segs, cap, sizeof(*s));

		if (s == NULL) {
			ps->rc = al_err_set(AL_ENOMEM, "out of memory");
			return -1;
		}
		ps->segs = s;
		ps->capsegs = cap;
	}
	/* A hunk that ended without a newline joins the next one's first
	 * line otherwise. */
	if (ps->text.len > 0 && ps->text.data[ps->text.len - 1] != '\n') {
		if (dynbuf_addc(&ps->text, '\n') < 0)
			goto nomem;
		ps->synth_line++;
	}
	ps->segs[ps->nsegs].synth = ps->synth_line;
	ps->segs[ps->nsegs].real = h->new_start > 0 ? (uint64_t)h->new_start : 1;
	ps->nsegs++;
	return 0;
nomem:
	ps->rc = al_err_set(AL_ENOMEM, "out of memory");
	return -1;
}

static int
on_line(const git_diff_delta *d, const git_diff_hunk *h,
    const git_diff_line *l, void *ctx)
{
	struct pscan *ps = ctx;
	int r = 0;

	(void)d;
	(void)h;
	switch (l->origin) {
	case GIT_DIFF_LINE_ADDITION:
		r = dynbuf_add(&ps->text, l->content, l->content_len);
		ps->added++;
		break;
	case GIT_DIFF_LINE_CONTEXT:
		r = dynbuf_addc(&ps->text, '\n');
		break;
	case GIT_DIFF_LINE_ADD_EOFNL:
		/* "\ No newline at end of file" after an added line. */
		if (ps->text.len > 0 && ps->text.data[ps->text.len - 1] == '\n')
			ps->text.data[--ps->text.len] = '\0';
		return 0;
	default:
		return 0;
	}
	if (r < 0) {
		pnote(ps, AL_RULE_UNSCANNABLE, dynbuf_str(&ps->shown), "adds more "
		    "than %llu bytes to one file", (unsigned long long)
		    AL_PATCH_MAX_BYTES);
		return -1;
	}
	ps->synth_line++;
	return 0;
}

static int
on_binary(const git_diff_delta *d, const git_diff_binary *b, void *ctx)
{
	struct pscan *ps = ctx;
	const char *shown = dynbuf_str(&ps->shown);
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	struct dynbuf ins;
	int r;

	ps->binary = 1;
	if (d->status == GIT_DELTA_DELETED)
		return 0;
	if (!b->contains_data || b->new_file.type == GIT_DIFF_BINARY_NONE) {
		pnote(ps, AL_RULE_UNSCANNABLE, shown, "a binary change without "
		    "its data (\"Binary files differ\"): the content it writes "
		    "is not in the patch");
		return ps->rc ? -1 : 0;
	}
	if (b->new_file.inflatedlen > AL_PATCH_MAX_BYTES) {
		pnote(ps, AL_RULE_UNSCANNABLE, shown, "a binary hunk of %zu bytes, "
		    "more than %llu", b->new_file.inflatedlen,
		    (unsigned long long)AL_PATCH_MAX_BYTES);
		return ps->rc ? -1 : 0;
	}
	r = scan_inflate(b->new_file.data, b->new_file.datalen,
	    b->new_file.inflatedlen, &raw, &rawlen, NULL);
	if (r < 0 || rawlen != b->new_file.inflatedlen) {
		free(raw);
		if (r == AL_ENOMEM)
			return ps->rc = r, -1;
		pnote(ps, AL_RULE_UNSCANNABLE, shown, "a binary hunk that does "
		    "not inflate to its stated %zu bytes", b->new_file.inflatedlen);
		return ps->rc ? -1 : 0;
	}
	if (b->new_file.type == GIT_DIFF_BINARY_LITERAL) {
		scan_worker_item_mode(ps->w, d->new_file.mode);
		ps->rc = scan_blob_mem(ps->w, (const char *)raw, rawlen, shown,
		    delta_path(d), ps->out);
		free(raw);
		return ps->rc ? -1 : 0;
	}
	dynbuf_init(&ins, AL_PATCH_MAX_BYTES);
	if (scan_delta_inserts(raw, rawlen, &ins) < 0) {
		pnote(ps, AL_RULE_UNSCANNABLE, shown, "a malformed binary delta");
	} else {
		pnote(ps, AL_RULE_UNSCANNABLE, shown, "a binary delta against a "
		    "blob the patch does not carry: the file it writes cannot be "
		    "seen; only the %zu bytes it inserts were scanned (send the "
		    "whole file, `git format-patch --binary --full-index` with "
		    "a literal, or an archive)", ins.len);
		if (ps->rc == 0)
			ps->rc = scan_mem(ps->w, ins.data ? ins.data : "", ins.len,
			    shown, delta_path(d), ps->out);
	}
	dynbuf_free(&ins);
	free(raw);
	return ps->rc ? -1 : 0;
}

/* ---- traditional diffs -------------------------------------------------- */

/* The name git apply takes from a "--- "/"+++ " line: up to a tab (diff -u
 * puts the time after one), trailing blanks dropped, the first component
 * stripped (-p1). NULL for /dev/null. */
static int
trad_name(const char *p, size_t n, struct dynbuf *out, int *devnull)
{
	const char *tab = memchr(p, '\t', n), *slash;
	size_t i;

	if (tab != NULL)
		n = (size_t)(tab - p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r'))
		n--;
	*devnull = n == 9 && memcmp(p, "/dev/null", 9) == 0;
	if (*devnull)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == '"' || p[i] == '\\')
			return -1;        /* git would want it quoted */
	if ((slash = memchr(p, '/', n)) != NULL) {
		n -= (size_t)(slash + 1 - p);
		p = slash + 1;
	}
	if (n == 0)
		return -1;
	dynbuf_reset(out);
	return dynbuf_add(out, p, n);
}

/* "@@ -a[,b] +c[,d] @@": the old and new line counts. Every number is
 * read within the line: the byte after it may be the end of the buffer. */
static int
hunk_counts(const char *p, size_t n, unsigned long *old, unsigned long *new)
{
	const char *end = p + n;
	uint64_t v;
	int k;

	if (!al_starts(p, n, "@@ -"))
		return -1;
	p += 4;
	for (k = 0; k < 2; k++) {
		unsigned long *cnt = k ? new : old;

		/* The start line: any number of digits, as git reads it. */
		if (p >= end || *p < '0' || *p > '9')
			return -1;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		*cnt = 1;
		if (p < end && *p == ',') {
			p++;
			/* A count past the limit is refused below either way. */
			if (al_dec_parse(&p, end, UINT64_MAX, &v) < 0)
				return -1;
			*cnt = v > ULONG_MAX ? ULONG_MAX : (unsigned long)v;
		}
		if (k == 0) {
			if (end - p < 2 || p[0] != ' ' || p[1] != '+')
				return -1;
			p += 2;
		}
	}
	return *old > AL_PATCH_MAX_BYTES || *new > AL_PATCH_MAX_BYTES ? -1 : 0;
}

/*
 * Rewrites a diff without "diff --git" headers (diff -u, svn, hg) the way
 * git apply reads it: each "--- "/"+++ " pair outside a hunk starts a
 * file, named by the new name (the old one for a deletion) with its first
 * component stripped. Hunks are counted so that a removed line that begins
 * "-- " is never taken for a header. 1 when a name cannot be read.
 */
static int
trad_to_git(const char *p, const char *end, struct dynbuf *out)
{
	struct dynbuf oldn, newn;
	unsigned long o = 0, nw = 0;
	const char *next;
	int rc = 0, in_hunk = 0;

	dynbuf_init(&oldn, AL_MAX_PATH);
	dynbuf_init(&newn, AL_MAX_PATH);
	for (; p < end && rc == 0; p = next) {
		size_t n = al_line_len(p, end, &next);

		if (in_hunk) {
			if (n > 0 && p[0] == '\\') {
				/* "\ No newline at end of file" */
			} else if (n == 0 || p[0] == ' ') {
				o--, nw--;
			} else if (p[0] == '-' && o > 0) {
				o--;
			} else if (p[0] == '+' && nw > 0) {
				nw--;
			} else {
				in_hunk = 0;      /* the hunk lied: libgit2 reports it */
			}
			if (in_hunk) {
				if (dynbuf_add(out, p, (size_t)(next - p)) < 0)
					rc = AL_ENOMEM;
				if (o == 0 && nw == 0 && (next >= end || *next != '\\'))
					in_hunk = 0;
				continue;
			}
		}
		if (al_starts(p, n, "@@ -")) {
			if (hunk_counts(p, n, &o, &nw) < 0)
				rc = 1;
			else if (dynbuf_add(out, p, (size_t)(next - p)) < 0)
				rc = AL_ENOMEM;
			in_hunk = o > 0 || nw > 0;
		} else if (diff_starts(p, end) && !al_starts(p, n, "diff --git ")) {
			const char *plus = next, *after;
			size_t pn = al_line_len(plus, end, &after);
			int odev, ndev;
			const char *name;

			if (trad_name(p + 4, n - 4, &oldn, &odev) != 0 ||
			    trad_name(plus + 4, pn - 4, &newn, &ndev) != 0 ||
			    (odev && ndev)) {
				rc = 1;
				break;
			}
			name = ndev ? dynbuf_str(&oldn) : dynbuf_str(&newn);
			if (dynbuf_addf(out, "diff --git a/%s b/%s\n%s--- %s%s\n"
			    "+++ %s%s\n", name, name, odev ? "new file mode 100644\n" :
			    ndev ? "deleted file mode 100644\n" : "",
			    odev ? "" : "a/", odev ? "/dev/null" : name,
			    ndev ? "" : "b/", ndev ? "/dev/null" : name) < 0)
				rc = AL_ENOMEM;
			next = after;
		}
	}
	dynbuf_free(&oldn);
	dynbuf_free(&newn);
	return rc;
}

int
scan_patch_diff(struct scan_worker *w, const char *p, size_t n,
    const char *prefix, const char *item, struct finding_list *out)
{
	struct pscan ps;
	struct dynbuf git;
	git_diff *diff = NULL;
	const char *q, *next;
	int r, has_git = 0;

	memset(&ps, 0, sizeof(ps));
	dynbuf_init(&git, AL_PATCH_MAX_BYTES + AL_PATCH_MAX_BYTES / 2);
	ps.w = w;
	ps.out = out;
	ps.prefix = prefix;
	ps.item = item;
	/* libgit2 copies some line content up to a NUL but keeps the line's
	 * length (a read past its copy), and git apply's reading of such a
	 * line is its own: a NUL in a diff is refused, not guessed at. */
	if (memchr(p, '\0', n) != NULL) {
		pnote(&ps, AL_RULE_UNSCANNABLE, item, "a NUL byte inside the "
		    "diff: git and libgit2 do not read such patches alike");
		dynbuf_free(&git);
		return ps.rc;
	}
	for (q = p; q < p + n; q = next) {
		size_t len = al_line_len(q, p + n, &next);

		if (!al_starts(q, len, "diff --git "))
			continue;
		has_git = 1;
		/* git apply strips "/" as the first component (-p1), libgit2
		 * a whole directory: they would write different files. */
		if (len > 11 && (q[11] == '/' || (q[11] == '"' && len > 12 &&
		    q[12] == '/'))) {
			pnote(&ps, AL_RULE_UNSCANNABLE, item, "a file name without "
			    "the a/ and b/ prefixes, starting with '/': git apply "
			    "and libgit2 would write different files");
			dynbuf_free(&git);
			return ps.rc;
		}
	}
	if (!has_git) {
		r = trad_to_git(p, p + n, &git);
		if (r == 1 || (r == 0 && git.len == 0)) {
			dynbuf_free(&git);
			pnote(&ps, AL_RULE_UNSCANNABLE, item, "a diff whose file names "
			    "or hunk headers git apply would not read");
			return ps.rc;
		}
		if (r < 0) {
			dynbuf_free(&git);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
		p = git.data;
		n = git.len;
	}
	if (git_diff_from_buffer(&diff, p, n) < 0) {
		const git_error *e = git_error_last();

		pnote(&ps, AL_RULE_UNSCANNABLE, item, "git would not apply this "
		    "diff as written (libgit2: %s); airlock does not guess what "
		    "it means", e && e->message ? e->message : "unreadable");
		dynbuf_free(&git);
		return ps.rc;
	}
	dynbuf_init(&ps.shown, 2 * AL_MAX_PATH + 32);
	dynbuf_init(&ps.text, AL_PATCH_MAX_BYTES);
	r = git_diff_foreach(diff, on_file, on_binary, on_hunk, on_line, &ps);
	if (r == 0)
		file_flush(&ps);
	else if (ps.rc == 0 && r != GIT_EUSER)
		pnote(&ps, AL_RULE_UNSCANNABLE, item, "libgit2 stopped reading "
		    "the diff: %s", git_error_last() ? git_error_last()->message :
		    "?");
	links_report(&ps);
	git_diff_free(diff);
	dynbuf_free(&git);
	dynbuf_free(&ps.shown);
	dynbuf_free(&ps.text);
	free(ps.segs);
	return ps.rc;
}

int
scan_patch_apply_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out)
{
	const char *end = data + len;
	const char *diff = scan_patch_find_diff(data, end);
	const char *q;
	struct dynbuf item;
	int rc = 0;

	for (q = data; q < diff && (*q == ' ' || *q == '\n' ||
	    *q == '\t' || *q == '\r'); q++)
		;
	if (q < diff && (rc = scan_mem(w, data, (size_t)(diff - data), path,
	    MSG_RELPATH, out)) < 0)
		return rc;
	if (diff == end)
		return finding_add_builtin(out, AL_RULE_UNSCANNABLE, path,
		    "read as a patch, but it holds no diff: git apply "
		    "would find nothing to apply");
	dynbuf_init(&item, 2 * AL_MAX_PATH);
	rc = dynbuf_addf(&item, "%s" AL_MEMBER_SEP, path) < 0 ?
	    al_err_set(AL_ENOMEM, "out of memory") :
	    scan_patch_diff(w, diff, (size_t)(end - diff), dynbuf_str(&item),
	    path, out);
	dynbuf_free(&item);
	return rc;
}
