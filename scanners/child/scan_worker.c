/*
 * scan_worker.c - the per-thread worker and the one pass over a file:
 * Hyperscan hits, PCRE2 confirmation around each hit, the filters, and
 * findings with their excerpts; the items collected for provenance.
 *
 * How a file is read. Bytes arrive in chunks of AL_SCAN_CHUNK into a buffer
 * that also keeps the last KEEP (2 * AL_SCAN_WINDOW) bytes of the previous
 * chunk. Every chunk goes through the one Hyperscan stream database (all
 * content patterns and all keywords together). Hyperscan reports only where a
 * match ends, so each hit is confirmed by the rule's own PCRE2 regex, run on
 * a window of at most AL_SCAN_WINDOW bytes each side of that end; PCRE2's
 * match gives the start, the captures and so the secret. A hit too close to
 * the end of the buffer to have its window is held until the next chunk
 * arrives. Memory is thus O(chunk + window), whatever the file size.
 *
 * Dedupe. A rule's confirmed match covers every later hit of the same rule
 * that ends inside it (Hyperscan reports every end of `[a-z]{20,}`); and a
 * rule reports at most once per line.
 *
 * Positions are kept by scan_pos.c, a file's findings are finished
 * (redacted, fingerprinted) by scan_redact.c, and encoded blobs are
 * decoded and scanned again by scan_blob.c.
 *
 * Trust: the content is hostile. A worker runs in the sandboxed scan child
 * (child.c), which makes it before the sandbox closes; the only
 * in-process uses are `--no-sandbox`, a debugging mode that warns, and
 * `airlock rules test`, which scans the operator's own rule examples.
 * PCRE2 runs with match and depth limits, findings per file are capped
 * (AL_MAX_FINDINGS_PER_FILE), and every failure makes the file unscannable
 * instead of clean.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <hs.h>
#include <openssl/evp.h>
#include <pcre2.h>

#include "al_limits.h"
#include "bytes16.h"
#include "err.h"
#include "scan_alias.h"
#include "scan_check.h"
#include "scan_decode.h"
#include "scan_engine_int.h"
#include "scan_norm.h"
#include "scan_xor.h"
#include "scan_pickle.h"
#include "scan_read.h"
#include "scan_type.h"
#include "util.h"

/* ---- per-thread worker --------------------------------------------------- */

void
scan_worker_free(struct scan_worker *w)
{
	if (w == NULL)
		return;
	hs_free_scratch(w->scratch);
	pcre2_match_data_free(w->md);
	pcre2_match_data_free(w->md_allow);
	pickle_walk_free(w->pickle);
	pcre2_match_context_free(w->mctx);
	pcre2_match_context_free(w->mctx_allow);
	pcre2_jit_stack_free(w->jit);
	free(w->buf);
	free(w->last_end);
	free(w->last_line);
	free(w->done);
	free(w->active);
	free(w->glob_memo);
	free(w->pending);
	free(w->spans);
	free(w->meta);
	free(w->dec);
	scan_typer_free(w->typer);
	scan_worker_free(w->child);
	EVP_MD_CTX_free(w->imd);
	free(w->ibuf);
	free(w->crbuf);
	free(w->rbuf);
	free(w->sb);
	free(w->strings_rules);
	free(w->nv);
	free(w->atoms);
	free(w->ftext);
	free(w->dfirst);
	free(w->dlast);
	free(w->did);
	free(w->drules);
	free(w->dhits);
	free(w);
}

void
scan_item_list_free(struct scan_item_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].type);
		free(l->v[i].content);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
scan_worker_collect_items(struct scan_worker *w, struct scan_item_list *items)
{
	if (items != NULL && w->imd == NULL &&
	    (w->imd = EVP_MD_CTX_new()) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	w->items = items;
	w->kept_total = 0;
	return 0;
}

void
scan_worker_report_atoms(struct scan_worker *w)
{
	w->report_atoms = 1;
}

void
scan_worker_item_mode(struct scan_worker *w, uint32_t mode)
{
	w->item_mode = mode;
}

/* Appends the item just read. */
static int
item_push(struct scan_worker *w, const char *path, uint64_t size, int whole,
    int binary)
{
	struct scan_item_list *l = w->items;
	struct scan_item *it;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct scan_item *v = reallocarray(l->v, cap, sizeof(*v));

		if (v == NULL)
			return AL_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	it = &l->v[l->n];
	memset(it, 0, sizeof(*it));
	it->mode = w->item_mode;
	it->size = size;
	if (EVP_DigestFinal_ex(w->imd, md, &mdlen) == 1 && mdlen == 32 && whole)
		al_hex(it->sha256, md, mdlen);
	it->path = strdup(path);
	it->type = strdup(w->mime ? w->mime : binary ?
	    "application/octet-stream" : "text/plain");
	if (it->path == NULL || it->type == NULL) {
		free(it->path);
		free(it->type);
		return AL_ENOMEM;
	}
	/* Text read whole, within the caps: its bytes go to the reviewer. */
	if (whole && !binary && !w->ibuf_over && it->sha256[0] != '\0' &&
	    strncmp(it->type, "text/", 5) == 0 && w->ibuf_len == size &&
	    w->ibuf_len <= AL_ARTIFACT_CONTENT_MAX - w->kept_total) {
		if ((it->content = malloc(w->ibuf_len ? w->ibuf_len : 1)) == NULL) {
			free(it->path);
			free(it->type);
			return AL_ENOMEM;
		}
		if (w->ibuf_len > 0)
			memcpy(it->content, w->ibuf, w->ibuf_len);
		it->content_len = w->ibuf_len;
		w->kept_total += w->ibuf_len;
	}
	l->n++;
	return 0;
}

/* Keeps a text item's bytes as they are read, up to the member cap. */
static void
item_keep(struct scan_worker *w, const char *p, size_t n)
{
	if (w->ibuf_over)
		return;
	if (n > AL_MEMBER_CONTENT_MAX - w->ibuf_len) {
		w->ibuf_over = 1;
		return;
	}
	if (w->ibuf == NULL && (w->ibuf = malloc(AL_MEMBER_CONTENT_MAX)) == NULL) {
		w->ibuf_over = 1; /* not kept is safe: it is listed anyway */
		return;
	}
	memcpy(w->ibuf + w->ibuf_len, p, n);
	w->ibuf_len += n;
}

int
scan_worker_enable_types(struct scan_worker *w)
{
	return w->typer != NULL ? 0 : scan_typer_new(&w->typer);
}

int
scan_worker_new(struct scan_worker **out, const struct scan_engine *e)
{
	struct scan_worker *w;
	size_t nr = e->rs->nrules ? e->rs->nrules : 1;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	w->e = e;
	if ((e->db != NULL &&
	    hs_alloc_scratch(e->db, &w->scratch) != HS_SUCCESS) ||
	    (e->db_light != NULL &&
	    hs_alloc_scratch(e->db_light, &w->scratch) != HS_SUCCESS) ||
	    (e->db_rest != NULL &&
	    hs_alloc_scratch(e->db_rest, &w->scratch) != HS_SUCCESS)) {
		scan_worker_free(w);
		return al_err_set(AL_EENGINE,
		    "Hyperscan scratch allocation failed");
	}
	w->md = pcre2_match_data_create(e->max_groups + 1, NULL);
	w->md_allow = pcre2_match_data_create(1, NULL);
	w->mctx = pcre2_match_context_create(NULL);
	w->mctx_allow = pcre2_match_context_create(NULL);
	w->jit = pcre2_jit_stack_create(32 * 1024, 512 * 1024, NULL);
	w->buf = malloc(KEEP + AL_SCAN_CHUNK);
	w->last_end = calloc(nr, sizeof(*w->last_end));
	w->last_line = calloc(nr, sizeof(*w->last_line));
	w->done = calloc(nr, sizeof(*w->done));
	w->active = calloc(nr, 1);
	w->glob_memo = malloc(e->nglobs ? e->nglobs : 1);
	w->pending = calloc(AL_MAX_PENDING_HITS, sizeof(*w->pending));
	w->dec = malloc(scan_decoded_max(AL_DECODE_MAX_BLOB));
	w->dfirst = malloc(nr * sizeof(*w->dfirst));
	w->dlast = calloc(nr, sizeof(*w->dlast));
	w->did = calloc(nr, sizeof(*w->did));
	w->drules = calloc(nr, sizeof(*w->drules));
	w->dhits = calloc(DEFER_HITS, sizeof(*w->dhits));
	if (!w->md || !w->md_allow || !w->mctx || !w->mctx_allow || !w->jit ||
	    !w->buf ||
	    !w->last_end || !w->last_line || !w->done || !w->active ||
	    !w->glob_memo ||
	    !w->pending ||
	    !w->dec || !w->dfirst || !w->dlast || !w->did || !w->drules ||
	    !w->dhits) {
		scan_worker_free(w);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	memset(w->dfirst, 0xff, nr * sizeof(*w->dfirst));
	pcre2_set_match_limit(w->mctx, AL_PCRE2_MATCH_LIMIT);
	pcre2_set_depth_limit(w->mctx, AL_PCRE2_DEPTH_LIMIT);
	pcre2_jit_stack_assign(w->mctx, NULL, w->jit);
	pcre2_set_match_limit(w->mctx_allow, AL_PCRE2_MATCH_LIMIT);
	pcre2_set_depth_limit(w->mctx_allow, AL_PCRE2_DEPTH_LIMIT);
	pcre2_jit_stack_assign(w->mctx_allow, NULL, w->jit);
	*out = w;
	return 0;
}

/* ---- findings from content ---------------------------------------------- */

void
eng_unscannable(struct scan_worker *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->stop = 1;
	if (eng_meta_reserve(w, (size_t)eng_file_findings(w) + 1) < 0 ||
	    finding_add_builtin(w->out, AL_RULE_UNSCANNABLE, w->path, msg) < 0)
		w->nomem = 1;
	else
		memset(&w->meta[eng_file_findings(w) - 1], 0, sizeof(*w->meta));
}

int
eng_meta_reserve(struct scan_worker *w, size_t n)
{
	if (n > w->meta_cap) {
		size_t ncap = w->meta_cap ? w->meta_cap * 2 : 64;
		struct fmeta *nv;

		while (ncap < n)
			ncap *= 2;
		nv = realloc(w->meta, ncap * sizeof(*nv));
		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		w->meta = nv;
		w->meta_cap = ncap;
	}
	return 0;
}

/*
 * A new finding of the current file, with its meta zeroed; NULL when the
 * per-file cap is reached (the file is then unscannable) or memory ran out.
 */
struct finding *
eng_new_finding(struct scan_worker *w, struct fmeta **meta_out)
{
	struct finding *f;

	if ((size_t)eng_file_findings(w) >= AL_MAX_FINDINGS_PER_FILE) {
		eng_unscannable(w, "more than %u findings in this file; the "
		    "rest were not examined", AL_MAX_FINDINGS_PER_FILE);
		return NULL;
	}
	if (eng_meta_reserve(w, (size_t)eng_file_findings(w) + 1) < 0 ||
	    eng_finding_push(w->out, &f) < 0) {
		w->nomem = w->stop = 1;
		return NULL;
	}
	*meta_out = &w->meta[eng_file_findings(w) - 1];
	memset(*meta_out, 0, sizeof(**meta_out));
	return f;
}

int
eng_span_push(struct scan_worker *w, uint64_t s, uint64_t e)
{
	if (w->nspans == w->spans_cap) {
		size_t ncap = w->spans_cap ? w->spans_cap * 2 : 16;
		struct span *nv = realloc(w->spans, ncap * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		w->spans = nv;
		w->spans_cap = ncap;
	}
	w->spans[w->nspans].s = s;
	w->spans[w->nspans].e = e;
	w->nspans++;
	return 0;
}

/* Runs the rule's check, if any, on the line around the match [s, t). */
static int
check_passes(const struct scan_worker *w, const struct rule *r, uint64_t s,
    uint64_t t)
{
	const char *base = w->buf - w->buf_off, *nl;
	uint64_t buf_end = w->buf_off + w->buf_len, ls, le;

	if (r->check == 0)
		return 1;
	ls = s > w->buf_off + AL_SCAN_WINDOW ? s - AL_SCAN_WINDOW : w->buf_off;
	nl = memrchr(base + ls, '\n', s - ls);
	if (nl != NULL)
		ls = (uint64_t)(nl - base) + 1;
	le = t + AL_SCAN_WINDOW < buf_end ? t + AL_SCAN_WINDOW : buf_end;
	nl = memchr(base + s, '\n', le - s);
	if (nl != NULL)
		le = (uint64_t)(nl - base);
	if (t > le)
		t = le;
	return scan_check_run(r->check, (const unsigned char *)base + ls,
	    le - ls, s - ls, t - ls, ls == 0);
}

/* Does the secret pass the rule's entropy floor and allow-list? */
static int
secret_counts(struct scan_worker *w, const struct rule *r, const char *sec,
    size_t n)
{
	size_t i;

	if (r->entropy > 0 && al_entropy((const unsigned char *)sec, n) <
	    r->entropy)
		return 0;
	for (i = 0; i < r->allow_stopwords.n; i++)
		if (al_memcasemem(sec, n, r->allow_stopwords.v[i],
		    strlen(r->allow_stopwords.v[i])) != NULL)
			return 0;
	for (i = 0; i < r->allow_regexes.n; i++)
		if (pcre2_match(r->allow_re[i], (PCRE2_SPTR)sec, n, 0, 0,
		    w->md_allow, w->mctx_allow) >= 0)
			return 0;
	return 1;
}

/* The most bytes a match of rule ri spans, as far as a hit is confirmed. */
static uint64_t
eng_width(const struct scan_worker *w, size_t ri)
{
	const struct rule *r = w->e->rs->rules[ri];

	return r->max_width < AL_SCAN_WINDOW ? r->max_width : AL_SCAN_WINDOW;
}

/* ---- the second stage (scan_flow.h) ---------------------------------- */

static void defer_drop(struct scan_worker *w);
static void defer_resolve(struct scan_worker *w, size_t len, int whole);
static int cond_possible(const struct scan_worker *w, uint64_t t);
static uint64_t atom_tags(const struct scan_worker *w);

/* Does the file have conditions to decide (and so atoms to keep)? */
static int
flow_on(const struct scan_worker *w)
{
	return w->e->ncond > 0 && !w->strings_only && !w->atoms_up &&
	    !AL_FIRST_STAGE_ONLY;
}

/* Records an atom [s, t) on line `line`. */
static void
atom_push(struct scan_worker *w, uint64_t s, uint64_t t, uint64_t line,
    uint64_t tags, size_t ri)
{
	struct flow_atom *a;

	if (!flow_on(w))
		return;
	if (w->natoms == AL_FLOW_MAX_ATOMS) {
		w->atoms_over = 1;
		return;
	}
	if (w->natoms == w->atoms_cap) {
		size_t ncap = w->atoms_cap ? w->atoms_cap * 2 : 64;
		struct flow_atom *nv = realloc(w->atoms, ncap * sizeof(*nv));

		if (nv == NULL) {
			w->nomem = w->stop = 1;
			return;
		}
		w->atoms = nv;
		w->atoms_cap = ncap;
	}
	a = &w->atoms[w->natoms++];
	a->off = s;
	a->end = t > s ? t : s + 1;
	a->line = line;
	a->tags = tags;
	a->rule = (unsigned)ri;
}

/* The alias and XOR views read a file's own text: not a decoded or nested
 * one, not the strings of a binary, not the atoms' own scan. */
static int
views_on(const struct scan_worker *w)
{
	return w->depth == 0 && !w->strings_only && !w->atoms_up &&
	    !AL_FIRST_STAGE_ONLY;
}

/* Keeps the text the rules read, for the conditions and the alias and XOR
 * views (to the cap). */
static void
ftext_keep(struct scan_worker *w, const char *p, size_t n)
{
	if (!(flow_on(w) || views_on(w)) || w->ftext_over || n == 0)
		return;
	if (w->ftext_len + n > AL_FLOW_TEXT_MAX) {
		/* From here on atoms are confirmed as they come. */
		if (w->ndrules > 0)
			defer_resolve(w, w->ftext_len, 0);
		w->deferring = 0;
		w->ftext_over = 1;
		return;
	}
	if (w->ftext_len + n > w->ftext_cap) {
		size_t ncap = w->ftext_cap ? w->ftext_cap : 64 * 1024;
		char *nb;

		while (ncap < w->ftext_len + n)
			ncap *= 2;
		if (ncap > AL_FLOW_TEXT_MAX)
			ncap = AL_FLOW_TEXT_MAX;
		if ((nb = realloc(w->ftext, ncap)) == NULL) {
			w->nomem = w->stop = 1;
			return;
		}
		w->ftext = nb;
		w->ftext_cap = ncap;
	}
	memcpy(w->ftext + w->ftext_len, p, n);
	w->ftext_len += n;
}

static int
cmp_atom(const void *a, const void *b)
{
	const struct flow_atom *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	/* A total order: the same atoms, confirmed in any order, sort
	 * the same. */
	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->tags < y->tags ? -1 : x->tags > y->tags;
}

struct flow_ctx {
	struct scan_worker *w;
	const struct flow_cond *conds;
};

/* "python: os.environ (line 3)": what an atom's rule says of itself. */
static const char *
atom_title(const struct scan_worker *w, unsigned ri)
{
	return ri < w->e->rs->nrules ? w->e->rs->rules[ri]->title : "?";
}

unsigned
scan_worker_stage(const struct scan_worker *w)
{
	return w->stage;
}

static int
on_flow(void *ctx, const struct flow_report *r)
{
	struct flow_ctx *fc = ctx;
	struct scan_worker *w = fc->w;
	const struct flow_cond *c = &fc->conds[r->cond];
	const struct rule *rule = w->e->rs->rules[c->rule];
	const struct rule_set *rs = w->e->rs;
	struct finding *f;
	struct fmeta *m;
	struct dynbuf x;
	const char *ls;
	uint64_t col = 1;
	size_t k;
	int rc;

	if ((f = eng_new_finding(w, &m)) == NULL)
		return 1;
	dynbuf_init(&x, 4 * AL_EXCERPT_BYTES);
	if (c->kind == FLOW_DATA) {
		rc = dynbuf_addf(&x, "%s (line %llu) reaches %s (line %llu)",
		    r->from_rule < rs->nrules &&
		    !(rs->rules[r->from_rule]->tag_bits & c->from) ?
		    "a value it derives from" : atom_title(w, r->from_rule),
		    (unsigned long long)r->from_line,
		    atom_title(w, r->to_rule), (unsigned long long)r->line);
		if (rc == 0 && r->through[0])
			rc = dynbuf_addf(&x, " through %s", r->through);
		if (rc == 0 && r->unfollowed)
			rc = dynbuf_addf(&x, "; by lines, not followed through "
			    "the data: the file is larger than %u MiB",
			    AL_FLOW_TEXT_MAX >> 20);
	} else {
		rc = dynbuf_addf(&x, "lines %llu to %llu: ",
		    (unsigned long long)r->from_line,
		    (unsigned long long)r->line);
		for (k = 0; rc == 0 && k < c->nall; k++)
			rc = dynbuf_addf(&x, "%s%s", k == 0 ? "" :
			    c->ordered ? " then " : ", ",
			    c->all[k] < rs->ntags ? rs->tag_names[c->all[k]] :
			    "?");
	}
	if (rc < 0)
		w->nomem = w->stop = 1;
	f->rule = rule;
	f->severity = rule->severity;
	/* Far apart, or through many names: the path is likelier one no run
	 * takes; the reviewer still sees it. */
	if (c->kind == FLOW_DATA && (r->minified || (!r->unfollowed && (
	    (r->line > r->from_line ? r->line - r->from_line :
	    r->from_line - r->line) > FLOW_FAR_LINES ||
	    r->hops > FLOW_FAR_HOPS))) && f->severity > AL_SEV_LOW) {
		f->severity = AL_SEV_LOW;
		if (dynbuf_addf(&x, " (low: %s)", r->minified ?
		    "minified code, whose short names are reused" :
		    r->hops > FLOW_FAR_HOPS ? "through many names" :
		    "source and sink far apart") < 0)
			w->nomem = w->stop = 1;
	}
	if (r->lowered && f->severity > AL_SEV_LOW) {
		f->severity = AL_SEV_LOW;
		if (dynbuf_addf(&x, " (low: verified between the download and "
		    "the run; check what it pins)") < 0)
			w->nomem = w->stop = 1;
	}
	f->line = r->line;
	/* The column of the sink, when its line is in the kept text. */
	if (r->off < w->ftext_len) {
		ls = memrchr(w->ftext, '\n', (size_t)r->off);
		ls = ls ? ls + 1 : w->ftext;
		for (; ls < w->ftext + r->off; ls++)
			col += ((unsigned char)*ls & 0xc0) != 0x80;
	}
	f->column = col;
	f->path = strdup(w->path);
	f->excerpt = dynbuf_take(&x, NULL);
	if (f->path == NULL || f->excerpt == NULL)
		w->nomem = w->stop = 1;
	/* Stable across line moves: what flowed, not where. */
	m->decoded = 1;
	{
		char key[512];

		snprintf(key, sizeof(key), "%s|%s|%s", rule->id,
		    rs->rules[r->from_rule < rs->nrules ? r->from_rule : 0]->id,
		    rs->rules[r->to_rule < rs->nrules ? r->to_rule : 0]->id);
		al_sha256_hex(m->hash, key, strlen(key));
	}
	return w->stop ? 1 : 0;
}

/* Decides the file's conditions from its atoms (at the file's end). */
static void
flow_decide(struct scan_worker *w)
{
	const struct scan_engine *e = w->e;
	struct flow_cond *cv;
	struct flow_ctx fc;
	size_t i, n = 0;

	if (!flow_on(w) || w->natoms == 0 || w->stop)
		return;
	if (w->atoms_over) {
		eng_unscannable(w, "more than %u places that read or send "
		    "data (atoms): the conditions over the file cannot be "
		    "decided", AL_FLOW_MAX_ATOMS);
		return;
	}
	if (!cond_possible(w, atom_tags(w)))
		return;
	if ((cv = malloc(e->ncond * sizeof(*cv))) == NULL) {
		w->nomem = w->stop = 1;
		return;
	}
	for (i = 0; i < e->ncond; i++)
		if (w->active[e->conds[i].rule])
			cv[n++] = e->conds[i];
	qsort(w->atoms, w->natoms, sizeof(*w->atoms), cmp_atom);
	if (n > 0)
		w->stage |= SCAN_STAGE_FLOW;
	fc.w = w;
	fc.conds = cv;
	if (n > 0 && scan_flow_run(w->ftext ? w->ftext : "", w->ftext_len,
	    !w->ftext_over && w->eof, scan_flow_lang(w->relpath), w->atoms,
	    w->natoms, cv, n, on_flow, &fc) < 0)
		w->nomem = w->stop = 1;
	free(cv);
}

/* Records a confirmed match [s, t) of rule ri; sec is the secret span. */
static void
emit(struct scan_worker *w, size_t ri, uint64_t s, uint64_t t, uint64_t sec_s,
    uint64_t sec_e)
{
	const struct rule *r = w->e->rs->rules[ri];
	const char *base = w->buf - w->buf_off;
	uint64_t buf_end = w->buf_off + w->buf_len, lo, ex_s, ex_e;
	struct finding *f;
	struct fmeta *m;
	const char *nl;

	/* Every secret is masked, also those a deduped finding would show. */
	if (strcmp(r->category, "secret") == 0 &&
	    eng_span_push(w, sec_s, sec_e) < 0) {
		w->nomem = w->stop = 1;
		return;
	}
	eng_cursor_to(w, s);
	if (w->last_line[ri] == w->cur_line)
		return; /* one finding per (rule, file, line) */
	w->last_line[ri] = w->cur_line;
	if (r->tag_bits && !w->atoms_up)
		atom_push(w, s, t, w->cur_line, r->tag_bits, ri);
	if (r->atom && !w->atoms_up && !w->report_atoms)
		return; /* an atom is no finding by itself */
	if ((f = eng_new_finding(w, &m)) == NULL)
		return;
	f->rule = r;
	f->severity = r->severity;
	f->line = w->cur_line;
	f->column = w->cur_col + 1;
	/* The excerpt: the line around s, at most AL_EXCERPT_BYTES. */
	lo = s > w->buf_off + AL_EXCERPT_BYTES / 2 ? s - AL_EXCERPT_BYTES / 2 :
	    w->buf_off;
	nl = memrchr(base + lo, '\n', s - lo);
	ex_s = nl ? (uint64_t)(nl - base) + 1 : lo;
	m->ex_head = nl == NULL && !(lo == 0 ||
	    (lo == w->buf_off && w->bol_at_start));
	ex_e = ex_s + AL_EXCERPT_BYTES < buf_end ? ex_s + AL_EXCERPT_BYTES :
	    buf_end;
	nl = memchr(base + s, '\n', ex_e - s);
	if (nl != NULL)
		ex_e = (uint64_t)(nl - base);
	m->ex_tail = nl == NULL && !(ex_e == buf_end && w->eof);
	if (ex_e > ex_s && base[ex_e - 1] == '\r')
		ex_e--;
	m->ex_abs = ex_s;
	m->ex_len = (size_t)(ex_e - ex_s);
	f->excerpt = malloc(ex_e - ex_s + 1);
	f->path = strdup(w->path);
	if (f->excerpt == NULL || f->path == NULL) {
		w->nomem = w->stop = 1;
		return;
	}
	memcpy(f->excerpt, base + ex_s, ex_e - ex_s);
	f->excerpt[ex_e - ex_s] = '\0';
	al_sha256_hex(m->hash, base + s, t - s);
}

/*
 * Confirms a hit of expression id ending at end: runs the rule's regex on the
 * window around it and reports every match there that survives the filters.
 *
 * A keyword hit is confirmed on its line. A pattern or factor hit is
 * confirmed on [end - W, end + W], W being the rule's longest match (capped
 * by AL_SCAN_WINDOW): every match that contains the hit lies inside. What a
 * search has already covered for the rule (done[]) is not searched again, so
 * frequent hits cost no more than one pass of the regex over the file.
 */
static void
confirm_from(struct scan_worker *w, unsigned id, uint64_t from, uint64_t end)
{
	const struct scan_engine *e = w->e;
	size_t ri = e->expr_rule[id];
	const struct rule *r = e->rs->rules[ri];
	int kw = e->expr_kw[id] == EXPR_KEYWORD;
	uint64_t buf_end = w->buf_off + w->buf_len, ws, we, pos;
	const char *base = w->buf - w->buf_off;
	uint64_t width = eng_width(w, ri);
	PCRE2_SIZE *ov;
	uint32_t opts = 0;

	if (!w->active[ri] || end <= w->last_end[ri] || w->stop)
		return;
	if (kw) {
		uint64_t lo = end > w->buf_off + AL_SCAN_WINDOW ?
		    end - AL_SCAN_WINDOW : w->buf_off;
		uint64_t hi = end + AL_SCAN_WINDOW < buf_end ?
		    end + AL_SCAN_WINDOW : buf_end;
		const char *nl = memrchr(base + lo, '\n', end - lo);

		ws = nl ? (uint64_t)(nl - base) + 1 : lo;
		nl = memchr(base + end, '\n', hi - end);
		we = nl ? (uint64_t)(nl - base) : hi;
		w->last_end[ri] = we;
		pcre2_set_offset_limit(w->mctx, PCRE2_UNSET);
	} else {
		/* A match containing the hit starts at or before it: the
		 * search may not start later (offset limit), and matches that
		 * start before the previous hit were found by its search. */
		ws = from > w->buf_off ? from : w->buf_off;
		if (ws < w->done[ri])
			ws = w->done[ri];
		we = end + width < buf_end ? end + width : buf_end;
		if (ws > end)
			return;
		w->done[ri] = end;
		pcre2_set_offset_limit(w->mctx, end - w->buf_off);
	}
	if (ws > 0 && (ws > w->buf_off ? base[ws - 1] != '\n' :
	    !w->bol_at_start))
		opts |= PCRE2_NOTBOL;
	if (we < buf_end ? base[we] != '\n' : !w->eof)
		opts |= PCRE2_NOTEOL;
	ov = pcre2_get_ovector_pointer(w->md);
	for (pos = ws; pos < we && (kw || pos <= end) && !w->stop;) {
		uint64_t s, t, sec_s, sec_e;
		unsigned g;
		int rc;

		rc = pcre2_match(r->re, (PCRE2_SPTR)w->buf, we - w->buf_off,
		    pos - w->buf_off, opts, w->md, w->mctx);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0) {
			PCRE2_UCHAR msg[128];

			pcre2_get_error_message(rc, msg, sizeof(msg));
			eng_cursor_to(w, pos);
			eng_unscannable(w, "rule %s could not be evaluated "
			    "near line %llu: %s", r->id,
			    (unsigned long long)w->cur_line, (char *)msg);
			return;
		}
		s = ov[0] + w->buf_off;
		t = ov[1] + w->buf_off;
		pos = t > s ? t : s + 1;
		if (t <= s || (!kw && t <= w->last_end[ri]))
			continue; /* empty, or already reported */
		if (!kw)
			w->last_end[ri] = t;
		g = r->secret_group;
		if ((int)g >= rc || ov[2 * g] == PCRE2_UNSET)
			g = 0;
		sec_s = ov[2 * g] + w->buf_off;
		sec_e = ov[2 * g + 1] + w->buf_off;
		/* Every match on the window is reported (once per line): a
		 * keyword line is read to its end, so that every secret on it
		 * is known for redaction too. */
		if (secret_counts(w, r, base + sec_s, sec_e - sec_s) &&
		    check_passes(w, r, s, t))
			emit(w, ri, s, t, sec_s, sec_e);
	}
}

/* A hit of expression id ending at end: the rule's matches that contain
 * it start at most its width (capped) before. */
static void
confirm(struct scan_worker *w, unsigned id, uint64_t end)
{
	uint64_t width = eng_width(w, w->e->expr_rule[id]);

	confirm_from(w, id, end > width ? end - width : 0, end);
}

/* ---- atoms held to the file's end -------------------------------------- */

/*
 * An atom is no finding by itself: it counts only where a condition can be
 * met, that is where the file has atoms of every tag some condition needs.
 * So its hits are held, not confirmed (a hit is a candidate: a match
 * contains a hit of one of its rule's expressions). At the file's end, if
 * the tags of the held rules and of the atoms the views found can meet a
 * condition, the held hits are confirmed as they would have been when
 * they came, in the kept text; elsewhere they are dropped. When the text
 * goes past the kept cap, every held hit is confirmed in its window
 * (defer_confirm_each) and the file's later atoms as they come. Past
 * DEFER_HITS hits (their list is full), each held rule's matches are found
 * from its width before its first hit to its last (every match that
 * contains a hit lies there).
 */
static void
defer_hit(struct scan_worker *w, size_t ri, unsigned id, uint64_t to)
{
	if (w->dfirst[ri] == UINT64_MAX) {
		w->dfirst[ri] = w->dlast[ri] = to;
		w->did[ri] = id;
		w->drules[w->ndrules++] = (unsigned)ri;
		w->dtags |= w->e->rs->rules[ri]->tag_bits;
	} else {
		if (to < w->dfirst[ri])
			w->dfirst[ri] = to;
		if (to > w->dlast[ri])
			w->dlast[ri] = to;
	}
	if (w->ndhits < DEFER_HITS) {
		w->dhits[w->ndhits].id = id;
		w->dhits[w->ndhits].rule = (unsigned)ri;
		w->dhits[w->ndhits++].end = to;
	} else {
		w->dhits_over = 1;
	}
}

/* Forgets the held hits. */
static void
defer_drop(struct scan_worker *w)
{
	size_t k;

	for (k = 0; k < w->ndrules; k++)
		w->dfirst[w->drules[k]] = UINT64_MAX;
	w->ndrules = 0;
	w->dtags = 0;
	w->ndhits = 0;
	w->dhits_over = 0;
}

/* The buffer and cursor, while the kept text stands in for the buffer. */
struct bufstate {
	char *buf;
	uint64_t off, bl, bc, ca, cl, cc;
	size_t n;
	int bol, eof;
	unsigned char prev;
};

/* Reads the first len bytes of the kept text as the buffer (whole: they
 * are the file's whole text); text_out puts the buffer back. */
static void
text_in(struct scan_worker *w, struct bufstate *b, size_t len, int whole)
{
	b->buf = w->buf;
	b->off = w->buf_off;
	b->n = w->buf_len;
	b->bol = w->bol_at_start;
	b->prev = w->prev_byte;
	b->bl = w->base_line;
	b->bc = w->base_col;
	b->ca = w->cur_abs;
	b->cl = w->cur_line;
	b->cc = w->cur_col;
	b->eof = w->eof;
	w->buf = w->ftext;
	w->buf_off = 0;
	w->buf_len = len;
	w->bol_at_start = 1;
	w->prev_byte = 0;
	w->base_line = w->cur_line = 1;
	w->base_col = w->cur_col = 0;
	w->cur_abs = 0;
	w->eof = whole;
}

static void
text_out(struct scan_worker *w, const struct bufstate *b)
{
	w->buf = b->buf;
	w->buf_off = b->off;
	w->buf_len = b->n;
	w->bol_at_start = b->bol;
	w->prev_byte = b->prev;
	w->base_line = b->bl;
	w->base_col = b->bc;
	w->cur_abs = b->ca;
	w->cur_line = b->cl;
	w->cur_col = b->cc;
	w->eof = b->eof;
}

/* Held hits: by rule, then in file order. */
static int
cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The tags of the atoms from index `from` on. */
static uint64_t
atom_tags_from(const struct scan_worker *w, size_t from)
{
	uint64_t t = 0;

	for (; from < w->natoms; from++)
		t |= w->atoms[from].tags;
	return t;
}

/* Past the held hits of the rule of hit k (sorted by cmp_hit). */
static size_t
hit_run_end(const struct scan_worker *w, size_t k)
{
	size_t e = k;

	while (e < w->ndhits && w->dhits[e].rule == w->dhits[k].rule)
		e++;
	return e;
}

/* One rule's held hits, [k, end) of the sorted hits; next: where
 * confirming them stopped. */
struct hit_run {
	size_t k, end, next;
};

/* Runs with fewer hits first (cheaper to confirm), then in rule order. */
static int
cmp_run(const void *a, const void *b)
{
	const struct hit_run *x = a, *y = b;
	size_t nx = x->end - x->k, ny = y->end - y->k;

	if (nx != ny)
		return nx < ny ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * The held hits of a file read whole, confirmed lazily: each rule's in
 * file order only until the rule has given its atoms' tags (or has no hit
 * left), the rules with fewest hits first, and not at all once the tags
 * found and those the rules not yet tried could give can meet no
 * condition; then, if the tags found can meet one, the rest; else the rest
 * is dropped (no atom they could give would change that: their rules gave
 * their tags already, or have no hit left). A rule's hits are confirmed in
 * file order, as they came, so the atoms are those of confirming them all
 * (flow_decide sorts them).
 */
static void
defer_confirm_whole(struct scan_worker *w)
{
	const struct rule_set *rs = w->e->rs;
	uint64_t have = atom_tags(w);
	struct hit_run *runs;
	size_t k, n = 0, r, q;

	qsort(w->dhits, w->ndhits, sizeof(*w->dhits), cmp_hit);
	if ((runs = malloc((w->ndhits + 1) * sizeof(*runs))) == NULL) {
		w->nomem = w->stop = 1;
		return;
	}
	for (k = 0; k < w->ndhits; k = runs[n++].end) {
		runs[n].k = runs[n].next = k;
		runs[n].end = hit_run_end(w, k);
	}
	qsort(runs, n, sizeof(*runs), cmp_run);
	for (r = 0; r < n && !w->stop; r++) {
		uint64_t want = rs->rules[w->dhits[runs[r].k].rule]->tag_bits;
		uint64_t left = 0;
		size_t j;

		for (q = r; q < n; q++)
			left |= rs->rules[w->dhits[runs[q].k].rule]->tag_bits;
		if (!cond_possible(w, have | left))
			break;
		for (j = runs[r].k; j < runs[r].end && !w->stop &&
		    (have & want) != want; j++) {
			size_t before = w->natoms;

			confirm(w, w->dhits[j].id, w->dhits[j].end);
			have |= atom_tags_from(w, before);
		}
		runs[r].next = j;
	}
	if (r == n && !w->stop && cond_possible(w, have))
		for (r = 0; r < n && !w->stop; r++)
			for (k = runs[r].next; k < runs[r].end && !w->stop; k++)
				confirm(w, w->dhits[k].id, w->dhits[k].end);
	free(runs);
}

/* The held hits whose window starts before `live` (in_text) or at or
 * after it, confirmed (defer_confirm_each). */
static void
defer_confirm_side(struct scan_worker *w, uint64_t live, int in_text)
{
	size_t k;

	for (k = 0; k < w->ndhits && !w->stop; k++) {
		uint64_t end = w->dhits[k].end;

		if ((end < live + eng_width(w, w->dhits[k].rule)) == in_text)
			confirm(w, w->dhits[k].id, end);
	}
}

/*
 * The held hits of a file whose text has just gone past the kept cap, all
 * confirmed (the file's later atoms will be confirmed as they come, so
 * what a condition needs is not known yet), each in the window around it
 * as when it came: those whose window starts before the live buffer in the
 * kept text (its first len bytes; the window ends there too: the buffer
 * keeps KEEP = 2 * AL_SCAN_WINDOW bytes before len), the others in the
 * buffer, which also has the chunk that follows. Reading each rule's whole
 * span instead (from its first hit to its last) read megabytes of text
 * with each atom's regex.
 */
static void
defer_confirm_each(struct scan_worker *w, size_t len)
{
	struct bufstate b = {0};
	uint64_t live = w->buf_off;

	qsort(w->dhits, w->ndhits, sizeof(*w->dhits), cmp_hit);
	text_in(w, &b, len, 0);
	defer_confirm_side(w, live, 1);
	text_out(w, &b);
	defer_confirm_side(w, live, 0);
}

/*
 * Confirms the held hits. The kept text holds the file's first len bytes
 * (whole: all of it); what has left the buffer is read there. At the
 * file's end (whole), each hit as it came, or each rule's span; when the
 * text goes past its cap (not whole), each rule's span, the part that has
 * left the buffer in the text and the rest in the buffer, which has what
 * follows.
 */
static void
defer_resolve(struct scan_worker *w, size_t len, int whole)
{
	struct bufstate b = {0};
	size_t k;

	if (whole && !w->dhits_over) {
		int swap = w->buf_off > 0;

		if (swap)
			text_in(w, &b, len, 1);
		defer_confirm_whole(w);
		if (swap)
			text_out(w, &b);
		defer_drop(w);
		return;
	}
	if (!whole && !w->dhits_over) {
		defer_confirm_each(w, len);
		defer_drop(w);
		return;
	}
	for (k = 0; k < w->ndrules && !w->stop; k++) {
		unsigned ri = w->drules[k], id = w->did[ri];
		uint64_t width = eng_width(w, ri), last = w->dlast[ri];
		uint64_t from = w->dfirst[ri] > width ?
		    w->dfirst[ri] - width : 0;

		if (whole || from < w->buf_off) {
			uint64_t to = whole || last < w->buf_off ? last :
			    w->buf_off - 1;

			text_in(w, &b, len, whole);
			confirm_from(w, id, from, to);
			text_out(w, &b);
		}
		if (!whole && last >= w->buf_off && !w->stop)
			confirm_from(w, id, from, last);
	}
	defer_drop(w);
}

/* Can atoms of the tags t meet one of the file's conditions? */
static int
cond_possible(const struct scan_worker *w, uint64_t t)
{
	const struct scan_engine *e = w->e;
	size_t i, j;

	for (i = 0; i < e->ncond; i++) {
		const struct flow_cond *c = &e->conds[i];

		if (!w->active[c->rule])
			continue;
		if (c->kind == FLOW_DATA) {
			if ((t & c->from) && (t & c->to))
				return 1;
			continue;
		}
		for (j = 0; j < c->nall && (t >> c->all[j] & 1); j++)
			;
		if (j == c->nall)
			return 1;
	}
	return 0;
}

/* The tags of the atoms found so far. */
static uint64_t
atom_tags(const struct scan_worker *w)
{
	return atom_tags_from(w, 0);
}

static int on_hit(unsigned int id, unsigned long long from,
    unsigned long long to, unsigned int flags, void *ctx);

/*
 * Has the file a key atom (one of a tag some condition is keyed on)? One
 * the views found, or a held hit of a key atom's rule that its regex
 * confirms: each such rule's hits are confirmed in file order (as
 * defer_confirm_whole will again: what is confirmed twice is reported
 * once, last_end) until one is. A held hit is only a candidate: `exec`
 * in `execute` is a hit of the rule for exec(...).
 */
static int
key_confirmed(struct scan_worker *w)
{
	const struct rule_set *rs = w->e->rs;
	uint64_t key = w->e->key_tags;
	size_t k;

	if ((atom_tags(w) & key) != 0 || w->dhits_over)
		return 1; /* past the list: the hits are not all known */
	if ((w->dtags & key) == 0)
		return 0;
	qsort(w->dhits, w->ndhits, sizeof(*w->dhits), cmp_hit);
	for (k = 0; k < w->ndhits && !w->stop; k++) {
		if ((rs->rules[w->dhits[k].rule]->tag_bits & key) == 0)
			continue;
		confirm(w, w->dhits[k].id, w->dhits[k].end);
		if ((atom_tags(w) & key) != 0)
			return 1;
	}
	return 0;
}

/*
 * The atoms the stream of a file read whole did not look for (db_rest:
 * those of tags no condition is keyed on), looked for in its kept text
 * once the file has a key atom (key_confirmed). Elsewhere no condition
 * can be met, whatever those atoms say. Their hits are held like the
 * stream's (on_hit, defer_hit); the kept text is the whole file, lone CRs
 * read as line ends as the stream read them.
 */
static void
rest_scan(struct scan_worker *w)
{
	struct bufstate b = {0};
	const char *t = w->ftext;
	char *cr = NULL;
	int key;

	if (!w->light || w->stop)
		return;
	w->light = 0;
	if (((w->dtags | atom_tags(w)) & w->e->key_tags) == 0)
		return;
	if (w->ftext_over || !w->eof) {
		/* cannot be: the file was read whole in one chunk */
		eng_unscannable(w, "the file changed while it was read: its "
		    "conditions cannot be decided");
		return;
	}
	/* The kept text stands in for the buffer: the held key hits are
	 * confirmed in it, as at the end, and the other atoms found there. */
	text_in(w, &b, w->ftext_len, 1);
	if ((key = key_confirmed(w)) && !w->stop && w->ftext_len > 0) {
		w->stage |= SCAN_STAGE_REST;
		if (memchr(t, '\r', w->ftext_len) != NULL) {
			if ((cr = malloc(w->ftext_len)) == NULL)
				w->nomem = w->stop = 1;
			else if (scan_lone_cr(t, w->ftext_len, cr))
				t = cr;
		}
		if (!w->stop && hs_scan(w->e->db_rest, t,
		    (unsigned)w->ftext_len, 0, w->scratch, on_hit, w) !=
		    HS_SUCCESS && !w->stop)
			eng_unscannable(w, "the scan engine failed");
	}
	text_out(w, &b);
	free(cr);
	if (!key)
		defer_drop(w); /* no condition can be met */
}

/* At the file's end: the held hits confirmed where a condition can be met,
 * dropped elsewhere. */
static void
defer_end(struct scan_worker *w)
{
	if (w->ndrules == 0)
		return;
	if (!w->stop && !w->ftext_over &&
	    cond_possible(w, w->dtags | atom_tags(w)))
		defer_resolve(w, w->ftext_len, w->eof);
	else
		defer_drop(w);
}

/* ---- the normalised view ---------------------------------------------- */

/* A line is read in a window of at most this many bytes around its hit. */
#define NORM_WINDOW 4096u
#define NORM_BATCH (64u * 1024)
#define NORM_LINES (NORM_BATCH / 16)
#define NORM_PENDING 16u
#define NORM_DEFS (16u * 1024)

struct scan_normview {
	uint64_t done;                /* lines before this offset are read */
	uint64_t pending[NORM_PENDING]; /* hits whose line has not ended */
	size_t npending;
	char out[NORM_WINDOW], tmp[NORM_WINDOW];
	char batch[NORM_BATCH];       /* the views, one a line */
	size_t len;
	/* The file's normalised lines, kept for the alias view: a name
	 * defined as getattr(os, 'sys' + 'tem') is defined by its view. */
	char defs[NORM_DEFS];
	size_t ndefs;
	uint64_t line[NORM_LINES], col[NORM_LINES];
	uint64_t ls[NORM_LINES], le[NORM_LINES]; /* the line's offsets */
	unsigned via[NORM_LINES];
	size_t n;
};

static void norm_flush(struct scan_worker *w);

/* The worker's view state, made on first use; NULL when out of memory. */
static struct scan_normview *
nv_get(struct scan_worker *w)
{
	if (w->nv == NULL && (w->nv = calloc(1, sizeof(*w->nv))) == NULL)
		w->nomem = w->stop = 1;
	return w->nv;
}

/* Adds a view of the line [ls, le) (line `line`, from column col) to the
 * batch; the caller has made room (norm_flush). */
static void
norm_push(struct scan_worker *w, const char *v, size_t n, uint64_t line,
    uint64_t col, uint64_t ls, uint64_t le, unsigned via)
{
	struct scan_normview *nv = w->nv;

	memcpy(nv->batch + nv->len, v, n);
	nv->batch[nv->len + n] = '\n';
	nv->len += n + 1;
	nv->line[nv->n] = line;
	nv->col[nv->n] = col;
	nv->ls[nv->n] = ls;
	nv->le[nv->n] = le;
	nv->via[nv->n++] = via;
}

/* Reads the line around the hit at offset to, if it has ended (or the
 * file has); returns 0 if it has not. */
static int
norm_read(struct scan_worker *w, uint64_t to)
{
	struct scan_normview *nv = w->nv;
	const char *base = w->buf - w->buf_off;
	uint64_t end = w->buf_off + w->buf_len, lo, hi, ls, le;
	const char *nl;
	size_t n;
	unsigned via;

	if (to < nv->done || to < w->buf_off)
		return 1;
	lo = to > w->buf_off + NORM_WINDOW / 2 ? to - NORM_WINDOW / 2 :
	    w->buf_off;
	hi = to + NORM_WINDOW / 2 < end ? to + NORM_WINDOW / 2 : end;
	nl = to > lo ? memrchr(base + lo, '\n', to - lo) : NULL;
	ls = nl ? (uint64_t)(nl - base) + 1 : lo;
	nl = memchr(base + to, '\n', hi - to);
	if (nl == NULL && hi == end && !w->eof)
		return 0; /* the line goes on in the next chunk */
	le = nl ? (uint64_t)(nl - base) : hi;
	if (ls + NORM_WINDOW < le)
		le = ls + NORM_WINDOW;
	nv->done = le + 1;
	n = scan_norm_line(base + ls, (size_t)(le - ls), nv->out, nv->tmp,
	    &via);
	if (via == 0)
		return 1;
	if (memchr(nv->out, '=', n) != NULL && nv->ndefs + n + 1 <= NORM_DEFS) {
		memcpy(nv->defs + nv->ndefs, nv->out, n);
		nv->defs[nv->ndefs + n] = '\n';
		nv->ndefs += n + 1;
	}
	if (nv->len + n + 1 > NORM_BATCH || nv->n == NORM_LINES)
		norm_flush(w);
	if (w->stop)
		return 1;
	eng_cursor_to(w, ls);
	norm_push(w, nv->out, n, w->cur_line, w->cur_col + 1, ls, le, via);
	return 1;
}

/* A trigger hit: the line around it is read in its normalised view. */
static void
norm_hit(struct scan_worker *w, uint64_t to)
{
	if (w->depth > 0 || w->strings_only || w->stop || nv_get(w) == NULL)
		return;
	if (to < w->nv->done)
		return;
	if (!norm_read(w, to) && w->nv->npending < NORM_PENDING &&
	    (w->nv->npending == 0 ||
	    w->nv->pending[w->nv->npending - 1] != to))
		w->nv->pending[w->nv->npending++] = to;
}

/* The hits whose lines had not ended, once more data (or the end) came. */
static void
norm_pending(struct scan_worker *w)
{
	struct scan_normview *nv = w->nv;
	size_t i, k = 0;

	if (nv == NULL)
		return;
	for (i = 0; i < nv->npending; i++)
		if (!norm_read(w, nv->pending[i]))
			nv->pending[k++] = nv->pending[i];
	nv->npending = k;
}

/* Scans the views and adopts what they found that the bytes did not. */
static void
norm_flush(struct scan_worker *w)
{
	struct scan_normview *nv = w->nv;
	struct finding_list inner = {0};
	char via[128];
	size_t i, j;
	int rc;

	if (nv == NULL || nv->n == 0 || w->stop)
		return;
	w->stage |= SCAN_STAGE_VIEW;
	w->views_flushing = 1;
	rc = eng_scan_nested(w, (const unsigned char *)nv->batch, nv->len,
	    &inner);
	w->views_flushing = 0;
	if (rc < 0) {
		w->nomem = w->stop = 1;
		goto out;
	}
	for (i = 0; i < inner.n && !w->stop; i++) {
		const struct finding *in = &inner.v[i];
		size_t k = (size_t)in->line - 1;
		uint64_t line;
		struct finding *f;
		struct fmeta *m;
		struct dynbuf x;
		int dup = 0;

		/* The Unicode rules read the bytes: the view folds them. */
		if (in->rule->builtin || in->line == 0 || k >= nv->n ||
		    strcmp(in->rule->category, "unicode") == 0)
			continue;
		line = nv->line[k];
		/* The view's atoms are the line's, for the conditions. */
		if (in->rule->tag_bits)
			atom_push(w, nv->ls[k], nv->le[k], line,
			    in->rule->tag_bits,
			    rule_set_index(w->e->rs, in->rule->id));
		if (in->rule->atom)
			continue;
		/* What the bytes themselves show is reported once, as such. */
		for (j = w->first; j < w->out->n && !dup; j++)
			dup = w->out->v[j].rule == in->rule &&
			    w->out->v[j].line == line;
		if (dup)
			continue;
		if ((f = eng_new_finding(w, &m)) == NULL)
			break;
		m->decoded = 1;
		al_sha256_hex(m->hash, in->fingerprint,
		    strlen(in->fingerprint));
		f->rule = in->rule;
		f->severity = in->severity;
		f->line = line;
		f->column = nv->col[k];
		f->path = strdup(w->path);
		dynbuf_init(&x, 4 * AL_EXCERPT_BYTES + 256);
		if (dynbuf_addf(&x, "via %s: %s", scan_norm_via(nv->via[k], via,
		    sizeof(via)), in->excerpt) < 0)
			w->nomem = w->stop = 1;
		f->excerpt = dynbuf_take(&x, NULL);
		if (f->path == NULL || f->excerpt == NULL)
			w->nomem = w->stop = 1;
	}
out:
	finding_list_free(&inner);
	nv->n = 0;
	nv->len = 0;
}

/* Adds a view made by another reading (alias, XOR) to the batch, itself
 * read as the normalised view reads a line (if it fits its window). */
static void
view_add(struct scan_worker *w, const char *v, size_t k, uint64_t line,
    uint64_t col, uint64_t ls, uint64_t le, unsigned via)
{
	struct scan_normview *nv = w->nv;
	unsigned nvia = 0;
	size_t m;

	if (k <= NORM_WINDOW) {
		m = scan_norm_line(v, k, nv->out, nv->tmp, &nvia);
		if (nvia != 0) {
			v = nv->out;
			k = m;
			via |= nvia;
		}
	}
	if (nv->len + k + 1 > NORM_BATCH || nv->n == NORM_LINES)
		norm_flush(w);
	if (!w->stop)
		norm_push(w, v, k, line, col, ls, le, via);
}

/* A view of the whole kept text can be made (the file has ended and was
 * kept whole). */
static int
whole_text(const struct scan_worker *w)
{
	return views_on(w) && !w->stop && w->ftext != NULL &&
	    !w->ftext_over && w->eof && w->ftext_len > 0;
}

/* ---- the XOR view (scan_xor.h) ----------------------------------------- */

/* Decoded bytes read through XOR views per file, and literal bytes tried
 * (each with every key and byte), at most. */
#define XOR_VIEW_MAX (1u << 20)
#define XOR_TRY_MAX (4u << 20)

/* Adds the decoded text's lines as views of the line [ls, le) (line
 * `line`, the literal from column col). */
static void
xor_push(struct scan_worker *w, const unsigned char *d, size_t n,
    uint64_t line, uint64_t col, uint64_t ls, uint64_t le)
{
	size_t i = 0;

	while (i < n && !w->stop) {
		const unsigned char *nl = memchr(d + i, '\n', n - i);
		size_t k = nl ? (size_t)(nl - d) - i : n - i;
		const char *v = (const char *)d + i;

		i += k + 1;
		if (k > NORM_WINDOW)
			k = NORM_WINDOW;
		while (k > 0 && (v[k - 1] == '\r' || v[k - 1] == ' '))
			k--;
		if (k > 0)
			view_add(w, v, k, line, col, ls, le, NORM_XOR);
	}
}

/*
 * The literals of a file that uses XOR, decoded with its literal keys: the
 * rules read the payloads as views of the literals' lines, so that their
 * atoms count for the conditions there too. The whole file is needed (a
 * key may be defined below the payload): a file longer than the kept text
 * is not read so.
 */
static void
xor_view(struct scan_worker *w)
{
	struct xor_key keys[XOR_KEYS], key;
	unsigned char *in = NULL, *out = NULL;
	const char *t = w->ftext;
	size_t nkeys, pos = 0, s, e, k, total = 0, tried = 0;
	uint64_t line = 1, at = 0, ls = 0;

	if (!whole_text(w) || !scan_xor_uses(t, w->ftext_len))
		return;
	w->stage |= SCAN_STAGE_XOR;
	nkeys = scan_xor_keys(t, w->ftext_len, keys, XOR_KEYS);
	if (nv_get(w) == NULL || (in = malloc(XOR_BLOB_MAX)) == NULL ||
	    (out = malloc(XOR_BLOB_MAX)) == NULL) {
		w->nomem = w->stop = 1;
		goto out;
	}
	while (!w->stop && total < XOR_VIEW_MAX && tried < XOR_TRY_MAX &&
	    (k = scan_xor_blob(t, w->ftext_len, &pos, in, &s, &e)) > 0) {
		const char *nl;
		uint64_t le;

		tried += k;
		if (!scan_xor_try(in, k, keys, nkeys, out, &key))
			continue;
		total += k;
		for (; at < s; at++)
			if (t[at] == '\n') {
				line++;
				ls = at + 1;
			}
		nl = memchr(t + s, '\n', w->ftext_len - s);
		le = nl ? (uint64_t)(nl - t) : w->ftext_len;
		xor_push(w, out, k, line, s - ls + 1, ls, le);
	}
	norm_flush(w);
out:
	free(in);
	free(out);
}

/* ---- the alias view (scan_alias.h) ------------------------------------- */

/* A long line is read in windows of this many bytes, overlapping by
 * ALIAS_OVERLAP so that no name is cut in all of them; a window's view
 * (its names written out) is at most ALIAS_VIEW bytes. */
#define ALIAS_WINDOW 4096u
#define ALIAS_OVERLAP 256u
#define ALIAS_VIEW (NORM_BATCH / 4)

static void
alias_window(struct scan_worker *w, const struct alias_set *as,
    uint64_t s, uint64_t e, uint64_t line, uint64_t col, char *v,
    char *prev)
{
	unsigned alt, nalt = scan_alias_alts(as);
	size_t k, pk = 0;

	for (alt = 0; alt < nalt && !w->stop; alt++) {
		k = scan_alias_line(as, alt, w->ftext + s, (size_t)(e - s), v,
		    ALIAS_VIEW);
		if (k == 0)
			return;
		if (alt > 0 && k == pk && memcmp(v, prev, k) == 0)
			continue; /* no name on it has this many targets */
		memcpy(prev, v, k);
		pk = k;
		view_add(w, v, k, line, col, s, e, NORM_ALIAS);
	}
}

/*
 * The names the file gave to watched modules, functions and commands,
 * written out on every line that uses them; the rules read those views
 * as they read the normalised ones (norm_flush). The whole file is needed
 * (a name may be defined below its use): a file longer than the kept
 * text is not read so (docs/detection.md says so).
 */
static void
alias_view(struct scan_worker *w)
{
	struct alias_set *as;
	char *v = NULL, *prev = NULL;
	uint64_t ls = 0, line = 1;

	if (!whole_text(w))
		return;
	/* The definitions are read from the normalised lines too (the lines
	 * that use a name are read in ftext). */
	if ((as = scan_alias_collect(w->ftext, w->ftext_len)) == NULL ||
	    (w->nv != NULL && w->nv->ndefs > 0 &&
	    scan_alias_read(as, w->nv->defs, w->nv->ndefs) < 0)) {
		w->nomem = w->stop = 1;
		goto out;
	}
	if (scan_alias_count(as) == 0)
		goto out;
	w->stage |= SCAN_STAGE_ALIAS;
	if (nv_get(w) == NULL || (v = malloc(ALIAS_VIEW)) == NULL ||
	    (prev = malloc(ALIAS_VIEW)) == NULL) {
		w->nomem = w->stop = 1;
		goto out;
	}
	while (ls < w->ftext_len && !w->stop) {
		const char *nl = memchr(w->ftext + ls, '\n',
		    w->ftext_len - ls);
		uint64_t le = nl ? (uint64_t)(nl - w->ftext) : w->ftext_len;
		uint64_t s = ls;

		for (;;) {
			uint64_t e = le - s > ALIAS_WINDOW ? s + ALIAS_WINDOW :
			    le;

			alias_window(w, as, s, e, line, s - ls + 1, v, prev);
			if (e == le || w->stop)
				break;
			s = e - ALIAS_OVERLAP;
		}
		ls = le + 1;
		line++;
	}
	norm_flush(w);
out:
	free(v);
	free(prev);
	scan_alias_free(as);
}

/*
 * Is the hit of the quote trigger ending at `to` (a word character, a
 * quote, a word character) an English contraction: don't, it's, I'm,
 * we'd, we'll, you're, I've? Only when the bytes after it are here.
 */
static int
contraction(const struct scan_worker *w, uint64_t to)
{
	const char *base = w->buf - w->buf_off;
	uint64_t end = w->buf_off + w->buf_len;
	const char *q;
	size_t k;

	if (to < w->buf_off + 2 || to + 2 > end || base[to - 2] != '\'')
		return 0;
	q = base + to - 1;
	k = (q[0] == 't' || q[0] == 's' || q[0] == 'm' || q[0] == 'd') ? 1 :
	    (memcmp(q, "ll", 2) == 0 || memcmp(q, "re", 2) == 0 ||
	    memcmp(q, "ve", 2) == 0) ? 2 : 0;
	if (k == 0 || to - 1 + k >= end)
		return 0;
	/* l's' is ls: a quote after it closes a quoted part. */
	return !((q[k] >= 'a' && q[k] <= 'z') || (q[k] >= 'A' && q[k] <= 'Z') ||
	    (q[k] >= '0' && q[k] <= '9') || q[k] == '_' || q[k] == '\'' ||
	    q[k] == '"');
}

/* The byte at offset `at` of the file: '\n' before its start and past
 * its end (both end a line), -1 where it is not in the buffer (slid out,
 * or not read yet). */
static int
byte_at(const struct scan_worker *w, uint64_t at)
{
	if (at == UINT64_MAX || (w->eof && at >= w->buf_off + w->buf_len))
		return '\n';
	if (at < w->buf_off || at >= w->buf_off + w->buf_len)
		return -1;
	return (unsigned char)w->buf[at - w->buf_off];
}

static int
word_byte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* The first byte from `at` on (step +1) or back (step -1) that is not a
 * blank, looking at most 16 bytes; -1 if unknown. */
static int
past_blanks(const struct scan_worker *w, uint64_t at, int step)
{
	int c = -1, i;

	for (i = 0; i < 16; i++, at += (uint64_t)(int64_t)step)
		if ((c = byte_at(w, at)) != ' ' && c != '\t')
			return c;
	return -1;
}

/*
 * Does the trigger ending at `to` (qtrig_run) mark a
 * line to read? A byte that is not in the buffer any more (or yet) counts
 * for it: the check only saves work, it never hides a line.
 */
static int
trigger_wanted(const struct scan_worker *w, unsigned kind, uint64_t to)
{
	int b, a, q;

	switch (kind) {
	case EXPR_TRIGGER_QUOTE:
		return !contraction(w, to);
	case EXPR_TRIGGER_EMPTY:
		/* q q at to-2, to-1: touching a word before or after, not a
		 * third quote */
		q = byte_at(w, to - 1);
		b = byte_at(w, to - 3);
		a = byte_at(w, to);
		if (b < 0 || a < 0)
			return 1;
		return ((word_byte(b) || b == '$') && a != q) ||
		    (b != q && word_byte(a));
	case EXPR_TRIGGER_MEMBER:
		/* [ at to-2: a value before it, a quote inside it */
		b = past_blanks(w, to - 3, -1);
		a = past_blanks(w, to - 1, 1);
		if (b >= 0 && !word_byte(b) && b != ')' && b != ']')
			return 0;
		return a < 0 || a == '\'' || a == '"';
	default:
		return 1;
	}
}

/*
 * The triggers that fire often in ordinary code are found here rather than
 * by Hyperscan: a pattern whose only literal is one quote is about a fifth
 * of Hyperscan's work on JavaScript (every quote is a candidate), where
 * finding the quotes and brackets 16 bytes at a time and looking at the bytes
 * beside them costs little. What they are:
 * - a quote between two word characters: a quoted part of a shell word
 *   ("cu"rl, c'ur'l, cu"rl"), unless an English contraction (don't, it's);
 * - an empty literal touching a word (c''url, ''curl, $''x), not one
 *   alone (x = "") or a triple quote (""" doc);
 * - a bracket with a literal inside, after a value: a member by a literal
 *   name (obj['ev'+'al'], os ['system'], f()[ 'x']), not a list of
 *   literals (= ['a', 'b']);
 * - a literal join: a quote, then `+`, `.`, `..` or `&` and a quote, with
 *   blanks between ('ev' + 'al', "cu"."rl"), or two literals apart by
 *   blanks ('cu' 'rl'). As Hyperscan expressions (their only literals one
 *   byte each) they cost more than all the other triggers together: every
 *   quote was a candidate.
 * Each is found at one of these bytes and reported 2 bytes after it (the
 * line is the same: a join holds no line end). The normalised view reads
 * lines in order (norm_read), so these are taken in file order with
 * Hyperscan's triggers: before a trigger hit ending at `to`, every one
 * ending at or before it (on_hit), and after each chunk, every one whose
 * bytes are in.
 */
/* The offset of the first byte from `at` on that is not a blank. */
static uint64_t
skip_blanks(const struct scan_worker *w, uint64_t at)
{
	int c;

	while ((c = byte_at(w, at)) == ' ' || c == '\t')
		at++;
	return at;
}

/*
 * A literal join at the quote q: blanks, `+`, `.`, `..` or `&`, blanks and
 * a quote ('a' + 'b', "a"."b", 'a'..'b', "a" & "b"; any of the three
 * quotes each side); or, for ' and ", blanks and ' or " (adjacent
 * literals: 'cu' 'rl'). Also 1 where a byte this needs is not in the
 * buffer yet: a line more is read, never one less.
 */
static int
join_at(const struct scan_worker *w, uint64_t q)
{
	uint64_t at = skip_blanks(w, q + 1);
	int c = byte_at(w, at);

	if ((c == '\'' || c == '"') && at > q + 1 && byte_at(w, q) != '`')
		return 1;
	if (c == '.') {
		if ((c = byte_at(w, ++at)) == '.')
			at++;
		else if (c < 0)
			return 1;
	} else if (c == '+' || c == '&') {
		at++;
	} else {
		return c < 0;
	}
	c = byte_at(w, skip_blanks(w, at));
	return c < 0 || c == '\'' || c == '"' || c == '`';
}

/* The frequent triggers of the byte at q (its pair or triple ends at
 * q + 2, and byte q + 1 is in). */
static void
qtrig_at(struct scan_worker *w, uint64_t q)
{
	int c = byte_at(w, q), a = byte_at(w, q + 1), kind = 0;

	if (c == '[') {
		if (a == '\'' || a == '"' || a == ' ' || a == '\t')
			kind = EXPR_TRIGGER_MEMBER;
	} else if (c == '`') {
		/* a backtick starts a join only (join_at below) */
	} else if (a == c) {
		kind = EXPR_TRIGGER_EMPTY;
	} else if (word_byte(a) && q > 0 && word_byte(byte_at(w, q - 1))) {
		kind = EXPR_TRIGGER_QUOTE;
	}
	if ((kind != 0 && trigger_wanted(w, (unsigned)kind, q + 2)) ||
	    (c != '[' && join_at(w, q)))
		norm_hit(w, q + 2);
}

/* The bytes qtrig_at starts from (memchr finds no NUL among the four). */
#define QTRIG_BYTES "'\"[`"

#ifdef __SSE2__
/* 0xff where the byte is a word byte (word_byte): ASCII letters, digits,
 * `_` (bytes 0x80 and up compare as negative: none of them). */
static inline __m128i
word16(__m128i x)
{
	__m128i lo = _mm_or_si128(x, _mm_set1_epi8(0x20)); /* A-Z to a-z */
	__m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(lo, _mm_set1_epi8('a' - 1)),
	    _mm_cmpgt_epi8(_mm_set1_epi8('z' + 1), lo));
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
	    _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), x));

	return _mm_or_si128(_mm_or_si128(alpha, digit),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
}
#endif

/*
 * Of the 16 bytes at p (p[-1] and p[16] readable too), those where
 * qtrig_at may find a trigger: a quote before the same quote, a quote
 * between two word bytes, a `[` before a quote or a blank, a quote or a
 * backtick before a blank, `+`, `.` or `&` (a join). Most quotes in code
 * are none of these (`f("a")`), and qtrig_at decides the rest. With SSE2
 * the test is made for the 16 at once; elsewhere each quote, backtick
 * and `[` is given to qtrig_at.
 */
static inline unsigned
qtrig_bytes16(const unsigned char *p)
{
#ifdef __SSE2__
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i n = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p - 1));
	__m128i quote = _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\'')),
	    _mm_cmpeq_epi8(b, _mm_set1_epi8('"')));
	__m128i blank = _mm_or_si128(_mm_cmpeq_epi8(n, _mm_set1_epi8(' ')),
	    _mm_cmpeq_epi8(n, _mm_set1_epi8('\t')));
	__m128i join = _mm_and_si128(_mm_or_si128(quote,
	    _mm_cmpeq_epi8(b, _mm_set1_epi8('`'))),
	    _mm_or_si128(_mm_or_si128(blank,
	    _mm_cmpeq_epi8(n, _mm_set1_epi8('+'))),
	    _mm_or_si128(_mm_cmpeq_epi8(n, _mm_set1_epi8('.')),
	    _mm_cmpeq_epi8(n, _mm_set1_epi8('&')))));
	__m128i member = _mm_and_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('[')),
	    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(n, _mm_set1_epi8('\'')),
	    _mm_cmpeq_epi8(n, _mm_set1_epi8('"'))), blank));
	__m128i m = _mm_or_si128(_mm_or_si128(member, join),
	    _mm_and_si128(quote, _mm_or_si128(_mm_cmpeq_epi8(n, b),
	    _mm_and_si128(word16(n), word16(v)))));

	return (unsigned)_mm_movemask_epi8(m);
#else
	return al_bytes16(p, QTRIG_BYTES, 4);
#endif
}

/* The frequent triggers that end at or before `to` and whose bytes are
 * in the buffer, in file order; their bytes are found 16 at a time
 * (bytes16.h). */
static void
qtrig_run(struct scan_worker *w, uint64_t to)
{
	const unsigned char *base = (const unsigned char *)w->buf - w->buf_off;
	uint64_t end = w->buf_off + w->buf_len, lim, q;

	if (w->depth > 0 || w->strings_only || AL_FIRST_STAGE_ONLY)
		return;
	/* a byte at q needs q + 1 in, and its trigger ends at q + 2 */
	lim = to < end ? to : end;
	if (lim == 0)
		return;
	lim--;
	q = w->qscan > w->buf_off ? w->qscan : w->buf_off;
	/* The byte before the first is not in the buffer: read alone. */
	if (q == w->buf_off && q < lim) {
		if (memchr(QTRIG_BYTES, base[q], 4) != NULL)
			qtrig_at(w, q);
		q++;
	}
	for (; q + 16 <= lim && !w->stop; q += 16) {
		unsigned m = al_bytes16(base + q, QTRIG_BYTES, 4);

		if (m != 0)
			m &= qtrig_bytes16(base + q);

		while (m != 0 && !w->stop) {
			qtrig_at(w, q + al_low_bit(m));
			m &= m - 1;
		}
	}
	for (; q < lim && !w->stop; q++)
		if (memchr(QTRIG_BYTES, base[q], 4) != NULL)
			qtrig_at(w, q);
	if (q > w->qscan)
		w->qscan = q;
}

static int
on_hit(unsigned int id, unsigned long long from, unsigned long long to,
    unsigned int flags, void *ctx)
{
	struct scan_worker *w = ctx;
	const struct rule *r = w->e->rs->rules[w->e->expr_rule[id]];
	uint64_t la = w->e->expr_kw[id] == EXPR_KEYWORD ? AL_SCAN_WINDOW :
	    eng_width(w, w->e->expr_rule[id]);

	(void)from;
	(void)flags;
	if (w->stop)
		return 1;
	if (w->e->expr_kw[id] >= EXPR_TRIGGER) {
		qtrig_run(w, to);
		if (!w->stop && trigger_wanted(w, w->e->expr_kw[id], to))
			norm_hit(w, to);
		return w->stop ? 1 : 0;
	}
	if (!w->active[w->e->expr_rule[id]])
		return 0;
	if (w->deferring && r->atom && w->e->expr_kw[id] != EXPR_KEYWORD) {
		defer_hit(w, w->e->expr_rule[id], id, to);
		return 0;
	}
	if (w->eof || to + la <= w->buf_off + w->buf_len) {
		confirm(w, id, to);
	} else if (w->npending < AL_MAX_PENDING_HITS) {
		w->pending[w->npending].id = id;
		w->pending[w->npending].end = to;
		w->npending++;
	} else {
		confirm(w, id, to); /* with the lookahead there is */
	}
	return w->stop ? 1 : 0;
}

static void
flush_pending(struct scan_worker *w)
{
	size_t i;

	for (i = 0; i < w->npending && !w->stop; i++)
		confirm(w, w->pending[i].id, w->pending[i].end);
	w->npending = 0;
}

/* ---- driving a file through -------------------------------------------- */

static const char *const text_exts[] = {
	"sh", "bash", "zsh", "fish", "ksh", "py", "pyw", "pth", "rb", "pl",
	"pm", "php", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "yml",
	"yaml", "toml", "ini", "cfg", "conf", "env", "md", "txt", "rst", "xml",
	"html", "htm", "ps1", "psm1", "bat", "cmd", "go", "rs", "c", "h", "cc",
	"cpp", "java", "kt", "gradle", "swift", "lua", "sql", "tf", "mk",
	"cmake", "service", "plist", "desktop", "gemspec", "csv", "svg",
};

/* Does the last component of relpath end in ".E" for one of the n
 * extensions E (ASCII case ignored)? */
static int
ext_in(const char *relpath, const char *const *exts, size_t n)
{
	const char *slash = strrchr(relpath, '/');
	const char *dot = strrchr(slash ? slash : relpath, '.');
	size_t i;

	for (i = 0; dot != NULL && i < n; i++)
		if (strcasecmp(dot + 1, exts[i]) == 0)
			return 1;
	return 0;
}

/* A NUL in the first bytes means binary, unless sh would run the file
 * as a script: dash and bash drop NUL bytes as they read, so `cu<NUL>rl`
 * is `curl` to them, and a NUL must not be a way to switch the text rules
 * off. A file is a script to sh when it starts with `#!`, when its name
 * says it is a script or text a tool will run or read, or when it is
 * text once its NULs are gone; a file with no NUL in its first bytes is
 * text, and a NUL after them, here or in a later chunk (text_fill), is
 * dropped. Returns 0 (text), 1 (text to read with its NULs dropped) or
 * 2 (binary). */
static int
nul_reading(const char *relpath, const char *p, size_t n)
{
	size_t k = n < AL_BINARY_SNIFF ? n : AL_BINARY_SNIFF;

	/* Text by its first bytes: NULs after them are dropped too. */
	if (memchr(p, '\0', k) == NULL)
		return memchr(p + k, '\0', n - k) != NULL;
	if ((n >= 2 && p[0] == '#' && p[1] == '!') || ext_in(relpath,
	    text_exts, sizeof(text_exts) / sizeof(text_exts[0])) ||
	    scan_nul_text((const unsigned char *)p, k))
		return 1;
	return 2;
}

struct source {
	int fd;
	const char *mem;
	size_t mem_len, mem_pos;
	EVP_MD_CTX *md;           /* hashes what is read, when wanted */
	scan_read_fn cb;          /* or reads through a callback */
	void *cb_ctx;
};

static ssize_t
source_read(struct source *src, char *dst, size_t n)
{
	ssize_t r;

	if (src->cb != NULL)
		return src->cb(src->cb_ctx, dst, n);

	if (src->mem != NULL) {
		size_t left = src->mem_len - src->mem_pos;

		if (n > left)
			n = left;
		memcpy(dst, src->mem + src->mem_pos, n);
		src->mem_pos += n;
		return (ssize_t)n;
	}
	do
		r = read(src->fd, dst, n);
	while (r < 0 && errno == EINTR);
	/* libcrypto that cannot hash leaves nothing safe to go on with. */
	AL_ASSERT(r <= 0 || src->md == NULL ||
	    EVP_DigestUpdate(src->md, dst, (size_t)r) == 1);
	return r;
}

static int strings_category(const char *c);

/* Glob k matches relpath? Each distinct glob is matched once per file. */
static int
glob_memo_match(struct scan_worker *w, unsigned k, const char *relpath)
{
	if (w->glob_memo[k] < 0)
		w->glob_memo[k] = (signed char)rule_glob_match(w->e->globs[k],
		    relpath);
	return w->glob_memo[k];
}

/* Does the i-th scoped rule apply to relpath: one of its paths matches (or it
 * has none) and none of its exclude_paths does. */
static int
scoped_applies(struct scan_worker *w, size_t i, const char *relpath)
{
	const struct scan_engine *e = w->e;
	const unsigned *g = e->gidx + e->g_at[i];
	size_t j;
	int in = e->g_npaths[i] == 0;

	for (j = 0; j < e->g_npaths[i] && !in; j++)
		in = glob_memo_match(w, g[j], relpath);
	for (j = 0; in && j < e->g_nexcl[i]; j++)
		if (glob_memo_match(w, g[e->g_npaths[i] + j], relpath))
			in = 0;
	return in;
}

static void
file_begin(struct scan_worker *w, const char *path, const char *relpath,
    struct finding_list *out)
{
	const struct rule_set *rs = w->e->rs;
	size_t i;

	w->path = path;
	w->relpath = relpath;
	w->out = out;
	w->first = out->n;
	w->buf_off = 0;
	w->buf_len = 0;
	w->bol_at_start = 1;
	w->prev_byte = 0;
	w->base_line = w->cur_line = 1;
	w->base_col = w->cur_col = 0;
	w->cur_abs = 0;
	w->eof = w->stop = w->nomem = 0;
	w->npending = 0;
	w->nspans = 0;
	w->blob_pos = w->xesc_pos = 0;
	w->decoded_total = 0;
	w->natoms = 0;
	w->atoms_over = 0;
	if (w->depth == 0)
		w->stage = 0;
	w->qscan = 0;
	w->ftext_len = 0;
	w->ftext_over = 0;
	defer_drop(w);
	w->deferring = flow_on(w) && !w->report_atoms;
	w->light = 0;
	if (w->nv != NULL) {
		w->nv->done = 0;
		w->nv->npending = w->nv->n = w->nv->len = w->nv->ndefs = 0;
	}
	memset(w->last_end, 0, rs->nrules * sizeof(*w->last_end));
	memset(w->last_line, 0, rs->nrules * sizeof(*w->last_line));
	memset(w->done, 0, rs->nrules * sizeof(*w->done));
	memset(w->active, 1, rs->nrules);
	if (!w->memo_kept)
		memset(w->glob_memo, -1, w->e->nglobs);
	w->memo_kept = 0;
	for (i = 0; i < w->e->nscoped; i++)
		w->active[w->e->scoped[i]] = (unsigned char)scoped_applies(w, i,
		    relpath);
	for (i = 0; w->strings_only && i < rs->nrules; i++)
		w->active[i] &= w->strings_rules[i];
	/* Path rules: a finding for the file itself, whatever its content. */
	for (i = 0; i < rs->nrules && !w->nomem; i++) {
		const struct rule *r = rs->rules[i];
		struct finding *f;

		if (r->pattern != NULL || r->cond || !w->active[i] ||
		    w->depth > 0)
			continue;
		if (eng_meta_reserve(w, (size_t)eng_file_findings(w) + 1) < 0 ||
		    eng_finding_push(out, &f) < 0) {
			w->nomem = 1;
			break;
		}
		memset(&w->meta[eng_file_findings(w) - 1], 0, sizeof(*w->meta));
		f->rule = r;
		f->severity = r->severity;
		f->path = strdup(path);
		f->excerpt = strdup("");
		if (f->path == NULL || f->excerpt == NULL)
			w->nomem = 1;
		eng_fingerprint(f->fingerprint, r->id, relpath, "", 0);
	}
}

/* Adds a whole-file built-in finding for the current file. */
static void
worker_builtin(struct scan_worker *w, const char *rule, const char *msg)
{
	if (eng_meta_reserve(w, (size_t)eng_file_findings(w) + 1) < 0 ||
	    finding_add_builtin(w->out, rule, w->path, msg) < 0)
		w->nomem = 1;
	else
		memset(&w->meta[eng_file_findings(w) - 1], 0, sizeof(*w->meta));
}

/* Types the file from its first bytes: executables, and binaries wearing
 * the name of a text file or an image, are findings. */
static void
check_type(struct scan_worker *w, const char *p, size_t n)
{
	const char *mime;
	char msg[256];

	if (w->typer == NULL || w->depth > 0)
		return;
	/* Machine code and bytecode have NUL bytes at once; text does not,
	 * and libmagic is too slow to ask about every text file. */
	if (memchr(p, '\0', n < AL_BINARY_SNIFF ? n : AL_BINARY_SNIFF) == NULL)
		return;
	mime = scan_typer_mime(w->typer, p, n);
	w->mime = mime;
	if (!scan_type_is_executable(mime))
		return;
	snprintf(msg, sizeof(msg), "content is %s", mime);
	worker_builtin(w, AL_RULE_EXECUTABLE, msg);
	if (scan_name_promises_data(w->relpath)) {
		snprintf(msg, sizeof(msg), "named like text or an image, "
		    "but the content is %s", mime);
		worker_builtin(w, AL_RULE_TYPE_MISMATCH, msg);
	}
}

/* Keeps the last KEEP bytes, counting what leaves. */
static void
slide(struct scan_worker *w)
{
	uint64_t new_off;
	size_t drop;

	if (w->buf_len <= KEEP)
		return;
	drop = w->buf_len - KEEP;
	new_off = w->buf_off + drop;
	eng_cursor_to(w, new_off);
	w->base_line = w->cur_line;
	w->base_col = w->cur_col;
	w->bol_at_start = w->buf[drop - 1] == '\n';
	w->prev_byte = (unsigned char)w->buf[drop - 1];
	memmove(w->buf, w->buf + drop, KEEP);
	w->buf_off = new_off;
	w->buf_len = KEEP;
	if (w->blob_pos < new_off)
		w->blob_pos = new_off;
	if (w->xesc_pos < new_off)
		w->xesc_pos = new_off;
}

/* ---- strings of binaries ------------------------------------------------- */

/* Strings are scanned in batches of this many bytes, one string a line. */
#define STR_BATCH (64u * 1024)
#define STR_BATCH_MAX (STR_BATCH / (SCAN_STR_MIN + 1) + 1)
#define STR_SEEN 64u

struct scan_strbin {
	struct scan_strings x;
	char batch[STR_BATCH];
	size_t len;
	uint64_t off[STR_BATCH_MAX];  /* per line: the string's file offset */
	unsigned char kind[STR_BATCH_MAX]; /* per line: enum scan_str_kind */
	size_t n;
	int artefact;                 /* compiled code: one severity lower */
	int text;                     /* a text file's: 1 read with NULs
	                               * dropped, 2 UTF-16 (side_strings) */
	/* What the plain strings' findings matched (rule, sha256), for the
	 * joined ones: the last STR_SEEN of them. */
	const struct rule *seen_rule[STR_SEEN];
	char seen_hash[STR_SEEN][AL_SHA256_HEX];
	size_t nseen;
};

/* The categories whose rules read the strings of a binary: what a secret
 * or a command line looks like does not depend on where it is stored. */
static int
strings_category(const char *c)
{
	return strcmp(c, "secret") == 0 || strcmp(c, "download-exec") == 0 ||
	    strcmp(c, "exfiltration") == 0;
}

/* Compiled code: machine code, bytecode, objects and libraries. */
static int
build_artefact(const struct scan_worker *w)
{
	static const char *const exts[] = {
		"pyc", "pyo", "class", "o", "obj", "a", "so", "dll", "dylib",
		"exe", "wasm", "node",
	};
	return (w->mime != NULL && scan_type_is_executable(w->mime)) ||
	    ext_in(w->relpath, exts, sizeof(exts) / sizeof(exts[0]));
}

/*
 * Is a finding of rule r on a string of the kind given, whose match had
 * the sha256 hash, one the file has already? A joined string holds the
 * plain strings it joins, and a text file's strings the lines read with
 * NULs dropped: what they match again is not news. Only a match the same
 * rule made on the same bytes counts; one across a dropped NUL is new.
 */
static int
strings_seen(const struct scan_worker *w, const struct rule *r, int kind,
    const char *hash)
{
	const struct scan_strbin *sb = w->sb;
	size_t i, n;

	if (sb->text) {
		for (i = 0; i < (size_t)eng_file_findings(w); i++)
			if (w->out->v[w->first + i].rule == r &&
			    !w->meta[i].decoded &&
			    strcmp(w->meta[i].hash, hash) == 0)
				return 1;
		return 0;
	}
	if (kind != SCAN_STR_JOINED)
		return 0;
	n = sb->nseen < STR_SEEN ? sb->nseen : STR_SEEN;
	for (i = 0; i < n; i++)
		if (sb->seen_rule[i] == r && strcmp(sb->seen_hash[i], hash) == 0)
			return 1;
	return 0;
}

/* Scans the batch of strings and adopts what the rules above found. */
static void
strings_flush(struct scan_worker *w)
{
	struct scan_strbin *sb = w->sb;
	struct finding_list inner = {0};
	size_t i, j;
	int rc;

	if (sb->n == 0 || w->stop)
		return;
	/* The child scans with only the rules that read strings: the others'
	 * findings would be dropped below, and their hits cost. */
	if (w->child == NULL) {
		if (scan_worker_new(&w->child, w->e) < 0) {
			w->nomem = w->stop = 1;
			goto out;
		}
		w->child->depth = w->depth + 1;
	}
	if (w->child->strings_rules == NULL) {
		const struct rule_set *rs = w->e->rs;

		if ((w->child->strings_rules = malloc(rs->nrules ?
		    rs->nrules : 1)) == NULL) {
			w->nomem = w->stop = 1;
			goto out;
		}
		for (i = 0; i < rs->nrules; i++)
			w->child->strings_rules[i] = (unsigned char)
			    (strings_category(rs->rules[i]->category) &&
			    !rs->rules[i]->atom && !rs->rules[i]->cond);
	}
	w->child->strings_only = 1;
	rc = eng_scan_nested(w, (const unsigned char *)sb->batch, sb->len,
	    &inner);
	w->child->strings_only = 0;
	if (rc < 0) {
		w->nomem = w->stop = 1;
		goto out;
	}
	for (i = 0; i < inner.n && !w->stop; i++) {
		const struct finding *in = &inner.v[i];
		struct finding *f;
		struct fmeta *m;
		struct dynbuf x;
		size_t occ = 0, k = (size_t)in->line - 1;
		const char *mh;

		if (in->rule->builtin || in->line == 0 || k >= sb->n ||
		    !strings_category(in->rule->category))
			continue;
		/* What the match was, as the child saw it. */
		mh = i < (size_t)eng_file_findings(w->child) &&
		    !w->child->meta[i].decoded ? w->child->meta[i].hash : NULL;
		if (mh != NULL && strings_seen(w, in->rule, sb->kind[k], mh))
			continue;
		if (mh != NULL && !sb->text && sb->kind[k] != SCAN_STR_JOINED) {
			sb->seen_rule[sb->nseen % STR_SEEN] = in->rule;
			memcpy(sb->seen_hash[sb->nseen % STR_SEEN], mh,
			    AL_SHA256_HEX);
			sb->nseen++;
		}
		if ((f = eng_new_finding(w, &m)) == NULL)
			break;
		m->decoded = 1;
		al_sha256_hex(m->hash, in->fingerprint,
		    strlen(in->fingerprint));
		f->rule = in->rule;
		f->severity = in->severity;
		if (sb->artefact && f->severity > AL_SEV_LOW)
			f->severity--;
		f->path = strdup(w->path);
		dynbuf_init(&x, 4 * AL_EXCERPT_BYTES + 256);
		if (dynbuf_addf(&x, "%s at byte %llu of a %s file%s: %s",
		    sb->kind[k] == SCAN_STR_WIDE ? "UTF-16 string" :
		    sb->text == 1 ? "string a NUL ends" : sb->text == 2 ?
		    "ASCII string" : "string", (unsigned long long)sb->off[k],
		    sb->text == 1 ? "text" : sb->text == 2 ? "UTF-16" :
		    "binary", sb->kind[k] == SCAN_STR_JOINED ? ", its NUL bytes "
		    "dropped as sh does" : "", in->excerpt) < 0)
			w->nomem = w->stop = 1;
		f->excerpt = dynbuf_take(&x, NULL);
		if (f->path == NULL || f->excerpt == NULL) {
			w->nomem = w->stop = 1;
			break;
		}
		/* A whole-file finding: its fingerprint is made here. */
		for (j = w->first; j + 1 < w->out->n; j++)
			if (w->out->v[j].rule == f->rule &&
			    strcmp(w->meta[j - w->first].hash, m->hash) == 0)
				occ++;
		eng_fingerprint(f->fingerprint, f->rule->id, w->relpath,
		    m->hash, occ);
	}
out:
	finding_list_free(&inner);
	sb->n = 0;
	sb->len = 0;
}

static int
on_string(void *ctx, uint64_t off, const char *s, size_t n, int kind)
{
	struct scan_worker *w = ctx;
	struct scan_strbin *sb = w->sb;

	if (sb->len + n + 1 > STR_BATCH || sb->n == STR_BATCH_MAX)
		strings_flush(w);
	if (w->stop)
		return 1;
	memcpy(sb->batch + sb->len, s, n);
	sb->batch[sb->len + n] = '\n';
	sb->len += n + 1;
	sb->off[sb->n] = off;
	sb->kind[sb->n++] = (unsigned char)kind;
	return 0;
}

/* ---- reading a file ------------------------------------------------------- */

/* What scan_source reads through: the source, what it has given so far,
 * and how its bytes become the text the rules read. */
struct reader {
	struct source *src;
	uint64_t total;           /* bytes of the file read */
	int item;                 /* collecting items: hash each one */
	struct scan_u16 u16;      /* UTF-16, when order is set */
	size_t rlen, rpos;        /* UTF-16 bytes in rbuf, and used */
	int raw_eof;
	struct pickle_walk *pk;   /* the file read as a pickle, or NULL */
	int pk_cut;               /* the walk ended before the file did */
	int drop_nul;             /* read as sh reads it: NUL bytes dropped */
	int shebang;              /* and it starts with #! */
	int side;                 /* strings read on the side (w->sb) */
	unsigned char last;       /* the last byte read that is not NUL, or
	                           * 0 before the first */
	int nul_line;             /* NULs were dropped inside a line */
	int in_nuls;              /* NULs read since then */
	uint64_t nul_gap;         /* 1 + offset of those NULs' first */
	uint64_t nul_at;          /* 1 + offset of the first NUL between two
	                           * characters, or 0 */
};

/* Names a pickle loader reads whatever the content: a file by one of
 * them is read as a pickle even when its first bytes say nothing. */
static int
pickle_name(const char *relpath)
{
	static const char *const exts[] = {
		"pkl", "pickle", "pck", "pk", "p", "pt", "bin", "joblib", "dat",
		"ckpt", "model", "sav",
	};
	return ext_in(relpath, exts, sizeof(exts) / sizeof(exts[0]));
}

/* The first byte of a pickle: PROTO, or an opcode a protocol 0-1 payload
 * starts with (MARK, GLOBAL, INST, an empty container, NONE, a string or a
 * number). */
static int
pickle_start(unsigned char c)
{
	return c == 0x80 || (c != '\0' && strchr("(cidl}])NIJKLMSTUVXFGPp",
	    c) != NULL);
}

/* The walk is over: what a load of the file would resolve and call. */
static void
pickle_done(struct scan_worker *w, struct reader *rd)
{
	const struct pickle_global *g;
	size_t n, more, i;
	int evidence;

	if (rd->pk == NULL)
		return;
	pickle_walk_end(rd->pk);
	g = pickle_walk_globals(rd->pk, &n, &more);
	/* A pickle by its protocol, by its name, or a file that is pickles
	 * to its end: then every callable counts; otherwise (text that
	 * starts like one: the walk is lenient, and a '.' is a STOP) only
	 * dangerous ones, and only called. */
	evidence = pickle_walk_proto(rd->pk) >= 0 || pickle_name(w->relpath) ||
	    (!rd->pk_cut && pickle_walk_stops(rd->pk) > 0);
	for (i = 0; i < n && !w->nomem; i++) {
		enum al_severity sev;
		struct finding *f;

		if (g[i].cls == PICKLE_SAFE)
			continue;
		if (g[i].cls == PICKLE_DANGEROUS)
			sev = g[i].called || evidence ? AL_SEV_CRITICAL :
			    AL_SEV_NONE;
		else if (!evidence)
			sev = AL_SEV_NONE;
		else
			sev = g[i].called ? AL_SEV_HIGH : AL_SEV_LOW;
		if (sev == AL_SEV_NONE)
			continue;
		if (eng_meta_reserve(w, (size_t)eng_file_findings(w) + 1) < 0 ||
		    finding_add_builtinf(w->out, AL_RULE_PICKLE, w->path,
		    "loading this pickle %s %s.%s (opcode at byte %llu): %s",
		    g[i].called ? "calls" : "imports", g[i].module, g[i].name,
		    (unsigned long long)g[i].offset,
		    g[i].cls == PICKLE_DANGEROUS ? "it runs commands, code or "
		    "I/O" : "not a plain data type") < 0) {
			w->nomem = w->stop = 1;
			break;
		}
		f = &w->out->v[w->out->n - 1];
		f->severity = sev;
		memset(&w->meta[eng_file_findings(w) - 1], 0, sizeof(*w->meta));
	}
	if (evidence && more > 0 && !w->nomem &&
	    (eng_meta_reserve(w, (size_t)eng_file_findings(w) + 1) < 0 ||
	    finding_add_builtinf(w->out, AL_RULE_PICKLE, w->path, "a pickle "
	    "names %zu more callables than were read one by one", more) < 0))
		w->nomem = w->stop = 1;
	else if (evidence && more > 0)
		memset(&w->meta[eng_file_findings(w) - 1], 0, sizeof(*w->meta));
	rd->pk = NULL; /* the worker's: reset for the next file */
}

/* Reads up to n bytes of the file into dst: the count, 0 at its end, -1
 * (the file made unscannable) on an error or past the size limit. */
static ssize_t
raw_read(struct scan_worker *w, struct reader *rd, char *dst, size_t n)
{
	ssize_t r = source_read(rd->src, dst, n);

	if (r < 0) {
		eng_unscannable(w, "read error after %llu bytes: %s",
		    (unsigned long long)rd->total, strerror(errno));
		return -1;
	}
	if (r == 0) {
		w->eof = 1;
		return 0;
	}
	rd->total += (uint64_t)r;
	AL_ASSERT(!rd->item || EVP_DigestUpdate(w->imd, dst, (size_t)r) == 1);
	if (rd->pk != NULL && pickle_walk_feed(rd->pk,
	    (const unsigned char *)dst, (size_t)r) != 0) {
		rd->pk_cut = 1;
		pickle_done(w, rd);
	}
	if (rd->total > AL_MAX_FILE_BYTES) {
		eng_unscannable(w, "larger than the %llu-byte limit",
		    (unsigned long long)AL_MAX_FILE_BYTES);
		return -1;
	}
	return r;
}

/*
 * The strings of a text file's bytes, read on the side of the text the
 * rules read (at the top level): where NULs are dropped, the strings a
 * reader that a NUL stops sees (text 1, SCAN_STR_NUL_EDGES); in UTF-16,
 * the ASCII that sh would run and a UTF-16 reader turns into other
 * characters (text 2, ASCII lines appended to UTF-16 text). What both
 * readings find is reported once (strings_seen).
 */
static void
side_strings_begin(struct scan_worker *w, struct reader *rd, unsigned flags,
    int text, uint64_t off, unsigned char prev)
{
	if (w->depth > 0)
		return;
	if (w->sb == NULL && (w->sb = malloc(sizeof(*w->sb))) == NULL) {
		w->nomem = w->stop = 1;
		return;
	}
	scan_strings_init(&w->sb->x, flags);
	scan_strings_start_at(&w->sb->x, off, prev);
	w->sb->len = w->sb->n = 0;
	w->sb->artefact = 0;
	w->sb->text = text;
	w->sb->nseen = 0;
	rd->side = 1;
}

static void
side_strings_feed(struct scan_worker *w, struct reader *rd, const char *p,
    size_t n)
{
	if (rd->side && !w->stop && scan_strings_feed(&w->sb->x,
	    (const unsigned char *)p, n, on_string, w) != 0)
		rd->side = 0;
}

static void
side_strings_end(struct scan_worker *w, struct reader *rd)
{
	if (rd->side && !w->stop &&
	    scan_strings_end(&w->sb->x, on_string, w) == 0)
		strings_flush(w);
	rd->side = 0;
}

/* Drops the NUL bytes of p[0..n), as dash and bash do reading a script;
 * the strings that a NUL ends go to the side reader first, if it is on.
 * Returns the bytes left. */
static size_t
drop_nuls(struct scan_worker *w, struct reader *rd, char *p, size_t n)
{
	char *z = memchr(p, '\0', n), *o;
	uint64_t at = rd->total - n; /* the file offset of p[0] */
	size_t i;

	/* The reviewer is shown the file's bytes, NULs and all. */
	if (rd->item)
		item_keep(w, p, n);
	side_strings_feed(w, rd, p, n);
	if (z == NULL && !rd->in_nuls) {
		rd->last = n > 0 ? (unsigned char)p[n - 1] : rd->last;
		return n;
	}
	i = z != NULL ? (size_t)(z - p) : 0;
	o = p + i;
	if (i > 0)
		rd->last = (unsigned char)p[i - 1];
	for (; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == 0) {
			if (!rd->in_nuls)
				rd->nul_gap = at + i + 1;
			rd->in_nuls = 1;
			continue;
		}
		/* NULs inside a line change the text an excerpt shows; between
		 * two visible characters, they hide a word from a reader. */
		if (rd->in_nuls && ((rd->last != 0 && rd->last != '\n') ||
		    c != '\n'))
			rd->nul_line = 1;
		if (rd->in_nuls && rd->nul_at == 0 && c > ' ' && c < 0x7f &&
		    rd->last > ' ' && rd->last < 0x7f)
			rd->nul_at = rd->nul_gap;
		rd->in_nuls = 0;
		rd->last = c;
		*o++ = (char)c;
	}
	return (size_t)(o - p);
}

/* Appends the next text to read at dst (room bytes): as it is, with its
 * NULs dropped, or decoded from UTF-16. The count, 0 at the end, -1 on an
 * error. */
static ssize_t
text_fill(struct scan_worker *w, struct reader *rd, char *dst, size_t room)
{
	ssize_t r;
	size_t used, k;

	while (rd->u16.order == SCAN_UTF16_NO) {
		unsigned char prev = dst > w->buf ? (unsigned char)dst[-1] : 0;

		if ((r = raw_read(w, rd, dst, room)) <= 0)
			return r;
		if (!rd->drop_nul) {
			/* Text so far; a NUL after the first bytes (which had
			 * none) is dropped as sh drops it, and so is every one
			 * after it: the same reading as from the start. */
			if (memchr(dst, '\0', (size_t)r) == NULL)
				return r;
			rd->drop_nul = 1;
			rd->last = prev;
			side_strings_begin(w, rd, SCAN_STR_NUL_EDGES, 1,
			    rd->total - (uint64_t)r, prev);
		}
		if ((k = drop_nuls(w, rd, dst, (size_t)r)) > 0)
			return (ssize_t)k;
	}
	for (;;) {
		if (rd->rpos == rd->rlen && !rd->raw_eof) {
			if ((r = raw_read(w, rd, (char *)w->rbuf,
			    AL_SCAN_CHUNK)) < 0)
				return -1;
			side_strings_feed(w, rd, (const char *)w->rbuf,
			    (size_t)r);
			w->eof = 0; /* not until the decoder is done too */
			rd->raw_eof = r == 0;
			rd->rlen = (size_t)r;
			rd->rpos = 0;
		}
		k = scan_u16_decode(&rd->u16, w->rbuf + rd->rpos,
		    rd->rlen - rd->rpos, &used, (unsigned char *)dst, room,
		    rd->raw_eof);
		rd->rpos += used;
		if (k > 0)
			return (ssize_t)k;
		if (rd->raw_eof) {
			w->eof = 1;
			return 0;
		}
	}
}

/* Named as a file sh runs or sources. */
static int
shell_script(const char *relpath)
{
	static const char *const exts[] = {"sh", "bash", "zsh", "ksh", "dash"};
	static const char *const names[] = {
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
		".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
		".kshrc", ".envrc", "profile", "bashrc", "zshrc",
	};
	const char *slash = strrchr(relpath, '/');
	const char *base = slash != NULL ? slash + 1 : relpath;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(base, names[i]) == 0)
			return 1;
	return ext_in(relpath, exts, sizeof(exts) / sizeof(exts[0]));
}

/* A text file with NUL bytes, whose first n bytes are in w->buf: read
 * on with its NULs dropped, as sh reads it; at the top level, its strings
 * that a NUL ends are read on the side, for readers that stop at a NUL.
 * Returns the first text's length, as text_fill. */
static ssize_t
nul_text_begin(struct scan_worker *w, struct reader *rd, size_t n)
{
	size_t k;

	rd->drop_nul = 1;
	side_strings_begin(w, rd, SCAN_STR_NUL_EDGES, 1, 0, 0);
	if (w->stop)
		return -1;
	if ((k = drop_nuls(w, rd, w->buf, n)) > 0)
		return (ssize_t)k;
	return text_fill(w, rd, w->buf, KEEP + AL_SCAN_CHUNK);
}

/* The end of a text file read with its NULs dropped: the strings read on
 * the side, and a finding if NULs stood between two characters. */
static void
nul_text_end(struct scan_worker *w, struct reader *rd)
{
	char msg[256];

	if (rd->in_nuls && rd->last != 0 && rd->last != '\n')
		rd->nul_line = 1; /* the last line ends in NULs */
	/* The excerpts say how the file was read (they are made at its end);
	 * NULs only between lines change no line. */
	if (rd->nul_line)
		w->via = "read with its NUL bytes dropped, as sh reads it";
	if (rd->nul_at == 0 || w->depth > 0 || w->stop)
		return;
	snprintf(msg, sizeof(msg), "NUL bytes between characters (the first "
	    "at byte %llu): sh drops them and runs what is left, while "
	    "editors, diffs and grep show the file as binary or cut it; "
	    "read here as sh reads it", (unsigned long long)rd->nul_at - 1);
	worker_builtin(w, AL_RULE_NUL_TEXT, msg);
	/* Records a NUL separates (find -print0, environ) are data; in a
	 * shell script, NULs have no use but hiding. */
	if (!w->nomem && (rd->shebang || shell_script(w->relpath)))
		w->out->v[w->out->n - 1].severity = AL_SEV_MEDIUM;
}

/* The strings of a binary file whose first n bytes are in w->buf. */
static void
read_strings(struct scan_worker *w, struct reader *rd, size_t n)
{
	ssize_t r = (ssize_t)n;

	if (w->sb == NULL && (w->sb = malloc(sizeof(*w->sb))) == NULL) {
		w->nomem = w->stop = 1;
		return;
	}
	scan_strings_init(&w->sb->x, SCAN_STR_DROP_NUL);
	w->sb->len = w->sb->n = 0;
	w->sb->artefact = build_artefact(w);
	w->sb->text = 0;
	w->sb->nseen = 0;
	while (r > 0 && !w->stop) {
		if (scan_strings_feed(&w->sb->x, (unsigned char *)w->buf,
		    (size_t)r, on_string, w) != 0)
			break;
		r = raw_read(w, rd, w->buf, KEEP + AL_SCAN_CHUNK);
	}
	if (!w->stop && scan_strings_end(&w->sb->x, on_string, w) == 0)
		strings_flush(w);
}

static int
scan_source(struct scan_worker *w, struct source *src, const char *path,
    const char *relpath, struct finding_list *out, uint64_t *bytes)
{
	const struct scan_engine *e = w->e;
	hs_stream_t *stream = NULL;
	struct reader rd = {0};
	ssize_t n;
	size_t bom = 0;
	int binary = 0, how, item = w->items != NULL && w->depth == 0, whole;
	const hs_database_t *db;

	rd.src = src;
	rd.item = item;
	w->mime = NULL;
	w->via = NULL;
	w->ibuf_len = 0;
	w->ibuf_over = 0;
	if (item && EVP_DigestInit_ex(w->imd, al_sha256_md(), NULL) != 1)
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	file_begin(w, path, relpath, out);
	if (w->nomem)
		return al_err_set(AL_ENOMEM, "out of memory");
	/* The first bytes say how the file is read: as UTF-16 text, as a
	 * binary's strings, or as it is; and whether as a pickle too. */
	n = raw_read(w, &rd, w->buf, KEEP + AL_SCAN_CHUNK);
	/* A short read: read on until the buffer is full or the file ends,
	 * to know whether the first chunk is the whole file. */
	while (n > 0 && (size_t)n < KEEP + AL_SCAN_CHUNK && !w->eof) {
		ssize_t r = raw_read(w, &rd, w->buf + n,
		    KEEP + AL_SCAN_CHUNK - (size_t)n);

		if (r < 0)
			n = r;
		if (r <= 0)
			break;
		n += r;
	}
	whole = w->eof;
	if (n > 0 && w->depth == 0 && !w->strings_only &&
	    (pickle_start((unsigned char)w->buf[0]) || pickle_name(relpath))) {
		if (w->pickle == NULL && (w->pickle = pickle_walk_new()) ==
		    NULL) {
			w->nomem = w->stop = 1;
		} else {
			pickle_walk_reset(w->pickle);
			rd.pk = w->pickle;
			if (pickle_walk_feed(rd.pk, (unsigned char *)w->buf,
			    (size_t)n) != 0) {
				rd.pk_cut = 1;
				pickle_done(w, &rd);
			}
		}
	}
	rd.shebang = n >= 2 && w->buf[0] == '#' && w->buf[1] == '!';
	if (n > 0) {
		check_type(w, w->buf, (size_t)n);
		if (w->depth == 0 && (rd.u16.order = scan_utf16_sniff(
		    (unsigned char *)w->buf, (size_t)n, &bom)) != SCAN_UTF16_NO) {
			side_strings_begin(w, &rd, SCAN_STR_DROP_NUL, 2, 0, 0);
			side_strings_feed(w, &rd, w->buf, (size_t)n);
			if (w->rbuf == NULL && (w->rbuf =
			    malloc(KEEP + AL_SCAN_CHUNK)) == NULL)
				w->nomem = w->stop = 1;
			else
				memcpy(w->rbuf, w->buf + bom, (size_t)n - bom);
			rd.rlen = (size_t)n - bom;
			rd.raw_eof = w->eof;
			w->eof = 0;
			w->via = rd.u16.order == SCAN_UTF16_LE ?
			    "read as UTF-16LE" : "read as UTF-16BE";
			n = w->stop ? -1 : text_fill(w, &rd, w->buf,
			    KEEP + AL_SCAN_CHUNK);
		} else if ((how = nul_reading(relpath, w->buf, (size_t)n)) ==
		    1) {
			n = nul_text_begin(w, &rd, (size_t)n);
		} else if (how == 2) {
			binary = 1; /* not for the text rules */
			if (w->depth == 0)
				read_strings(w, &rd, (size_t)n);
			n = 0;
		}
	}
	/* A file read whole by then, as it is, whose atoms are held: its
	 * stream looks for the key atoms only (rest_scan). */
	w->light = e->db_light != NULL && w->deferring && w->depth == 0 &&
	    whole && rd.u16.order == SCAN_UTF16_NO && !rd.drop_nul;
	db = w->light ? e->db_light : e->db;
	if (!binary && db != NULL && n > 0 &&
	    hs_open_stream(db, 0, &stream) != HS_SUCCESS) {
		eng_unscannable(w, "the scan engine could not open a stream");
		stream = NULL;
	}
	while (n > 0 && !w->stop) {
		const char *chunk;

		if (item && !rd.drop_nul)
			item_keep(w, w->buf + w->buf_len, (size_t)n);
		w->buf_len += (size_t)n;
		chunk = w->buf + w->buf_len - (size_t)n;
		ftext_keep(w, chunk, (size_t)n);
		if (stream == NULL)
			goto next;
		flush_pending(w);
		if (w->stop)
			break;
		/* The prefilter's `^` holds only after LF; a lone CR ends a
		 * line too (the rules' regexes know, scan_read.h). */
		if (w->crbuf == NULL && memchr(chunk, '\r', (size_t)n) &&
		    (w->crbuf = malloc(KEEP + AL_SCAN_CHUNK)) == NULL) {
			w->nomem = w->stop = 1;
			break;
		}
		if (w->crbuf != NULL &&
		    scan_lone_cr(chunk, (size_t)n, w->crbuf))
			chunk = w->crbuf;
		norm_pending(w);
		if (hs_scan_stream(stream, chunk, (unsigned)n, 0, w->scratch,
		    on_hit, w) != HS_SUCCESS && !w->stop)
			eng_unscannable(w, "the scan engine failed");
		qtrig_run(w, UINT64_MAX);
		if (w->depth < AL_DECODE_DEPTH && !w->stop) {
			w->blob_pos = eng_find_b64hex(w, w->blob_pos,
			    w->buf_off + w->buf_len, 0);
			w->xesc_pos = eng_find_xesc(w, w->xesc_pos,
			    w->buf_off + w->buf_len, 0);
		}
next:
		if (w->stop)
			break;
		/* Slide only when the buffer is nearly full: a file that fits
		 * is never slid, so its lines are counted only up to its
		 * hits. */
		if (KEEP + AL_SCAN_CHUNK - w->buf_len < AL_SCAN_CHUNK / 4)
			slide(w);
		n = text_fill(w, &rd, w->buf + w->buf_len,
		    KEEP + AL_SCAN_CHUNK - w->buf_len);
	}
	if (stream != NULL) {
		flush_pending(w);
		/* Matches that end at end of data ($, \b) are reported here. */
		if (hs_close_stream(stream, w->scratch, w->stop ? NULL : on_hit,
		    w) != HS_SUCCESS && !w->stop)
			eng_unscannable(w, "the scan engine failed at end of "
			    "data");
		norm_pending(w);
		if (w->depth < AL_DECODE_DEPTH && !w->stop) {
			(void)eng_find_b64hex(w, w->blob_pos,
			    w->buf_off + w->buf_len, 1);
			(void)eng_find_xesc(w, w->xesc_pos,
			    w->buf_off + w->buf_len, 1);
		}
	}
	side_strings_end(w, &rd);
	if (rd.drop_nul)
		nul_text_end(w, &rd);
	/* A binary file is still hashed whole, for the allow-list and the
	 * item record (its strings were read above at the top level). */
	while (binary && !w->stop && !w->eof && (src->md != NULL || item) &&
	    raw_read(w, &rd, w->buf, KEEP + AL_SCAN_CHUNK) > 0)
		;
	/* A pickle is read to its end, even where the rules stopped. */
	while (rd.pk != NULL && !w->eof && !w->nomem &&
	    raw_read(w, &rd, w->buf, KEEP + AL_SCAN_CHUNK) > 0)
		;
	pickle_done(w, &rd);
	*bytes += rd.total;
	norm_flush(w);
	alias_view(w);
	xor_view(w);
	rest_scan(w);
	defer_end(w);
	flow_decide(w);
	if (w->nomem || eng_finish_file(w) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (item && item_push(w, path, rd.total, w->eof, binary) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	w->item_mode = 0;
	return 0;
}

/* Scans decoded bytes with a child worker one level deeper. */
int
eng_scan_nested(struct scan_worker *w, const unsigned char *p, size_t n,
    struct finding_list *out)
{
	struct source src = {-1, (const char *)p, n, 0, NULL, NULL, NULL};
	uint64_t bytes = 0;
	int rc;

	if (w->child == NULL) {
		if ((rc = scan_worker_new(&w->child, w->e)) < 0)
			return rc;
		w->child->depth = w->depth + 1;
	}
	w->child->atoms_up = w->views_flushing;
	/* The same path: the globs matched so far hold (a view batch or a
	 * decoded blob would match every scoped rule's globs again). */
	memcpy(w->child->glob_memo, w->glob_memo, w->e->nglobs);
	w->child->memo_kept = 1;
	rc = scan_source(w->child, &src, w->path, w->relpath, out, &bytes);
	w->child->atoms_up = 0;
	return rc;
}

int
scan_fd(struct scan_worker *w, int fd, const char *path, const char *relpath,
    struct finding_list *out, uint64_t *bytes, char *digest)
{
	struct source src = {fd, NULL, 0, 0, NULL, NULL, NULL};
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int rc;

	if (digest != NULL) {
		digest[0] = '\0';
		if ((src.md = EVP_MD_CTX_new()) == NULL ||
		    EVP_DigestInit_ex(src.md, al_sha256_md(), NULL) != 1) {
			EVP_MD_CTX_free(src.md);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
	}
	rc = scan_source(w, &src, path, relpath, out, bytes);
	/* Only a file read to its end has a digest. */
	if (digest != NULL && rc == 0 && w->eof &&
	    EVP_DigestFinal_ex(src.md, md, &mdlen) == 1 && mdlen == 32)
		al_hex(digest, md, mdlen);
	EVP_MD_CTX_free(src.md);
	return rc;
}

int
scan_stream(struct scan_worker *w, scan_read_fn cb, void *ctx,
    const char *path, const char *relpath, struct finding_list *out,
    uint64_t *bytes)
{
	struct source src = {-1, NULL, 0, 0, NULL, cb, ctx};

	return scan_source(w, &src, path, relpath, out, bytes);
}

int
scan_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, const char *relpath, struct finding_list *out)
{
	struct source src = {-1, data ? data : "", len, 0, NULL, NULL, NULL};
	uint64_t bytes = 0;

	return scan_source(w, &src, path, relpath, out, &bytes);
}
