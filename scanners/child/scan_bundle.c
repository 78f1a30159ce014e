/*
 * scan_bundle.c - git bundles; see scan_bundle.h.
 *
 * Steps: header (capabilities, prerequisites, refs) -> the pack indexed
 * in memory by the pack reader (scan_pack.c: objects inflated, deltas
 * resolved, ids recomputed, checksum verified) -> commits walked from the
 * refs, parents first -> trees walked, blobs scanned once per (id, path)
 * -> blobs no commit reaches. The walk's own state (visited, scanned, queue
 * places) is kept here, one mark per object, not in the pack's objects.
 * Limits (al_limits.h): AL_BUNDLE_MAX_REFS refs, AL_MAX_DIR_DEPTH and
 * AL_MAX_PATH in trees; the pack's objects, inflated bytes and delta depth
 * (AL_BUNDLE_MAX_OBJECTS, _INFLATED, _DELTA_DEPTH) are the pack reader's.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "scan_artifact.h"
#include "scan_bundle.h"
#include "scan_decode.h"
#include "scan_pack.h"
#include "scan_patch.h"
#include "scan_walk.h"
#include "text.h"
#include "util.h"

#define MSG_RELPATH "COMMIT_MSG.txt"

/* What the walk has done with an object of the pack. */
struct mark {
	unsigned char scanned;    /* blob: scanned at some path */
	unsigned char visited;    /* commit: walked */
	size_t qpos;              /* commit: its place in the walk's queue */
};

struct bundle {
	struct scan_worker *w;
	struct finding_list *out;
	const char *path;
	int rc;                   /* hard error: out of memory */
	int bad;                  /* unscannable was reported: stop */
	struct scan_pack pack;
	struct mark *mark;        /* one per object of the pack */
	/* (id, path) pairs scanned, by their SHA-1 */
	unsigned char *seen;
	size_t seencap, nseen;
	EVP_MD_CTX *md;
	struct dynbuf shown;
};

static int
bnote(struct bundle *b, const char *rule, const char *where,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
bnote(struct bundle *b, const char *rule, const char *where,
    const char *fmt, ...)
{
	va_list ap;

	if (strcmp(rule, AL_RULE_UNSCANNABLE) == 0)
		b->bad = 1;
	va_start(ap, fmt);
	if (b->rc == 0)
		b->rc = finding_add_builtinv(b->out, rule, where ? where : b->path,
		    fmt, ap);
	va_end(ap);
	return b->rc;
}

static void
hexid(char out[2 * SCAN_OID_LEN + 1], const unsigned char *oid)
{
	al_hex(out, oid, SCAN_OID_LEN);
}

/* ---- walking ------------------------------------------------------------ */

static struct mark *
mark_of(struct bundle *b, const struct pack_obj *o)
{
	return &b->mark[o - b->pack.obj];
}

/* 1 if (oid, path) was scanned before; else records it. */
static int
seen_add(struct bundle *b, const unsigned char *oid, const char *path)
{
	unsigned char key[SCAN_OID_LEN];
	unsigned int olen;
	size_t s;

	if (EVP_DigestInit_ex(b->md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(b->md, oid, SCAN_OID_LEN) != 1 ||
	    EVP_DigestUpdate(b->md, path, strlen(path)) != 1 ||
	    EVP_DigestFinal_ex(b->md, key, &olen) != 1) {
		b->rc = al_err_set(AL_EENGINE, "libcrypto cannot hash");
		return 1;
	}
	if (2 * (b->nseen + 1) > b->seencap) {
		size_t cap = b->seencap ? 2 * b->seencap : 1024, i;
		unsigned char *v = calloc(cap, SCAN_OID_LEN);
		static const unsigned char zero[SCAN_OID_LEN];

		if (v == NULL) {
			b->rc = al_err_set(AL_ENOMEM, "out of memory");
			return 1;
		}
		for (i = 0; i < b->seencap; i++) {
			unsigned char *k = b->seen + i * SCAN_OID_LEN;

			if (memcmp(k, zero, SCAN_OID_LEN) == 0)
				continue;
			for (s = scan_pack_oid_slot(k, cap);
			    memcmp(v + s * SCAN_OID_LEN, zero, SCAN_OID_LEN);
			    s = (s + 1) & (cap - 1))
				;
			memcpy(v + s * SCAN_OID_LEN, k, SCAN_OID_LEN);
		}
		free(b->seen);
		b->seen = v;
		b->seencap = cap;
	}
	key[0] |= 1;              /* never all zero: zero marks a free slot */
	for (s = scan_pack_oid_slot(key, b->seencap); ;
	    s = (s + 1) & (b->seencap - 1)) {
		unsigned char *k = b->seen + s * SCAN_OID_LEN;

		if (memcmp(k, key, SCAN_OID_LEN) == 0)
			return 1;
		if (k[0] == 0 && memcmp(k, k + 1, SCAN_OID_LEN - 1) == 0) {
			memcpy(k, key, SCAN_OID_LEN);
			b->nseen++;
			return 0;
		}
	}
}

static int
scan_text(struct bundle *b, const char *item, const char *p, size_t n)
{
	if (b->rc == 0)
		b->rc = scan_mem(b->w, p, n, item, MSG_RELPATH, b->out);
	return b->rc;
}

/* A commit's or tag's text: identities and message, not the ids. */
static int
scan_identity(struct bundle *b, const char *item, const struct pack_obj *o)
{
	const char *p = (const char *)o->data, *end = p + o->len, *next;
	struct dynbuf text;

	dynbuf_init(&text, o->len + 1);
	while (p < end && *p != '\n') {
		size_t n = al_line_len(p, end, &next);

		if ((al_starts(p, n, "author ") || al_starts(p, n, "committer ") ||
		    al_starts(p, n, "tagger ") || al_starts(p, n, "tag ")) &&
		    (dynbuf_add(&text, p, n) < 0 || dynbuf_addc(&text, '\n') < 0))
			b->rc = al_err_set(AL_ENOMEM, "out of memory");
		p = next;
	}
	if (p < end && dynbuf_add(&text, p, (size_t)(end - p)) < 0)
		b->rc = al_err_set(AL_ENOMEM, "out of memory");
	scan_text(b, item, text.data ? text.data : "", text.len);
	dynbuf_free(&text);
	return b->rc;
}

struct walk {
	struct bundle *b;
	const char *commit;       /* 12 hex digits */
	int partial;              /* objects may be absent (prerequisites) */
};

static int walk_tree(struct walk *wk, const struct pack_obj *tree,
    struct dynbuf *dir, unsigned depth);

static void
shown_path(struct bundle *b, const char *commit, const char *rel)
{
	dynbuf_reset(&b->shown);
	if (dynbuf_addf(&b->shown, "%s" AL_MEMBER_SEP "%s" AL_MEMBER_SEP "%s",
	    b->path, commit, rel) < 0)
		b->rc = al_err_set(AL_ENOMEM, "out of memory");
}

static void
missing(struct walk *wk, const char *what, const unsigned char *oid)
{
	char hx[2 * SCAN_OID_LEN + 1];

	if (wk->partial)
		return;           /* the prerequisites' history has it */
	hexid(hx, oid);
	bnote(wk->b, AL_RULE_UNSCANNABLE, NULL, "%s %s is not in the bundle, "
	    "which lists no prerequisites", what, hx);
}

/*
 * A file whose blob a bundle with prerequisites does not carry: its content
 * is in the history below them, which airlock never sees. Where it does
 * not run, bundle-incomplete says enough; where it runs (a script, an
 * executable, a place an install-hook or persistence rule names) it is
 * content-from-base, as a patch's rename or mode change is; so is a link,
 * whose target is unknown (medium: it may be the receiver's own). Without the
 * prerequisites' trees a file the range moved or made executable cannot
 * be told from one it left alone, so both are reported.
 */
#define UNTOLD "without the prerequisites' trees, whether the range moved " \
	"it here or left it as it was cannot be told"

static void
missing_runnable(struct walk *wk, unsigned mode, const char *rel,
    const unsigned char *oid)
{
	struct bundle *b = wk->b;
	const struct rule *r;
	char hx[2 * SCAN_OID_LEN + 1];
	int c;

	hexid(hx, oid);
	shown_path(b, wk->commit, rel);
	if (b->rc != 0)
		return;
	if (mode == 0120000) {
		if (bnote(b, AL_RULE_BASE_CONTENT, dynbuf_str(&b->shown), "a "
		    "symbolic link whose target (blob %s) is not in the bundle: "
		    "where it points cannot be seen; %s", hx, UNTOLD) == 0)
			b->out->v[b->out->n - 1].severity = AL_SEV_MEDIUM;
		return;
	}
	if ((c = scan_runnable(b->w, rel, mode, &r)) == 0)
		return;
	if (bnote(b, AL_RULE_BASE_CONTENT, dynbuf_str(&b->shown), "blob %s "
	    "(mode %o) is not in the bundle: its content comes from the "
	    "history below the prerequisites, so airlock did not scan it; "
	    "here it is %s%s%s%s; %s", hx, mode, c == 2 ? "a place that runs "
	    "by itself" : mode == 0100755 ? "an executable file" : "a script "
	    "by its name", r ? " (rule " : "", r ? r->id : "", r ? ")" : "",
	    UNTOLD) == 0)
		b->out->v[b->out->n - 1].severity = c == 2 ? AL_SEV_HIGH :
		    AL_SEV_MEDIUM;
}

static int
walk_entry(struct walk *wk, unsigned mode, const char *rel,
    const unsigned char *oid, unsigned depth, struct dynbuf *dir)
{
	struct bundle *b = wk->b;
	const char *problem;
	const struct pack_obj *o;

	if (seen_add(b, oid, rel) || b->rc)
		return b->rc;
	if ((problem = al_name_problem(rel, 1)) != NULL) {
		shown_path(b, wk->commit, rel);
		bnote(b, AL_RULE_PATCH_PATH, dynbuf_str(&b->shown), "%s", problem);
	}
	if (mode == 0160000) {
		char hx[2 * SCAN_OID_LEN + 1];

		hexid(hx, oid);
		shown_path(b, wk->commit, rel);
		return bnote(b, AL_RULE_SUBMODULE, dynbuf_str(&b->shown), "a "
		    "submodule (gitlink) at commit %s: its code is not in the "
		    "bundle", hx);
	}
	o = scan_pack_get(&b->pack, oid);
	if (o == NULL && wk->partial && mode != 040000) {
		missing_runnable(wk, mode, rel, oid);
		return b->rc;
	}
	if (o == NULL) {
		missing(wk, mode == 040000 ? "tree" : "blob", oid);
		return b->rc;
	}
	if (mode == 040000) {
		size_t len = dir->len;
		int r;

		if (o->type != OBJ_TREE)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "%s names a %s "
			    "as a directory", rel, scan_pack_type_name(o->type));
		if (depth >= AL_MAX_DIR_DEPTH)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "directories "
			    "nested deeper than %u", AL_MAX_DIR_DEPTH);
		dynbuf_reset(dir);
		if (dynbuf_adds(dir, rel) < 0 || dynbuf_addc(dir, '/') < 0)
			return b->rc = al_err_set(AL_ENOMEM, "out of memory");
		r = walk_tree(wk, o, dir, depth + 1);
		dir->len = len;
		return r;
	}
	if (o->type != OBJ_BLOB)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "%s names a %s as a "
		    "file", rel, scan_pack_type_name(o->type));
	shown_path(b, wk->commit, rel);
	mark_of(b, o)->scanned = 1;
	if (mode == 0120000) {
		char target[AL_MAX_PATH];
		size_t n = o->len < sizeof(target) - 1 ? o->len : sizeof(target) - 1;

		memcpy(target, o->data, n);
		target[n] = '\0';
		if (memchr(o->data, '\0', o->len) != NULL || o->len != n)
			return bnote(b, AL_RULE_SYMLINK_ESCAPE, dynbuf_str(&b->shown),
			    "symbolic link with an unreadable target");
		return bnote(b, al_link_into_git(target) ? AL_RULE_SYMLINK_GIT :
		    al_link_escapes(rel, target) ? AL_RULE_SYMLINK_ESCAPE :
		    AL_RULE_SYMLINK, dynbuf_str(&b->shown), "symbolic link to %s",
		    target);
	}
	if (b->rc == 0) {
		scan_worker_item_mode(b->w, mode);
		b->rc = scan_blob_mem(b->w, (const char *)o->data, o->len,
		    dynbuf_str(&b->shown), rel, b->out);
	}
	return b->rc;
}

static int
walk_tree(struct walk *wk, const struct pack_obj *tree, struct dynbuf *dir,
    unsigned depth)
{
	struct bundle *b = wk->b;
	const unsigned char *p = tree->data, *end = p + tree->len;
	struct dynbuf rel;
	size_t base = dir->len;
	char *prefix = strndup(dir->data ? dir->data : "", base);

	if (prefix == NULL)
		return b->rc = al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_init(&rel, AL_MAX_PATH + 1);
	while (p < end && b->rc == 0 && !b->bad) {
		unsigned mode = 0;
		const unsigned char *name, *nul;

		while (p < end && *p >= '0' && *p <= '7' && mode < 01000000)
			mode = mode * 8 + (unsigned)(*p++ - '0');
		if (p >= end || *p++ != ' ')
			goto bad;
		name = p;
		nul = memchr(p, '\0', (size_t)(end - p));
		if (nul == NULL || nul == name ||
		    (size_t)(end - nul) < 1 + SCAN_OID_LEN ||
		    memchr(name, '/', (size_t)(nul - name)) != NULL ||
		    (nul - name == 1 && name[0] == '.') ||
		    (nul - name == 2 && name[0] == '.' && name[1] == '.'))
			goto bad;
		dynbuf_reset(&rel);
		if (dynbuf_adds(&rel, prefix) < 0 ||
		    dynbuf_add(&rel, name, (size_t)(nul - name)) < 0) {
			bnote(b, AL_RULE_UNSCANNABLE, NULL, "a path longer than %u "
			    "bytes", AL_MAX_PATH);
			break;
		}
		if (mode != 040000 && mode != 0100644 && mode != 0100755 &&
		    mode != 0100664 && mode != 0120000 && mode != 0160000)
			goto bad;
		walk_entry(wk, mode, dynbuf_str(&rel), nul + 1, depth, dir);
		p = nul + 1 + SCAN_OID_LEN;
	}
	dynbuf_free(&rel);
	free(prefix);
	return b->rc;
bad:
	dynbuf_free(&rel);
	free(prefix);
	return bnote(b, AL_RULE_UNSCANNABLE, NULL, "a malformed tree object "
	    "(git fsck would reject it)");
}

/* A commit's tree and parents, from its header lines. */
static int
commit_links(const struct pack_obj *o, unsigned char tree[SCAN_OID_LEN],
    unsigned char (**parents)[SCAN_OID_LEN], size_t *nparents)
{
	const char *p = (const char *)o->data, *end = p + o->len, *nl;
	int have_tree = 0;

	*parents = NULL;
	*nparents = 0;
	while (p < end && *p != '\n') {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return -1;
		if (al_starts(p, (size_t)(nl - p), "tree ")) {
			if (have_tree || nl - p != 5 + 2 * SCAN_OID_LEN ||
			    scan_pack_oid_parse(p + 5, 2 * SCAN_OID_LEN, tree) < 0)
				return -1;
			have_tree = 1;
		} else if (al_starts(p, (size_t)(nl - p), "parent ")) {
			unsigned char (*v)[SCAN_OID_LEN];

			if (nl - p != 7 + 2 * SCAN_OID_LEN || *nparents >= 4096 ||
			    (v = realloc(*parents, (*nparents + 1) * SCAN_OID_LEN)) == NULL)
				return -1;
			*parents = v;
			if (scan_pack_oid_parse(p + 7, 2 * SCAN_OID_LEN, v[*nparents]) < 0)
				return -1;
			(*nparents)++;
		}
		p = nl + 1;
	}
	return have_tree ? 0 : -1;
}

/*
 * Reorders queue[0..n) (commits by queue position; edges are (child,
 * parent) pairs of positions) so that parents come before children: a
 * depth-first post-order, iterative (history can be deep).
 */
static int
topo_order(size_t n, const size_t *edges, size_t nedge,
    size_t *queue)
{
	size_t *start = calloc(n + 1, sizeof(*start));
	size_t *adj = calloc(nedge + 1, sizeof(*adj));
	size_t *stack = calloc(n + 1, sizeof(*stack));
	size_t *cur = calloc(n + 1, sizeof(*cur));
	size_t *order = calloc(n + 1, sizeof(*order));
	unsigned char *state = calloc(n + 1, 1);
	size_t i, sp, no = 0;
	int rc = 0;

	if (!start || !adj || !stack || !cur || !order || !state) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < nedge; i++)
		start[edges[2 * i] + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < nedge; i++)
		adj[start[edges[2 * i]] + cur[edges[2 * i]]++] = edges[2 * i + 1];
	memset(cur, 0, (n + 1) * sizeof(*cur));
	for (i = 0; i < n; i++) {
		if (state[i])
			continue;
		sp = 0;
		stack[sp++] = i;
		state[i] = 1;
		while (sp > 0) {
			size_t v = stack[sp - 1];

			if (cur[v] < start[v + 1] - start[v]) {
				size_t u = adj[start[v] + cur[v]++];

				if (!state[u]) {
					state[u] = 1;
					stack[sp++] = u;
				}
			} else {
				sp--;
				order[no++] = queue[v];
			}
		}
	}
	memcpy(queue, order, n * sizeof(*queue));
out:
	free(start);
	free(adj);
	free(stack);
	free(cur);
	free(order);
	free(state);
	return rc;
}

/* Every commit reachable from the tips, parents before children. */
static int
walk_commits(struct bundle *b, const unsigned char (*tips)[SCAN_OID_LEN],
    size_t ntips, int partial)
{
	size_t *queue = calloc(b->pack.n + 1, sizeof(*queue)), qh = 0, qt = 0, i;
	size_t *edges = NULL, nedge = 0, capedge = 0; /* (child, parent) */
	struct dynbuf dir, item;
	size_t boundary = 0;

	if (queue == NULL)
		return b->rc = al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_init(&dir, AL_MAX_PATH + 2);
	dynbuf_init(&item, 2 * AL_MAX_PATH);
	for (i = 0; i < ntips; i++) {
		const struct pack_obj *o = scan_pack_get(&b->pack, tips[i]);
		unsigned hops = 0;

		/* Annotated tags: their text is scanned, their target walked. */
		while (o != NULL && o->type == OBJ_TAG && hops++ < 16 &&
		    !mark_of(b, o)->visited) {
			unsigned char target[SCAN_OID_LEN];
			char hx[2 * SCAN_OID_LEN + 1];

			mark_of(b, o)->visited = 1;
			hexid(hx, o->oid);
			dynbuf_reset(&item);
			if (dynbuf_addf(&item, "%s" AL_MEMBER_SEP "%.12s", b->path,
			    hx) < 0 ||
			    scan_identity(b, dynbuf_str(&item), o) < 0)
				break;
			if (o->len < 7 + 2 * SCAN_OID_LEN ||
			    memcmp(o->data, "object ", 7) ||
			    scan_pack_oid_parse((const char *)o->data + 7,
			    2 * SCAN_OID_LEN, target) < 0) {
				bnote(b, AL_RULE_UNSCANNABLE, NULL, "a malformed tag "
				    "object");
				break;
			}
			o = scan_pack_get(&b->pack, target);
		}
		if (o == NULL) {
			if (!partial)
				bnote(b, AL_RULE_UNSCANNABLE, NULL, "a ref names an "
				    "object the bundle does not carry");
			continue;
		}
		if (o->type == OBJ_COMMIT && !mark_of(b, o)->visited) {
			mark_of(b, o)->visited = 1;
			queue[qt++] = (size_t)(o - b->pack.obj);
		}
	}
	/* Every commit first (its parents only), then each walked parents
	 * first, so that a file version is shown under the commit that
	 * brought it, whatever the refs. */
	for (i = 0; i < qt; i++)
		b->mark[queue[i]].qpos = i;
	while (qh < qt && b->rc == 0 && !b->bad) {
		const struct pack_obj *c = &b->pack.obj[queue[qh++]];
		unsigned char tree[SCAN_OID_LEN], (*parents)[SCAN_OID_LEN] = NULL;
		size_t np = 0;
		char hx[2 * SCAN_OID_LEN + 1];
		struct walk wk = {b, NULL, partial};

		if (commit_links(c, tree, &parents, &np) < 0) {
			free(parents);
			hexid(hx, c->oid);
			bnote(b, AL_RULE_UNSCANNABLE, NULL, "commit %s is malformed "
			    "(git fsck would reject it)", hx);
			break;
		}
		for (i = 0; i < np; i++) {
			const struct pack_obj *pc = scan_pack_get(&b->pack,
			    parents[i]);

			if (pc == NULL) {
				boundary++;
				missing(&wk, "parent commit", parents[i]);
				continue;
			}
			if (pc->type != OBJ_COMMIT)
				continue;
			if (!mark_of(b, pc)->visited) {
				mark_of(b, pc)->visited = 1;
				mark_of(b, pc)->qpos = qt;
				queue[qt++] = (size_t)(pc - b->pack.obj);
			}
			if (nedge == capedge) {
				size_t *v = reallocarray(edges, capedge ? 2 * capedge :
				    256, 2 * sizeof(*v));

				if (v == NULL) {
					b->rc = al_err_set(AL_ENOMEM, "out of memory");
					break;
				}
				edges = v;
				capedge = capedge ? 2 * capedge : 256;
			}
			edges[2 * nedge] = qh - 1;
			edges[2 * nedge + 1] = mark_of(b, pc)->qpos;
			nedge++;
		}
		free(parents);
	}
	if (b->rc == 0 && !b->bad && topo_order(qt, edges, nedge, queue) < 0)
		b->rc = al_err_set(AL_ENOMEM, "out of memory");
	free(edges);
	edges = NULL;
	for (qh = 0; qh < qt && b->rc == 0 && !b->bad; qh++) {
		const struct pack_obj *c = &b->pack.obj[queue[qh]];
		unsigned char tree[SCAN_OID_LEN], (*parents)[SCAN_OID_LEN] = NULL;
		size_t np = 0;
		char hx[2 * SCAN_OID_LEN + 1];
		struct walk wk = {b, NULL, partial};
		const struct pack_obj *t;

		hexid(hx, c->oid);
		hx[12] = '\0';
		wk.commit = hx;
		(void)commit_links(c, tree, &parents, &np);  /* read above */
		free(parents);
		dynbuf_reset(&item);
		if (dynbuf_addf(&item, "%s" AL_MEMBER_SEP "%s", b->path, hx) < 0)
			b->rc = al_err_set(AL_ENOMEM, "out of memory");
		if (b->rc == 0)
			scan_identity(b, dynbuf_str(&item), c);
		if ((t = scan_pack_get(&b->pack, tree)) == NULL)
			missing(&wk, "tree", tree);
		else if (t->type != OBJ_TREE)
			bnote(b, AL_RULE_UNSCANNABLE, NULL, "commit %s names a %s as "
			    "its tree", hx, scan_pack_type_name(t->type));
		else if (!seen_add(b, tree, "") && b->rc == 0) {
			dynbuf_reset(&dir);
			walk_tree(&wk, t, &dir, 0);
		}
	}
	(void)boundary;
	free(queue);
	free(edges);
	dynbuf_free(&dir);
	dynbuf_free(&item);
	return b->rc;
}

/* Header lines: capabilities (v3), prerequisites, refs. */
static int
read_header(struct bundle *b, const char *data, size_t len, size_t *pack_at,
    unsigned char (**tips)[SCAN_OID_LEN], size_t *ntips, size_t *nprereq,
    int *filtered)
{
	const char *p = data + 16, *end = data + len, *nl;
	int v3 = data[3] == '3';
	size_t cap = 0;

	*tips = NULL;
	*ntips = *nprereq = 0;
	*filtered = 0;
	for (;;) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "the bundle "
			    "header does not end (truncated?)");
		n = (size_t)(nl - p);
		if (n == 0)
			break;
		if (v3 && p[0] == '@') {
			if (al_starts(p, n, "@object-format=")) {
				if (!(n == 19 && memcmp(p + 15, "sha1", 4) == 0))
					return bnote(b, AL_RULE_UNSCANNABLE, NULL, "object "
					    "format %.*s: airlock reads SHA-1 repositories "
					    "only", (int)(n - 15), p + 15);
			} else if (al_starts(p, n, "@filter=")) {
				*filtered = 1;
			} else {
				return bnote(b, AL_RULE_UNSCANNABLE, NULL, "unknown "
				    "bundle capability %.*s: git would refuse it",
				    (int)(n > 64 ? 64 : n), p);
			}
		} else if (p[0] == '-') {
			unsigned char oid[SCAN_OID_LEN];

			if (n < 1 + 2 * SCAN_OID_LEN ||
			    scan_pack_oid_parse(p + 1, 2 * SCAN_OID_LEN, oid) < 0 ||
			    (n > 1 + 2 * SCAN_OID_LEN && p[1 + 2 * SCAN_OID_LEN] != ' '))
				goto bad;
			(*nprereq)++;
		} else {
			if (n < 2 * SCAN_OID_LEN + 2 || p[2 * SCAN_OID_LEN] != ' ')
				goto bad;
			if (*ntips == AL_BUNDLE_MAX_REFS)
				return bnote(b, AL_RULE_UNSCANNABLE, NULL, "more than "
				    "%u refs", AL_BUNDLE_MAX_REFS);
			if (*ntips == cap) {
				unsigned char (*v)[SCAN_OID_LEN];

				cap = cap ? 2 * cap : 16;
				if ((v = realloc(*tips, cap * SCAN_OID_LEN)) == NULL)
					return b->rc = al_err_set(AL_ENOMEM, "out of "
					    "memory");
				*tips = v;
			}
			if (scan_pack_oid_parse(p, 2 * SCAN_OID_LEN, (*tips)[*ntips]) < 0)
				goto bad;
			(*ntips)++;
		}
		p = nl + 1;
	}
	if (*ntips == 0)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "the bundle names no "
		    "refs: git fetch would take nothing from it");
	*pack_at = (size_t)(nl + 1 - data);
	return 0;
bad:
	return bnote(b, AL_RULE_UNSCANNABLE, NULL, "a malformed bundle header "
	    "line: %.*s", (int)((nl - p) > 80 ? 80 : (nl - p)), p);
}

int
scan_bundle_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out)
{
	struct bundle b;
	unsigned char (*tips)[SCAN_OID_LEN] = NULL;
	size_t ntips = 0, nprereq = 0, pack_at = 0, i;
	int filtered = 0, r;
	char why[256];

	memset(&b, 0, sizeof(b));
	b.w = w;
	b.out = out;
	b.path = path;
	dynbuf_init(&b.shown, 3 * AL_MAX_PATH);
	if ((b.md = EVP_MD_CTX_new()) == NULL) {
		b.rc = al_err_set(AL_ENOMEM, "out of memory");
		goto done;
	}
	if (len < 16 || (memcmp(data, "# v2 git bundle\n", 16) != 0 &&
	    memcmp(data, "# v3 git bundle\n", 16) != 0)) {
		bnote(&b, AL_RULE_UNSCANNABLE, NULL, "not a git bundle (v2 or v3)");
		goto done;
	}
	if (read_header(&b, data, len, &pack_at, &tips, &ntips, &nprereq,
	    &filtered) != 0 || b.bad)
		goto done;
	r = scan_pack_index(&b.pack, (const unsigned char *)data + pack_at,
	    len - pack_at);
	if (r == AL_EINVAL) {
		/* (A copy: reporting it may set the message again.) */
		snprintf(why, sizeof(why), "%s", al_err_msg());
		bnote(&b, AL_RULE_UNSCANNABLE, NULL, "%s", why);
	} else if (r < 0) {
		b.rc = r;
	} else if ((b.mark = calloc(b.pack.n + 1, sizeof(*b.mark))) == NULL) {
		b.rc = al_err_set(AL_ENOMEM, "out of memory");
	}
	if (b.rc != 0 || b.bad)
		goto done;
	if (nprereq > 0 || filtered)
		bnote(&b, AL_RULE_BUNDLE_INCOMPLETE, NULL, "%s%zu prerequisite "
		    "commit%s: the history below them is not in the bundle",
		    filtered ? "a filtered (partial) bundle; " : "", nprereq,
		    nprereq == 1 ? "" : "s");
	if (b.pack.unresolved > 0) {
		struct dynbuf ins;
		size_t k;

		bnote(&b, AL_RULE_UNSCANNABLE, NULL, "a thin bundle: %zu of its "
		    "objects are deltas against objects it does not carry, so "
		    "the files and directories they make cannot be rebuilt from "
		    "it; only the bytes those deltas insert were scanned, and "
		    "files below such a directory lose their paths. Send the "
		    "commits as `git format-patch` output, or a bundle without "
		    "prerequisites, to have them read whole", b.pack.unresolved);
		b.bad = 0;        /* what is here is still scanned */
		dynbuf_init(&ins, AL_BUNDLE_MAX_INFLATED);
		for (k = 0; k < b.pack.n && b.rc == 0; k++) {
			const struct pack_obj *d = &b.pack.obj[k];

			if (d->resolved)
				continue;
			dynbuf_reset(&ins);
			dynbuf_reset(&b.shown);
			if (scan_delta_inserts(d->data, d->len, &ins) < 0 ||
			    dynbuf_addf(&b.shown, "%s" AL_MEMBER_SEP "delta@%zu", path,
			    d->off) < 0)
				continue;
			b.rc = scan_mem(w, ins.data ? ins.data : "", ins.len,
			    dynbuf_str(&b.shown), "", out);
		}
		dynbuf_free(&ins);
	}
	if (b.rc == 0)
		walk_commits(&b, (const unsigned char (*)[SCAN_OID_LEN])tips, ntips,
		    nprereq > 0 || filtered || b.pack.unresolved > 0);
	/* Blobs no commit reaches are stored by git fetch all the same. */
	for (i = 0; i < b.pack.n && b.rc == 0 && !b.bad; i++) {
		const struct pack_obj *o = &b.pack.obj[i];
		char hx[2 * SCAN_OID_LEN + 1];

		if (o->type != OBJ_BLOB || !o->resolved || b.mark[i].scanned)
			continue;
		hexid(hx, o->oid);
		dynbuf_reset(&b.shown);
		if (dynbuf_addf(&b.shown, "%s" AL_MEMBER_SEP
		    "unreachable-blob-%.12s", path, hx) < 0)
			b.rc = al_err_set(AL_ENOMEM, "out of memory");
		else
			b.rc = scan_mem(w, (const char *)o->data, o->len,
			    dynbuf_str(&b.shown), "", out);
	}
done:
	scan_pack_free(&b.pack);
	free(b.mark);
	free(b.seen);
	free(tips);
	EVP_MD_CTX_free(b.md);
	dynbuf_free(&b.shown);
	return b.rc;
}
