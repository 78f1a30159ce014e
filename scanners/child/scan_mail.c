/*
 * scan_mail.c - one mail decoded as `git mailinfo` decodes it; see
 * scan_mail.h.
 *
 * This follows git's mailinfo.c (2.39) step by step, because the bytes git
 * am applies are whatever that code makes of the mail, quirks included: a
 * header ends at the first line that is not "name:" (or "From "), its
 * trailing blanks dropped; a Content-Transfer-Encoding naming base64 or
 * quoted-printable anywhere in its value decodes every later body line,
 * each line on its own (base64 quanta do not run across lines; characters
 * outside the alphabet are skipped); a boundary is any line that begins
 * with "--" and the boundary, and the line after a part's header is
 * dropped; each part's body joins the same stream. The reading has two
 * stages: the body is decoded into records (the lines mailinfo hands to
 * its filter, each with the charset of its part), then the filter splits
 * the records into commit message and patch, once without scissors and
 * once with, so that either configuration of the consumer is covered.
 *
 * Trust: input is hostile; this runs only in the sandboxed scan child.
 * Every read is within (pointer, length); nothing recurses. Limits: git's
 * own (4 nested boundaries); the output of decoding is bounded by twice
 * the input; the copying format=flowed lines inside an encoded body cost
 * (quadratic in git) is bounded by AL_MAIL_WORK_FACTOR times the mail,
 * past which the mail is unscannable and decoding stops.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "scan_mail.h"
#include "text.h"
#include "util.h"

/* mailinfo.c MAX_BOUNDARIES: content[0] means "not multipart", so four
 * boundaries nest at most; a fifth is an error there. */
#define GIT_MAX_BOUNDARIES 5

enum te { TE_DONTCARE, TE_QP, TE_BASE64 };
enum cs { CS_NONE, CS_UTF8, CS_ASCII, CS_LATIN1, CS_OTHER };
enum { H_FROM, H_SUBJECT, H_DATE, H_N };
static const char *const hname[H_N] = { "From", "Subject", "Date" };

struct rec {
	size_t off, len;          /* in rd.stream */
	unsigned char cs;         /* enum cs of the part it came from */
};

/* mailinfo's state while the body is decoded. */
struct rd {
	struct mail *m;
	const char *base, *p, *end;
	const char *line_at;      /* where the last header line read began */
	uint64_t lineno;          /* lines read so far */
	struct dynbuf bnd[GIT_MAX_BOUNDARIES];
	int top;                  /* 0: not (or no longer) multipart */
	int te, flowed, delsp;
	unsigned char cs;
	char csname[64];          /* the first charset airlock cannot convert */
	struct dynbuf pend;       /* mailinfo's "prev": a partial line */
	struct dynbuf work, tmp;
	struct dynbuf stream;
	struct rec *rec;
	size_t nrec, caprec;
	size_t copied, budget;
	int have[H_N];            /* p_hdr_data set */
	int stop;                 /* input_error: git stops reading */
	int rc;                   /* AL_ENOMEM */
};

static int
git_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The first reason wins: it is the one the reviewer needs. */
static void
why(struct rd *r, const char *a, const char *b, const char *c)
{
	struct dynbuf d;

	if (r->m->why[0] != '\0')
		return;
	dynbuf_init(&d, sizeof(r->m->why) - 1);
	if (dynbuf_adds(&d, a) == 0 && dynbuf_adds(&d, b) == 0)
		(void)!dynbuf_adds(&d, c);
	memcpy(r->m->why, dynbuf_str(&d), d.len + 1);
	if (r->m->why[0] == '\0')
		memcpy(r->m->why, "undecodable", sizeof("undecodable"));
	dynbuf_free(&d);
}

static void
put(struct rd *r, struct dynbuf *b, const void *p, size_t n)
{
	if (r->rc == 0 && n > 0 && dynbuf_add(b, p, n) < 0) {
		r->rc = al_err_set(AL_ENOMEM, "out of memory");
		r->stop = 1;
	}
}

static void
swap(struct dynbuf *a, struct dynbuf *b)
{
	struct dynbuf t = *a;

	*a = *b;
	*b = t;
}

/* ---- charsets ----------------------------------------------------------- */

static int
name_is(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && strncasecmp(p, s, n) == 0;
}

/* git's same_encoding() against "UTF-8", then what airlock converts. */
static unsigned char
charset_kind(struct rd *r, const char *p, size_t n)
{
	static const char *const ascii[] = { "us-ascii", "ascii",
	    "ansi_x3.4-1968", "us", NULL };
	static const char *const latin1[] = { "iso-8859-1", "iso8859-1",
	    "iso_8859-1", "latin1", "latin-1", "l1", NULL };
	size_t i;

	if (n == 0)
		return CS_NONE;
	if (name_is(p, n, "utf8") || name_is(p, n, "utf-8"))
		return CS_UTF8;
	for (i = 0; ascii[i] != NULL; i++)
		if (name_is(p, n, ascii[i]))
			return CS_ASCII;
	for (i = 0; latin1[i] != NULL; i++)
		if (name_is(p, n, latin1[i]))
			return CS_LATIN1;
	if (r->csname[0] == '\0') {
		size_t k = n < sizeof(r->csname) - 1 ? n : sizeof(r->csname) - 1;

		memcpy(r->csname, p, k);
		r->csname[k] = '\0';
	}
	return CS_OTHER;
}

/* Appends text in charset cs to out as UTF-8, as git's iconv call would
 * convert it; when airlock cannot, or git would fail, says why and
 * appends the bytes as they are. */
static void
convert(struct rd *r, struct dynbuf *out, const char *p, size_t n,
    unsigned char cs)
{
	size_t i;

	switch (cs) {
	case CS_LATIN1:
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)p[i];
			char u[2];

			if (c < 0x80) {
				put(r, out, &p[i], 1);
				continue;
			}
			u[0] = (char)(0xc0 | (c >> 6));
			u[1] = (char)(0x80 | (c & 0x3f));
			put(r, out, u, 2);
		}
		return;
	case CS_ASCII:
		for (i = 0; i < n; i++)
			if ((unsigned char)p[i] >= 0x80) {
				why(r, "text in charset us-ascii holds a non-ASCII "
				    "byte: git am cannot convert it", "", "");
				break;
			}
		break;
	case CS_OTHER:
		why(r, "charset \"", r->csname, "\": git am converts it to "
		    "UTF-8 with iconv, airlock does not convert it");
		break;
	default:
		break;
	}
	put(r, out, p, n);
}

/* ---- decoders (mailinfo.c decode_q_segment, decode_b_segment) ----------- */

static void
decode_q(struct rd *r, struct dynbuf *out, const char *p, size_t n,
    int rfc2047)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = p[i];

		if (c == '=') {
			if (i + 1 >= n || p[i + 1] == '\n')
				break;    /* a soft line break */
			if (i + 2 < n && al_hex_digit(p[i + 1]) >= 0 &&
			    al_hex_digit(p[i + 2]) >= 0) {
				c = (char)(al_hex_digit(p[i + 1]) * 16 + al_hex_digit(p[i + 2]));
				put(r, out, &c, 1);
				i += 2;
				continue;
			}
		}
		if (rfc2047 && c == '_')
			c = ' ';
		put(r, out, &c, 1);
	}
}

static void
decode_b(struct rd *r, struct dynbuf *out, const char *p, size_t n)
{
	unsigned acc = 0, pos = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)p[i];
		char o;

		if (c == '+')
			c = 62;
		else if (c == '/')
			c = 63;
		else if (c >= 'A' && c <= 'Z')
			c -= 'A';
		else if (c >= 'a' && c <= 'z')
			c = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			c = c - '0' + 52;
		else
			continue;
		switch (pos++) {
		case 0:
			acc = (unsigned)c << 2;
			break;
		case 1:
			o = (char)(acc | ((unsigned)c >> 4));
			put(r, out, &o, 1);
			acc = ((unsigned)c & 15) << 4;
			break;
		case 2:
			o = (char)(acc | ((unsigned)c >> 2));
			put(r, out, &o, 1);
			acc = ((unsigned)c & 3) << 6;
			break;
		default:
			o = (char)(acc | (unsigned)c);
			put(r, out, &o, 1);
			acc = pos = 0;
			break;
		}
	}
}

/* mailinfo.c decode_header: RFC 2047 words decoded and converted; white
 * space between two words dropped. A malformed word is an error there (git
 * am stops): said, and the value kept as it is. */
static void
decode_header(struct rd *r, struct dynbuf *out, const char *v, size_t n)
{
	const char *in = v, *end = v + n, *ep;
	size_t mark = out->len;

	while ((ep = al_memcasemem(in, (size_t)(end - in), "=?", 2)) != NULL) {
		const char *s, *cp, *q;
		struct dynbuf dec;
		unsigned char cs;
		int enc;

		for (s = in; s < ep && git_isspace((unsigned char)*s); s++)
			;
		if (s != ep || in == v)
			put(r, out, in, (size_t)(ep - in));
		ep += 2;
		cp = ep < end ? memchr(ep, '?', (size_t)(end - ep)) : NULL;
		if (cp == NULL || end - cp < 3 || cp[2] != '?')
			goto bad;
		enc = al_lower((unsigned char)cp[1]);
		q = al_memcasemem(cp + 3, (size_t)(end - cp - 3), "?=", 2);
		if (q == NULL || (enc != 'b' && enc != 'q'))
			goto bad;
		cs = charset_kind(r, ep, (size_t)(cp - ep));
		dynbuf_init(&dec, n + 1);
		if (enc == 'b')
			decode_b(r, &dec, cp + 3, (size_t)(q - cp - 3));
		else
			decode_q(r, &dec, cp + 3, (size_t)(q - cp - 3), 1);
		convert(r, out, dec.data != NULL ? dec.data : "", dec.len, cs);
		dynbuf_free(&dec);
		in = q + 2;
	}
	put(r, out, in, (size_t)(end - in));
	return;
bad:
	why(r, "a header holds a malformed RFC 2047 encoded word: git am "
	    "stops at it", "", "");
	out->len = mark;
	put(r, out, v, n);
}

/* ---- headers ------------------------------------------------------------ */

/* Name, ':', blanks: where the value starts, or NULL. */
static const char *
skip_header(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);
	const char *v;

	if (n <= k || strncasecmp(p, name, k) != 0 || p[k] != ':')
		return NULL;
	for (v = p + k + 1; v < p + n && git_isspace((unsigned char)*v); v++)
		;
	return v;
}

static int
is_rfc2822_header(const char *p, size_t n)
{
	size_t i;

	if (al_starts(p, n, "From ") || al_starts(p, n, ">From "))
		return 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == ':')
			return 1;
		if (!((c >= 33 && c <= 57) || (c >= 59 && c <= 126)))
			break;
	}
	return 0;
}

/* mailinfo.c slurp_attr: the value of "name" anywhere in the line. */
static int
slurp_attr(const char *p, size_t n, const char *name, const char **v,
    size_t *vn)
{
	const char *a = al_memcasemem(p, n, name, strlen(name)), *end = p + n;
	const char *s;

	*vn = 0;
	if (a == NULL)
		return 0;
	a += strlen(name);
	if (a < end && *a == '"') {
		a++;
		for (s = a; s < end && *s != '"'; s++)
			;
	} else {
		for (s = a; s < end && *s != ';' && *s != ' ' && *s != '\t'; s++)
			;
	}
	*v = a;
	*vn = (size_t)(s - a);
	return 1;
}

static int
has_attr(const char *p, size_t n, const char *name, const char *value)
{
	const char *v;
	size_t vn;

	return slurp_attr(p, n, name, &v, &vn) && name_is(v, vn, value);
}

static void
content_type(struct rd *r, const char *p, size_t n)
{
	const char *v = "";
	size_t vn;

	r->flowed = has_attr(p, n, "format=", "flowed");
	r->delsp = has_attr(p, n, "delsp=", "yes");
	if (slurp_attr(p, n, "boundary=", &v, &vn)) {
		if (r->top + 1 >= GIT_MAX_BOUNDARIES) {
			why(r, "multipart bodies nested deeper than git am "
			    "reads (4 boundaries)", "", "");
			return;
		}
		r->top++;
		dynbuf_reset(&r->bnd[r->top]);
		put(r, &r->bnd[r->top], "--", 2);
		put(r, &r->bnd[r->top], v, vn);
	}
	slurp_attr(p, n, "charset=", &v, &vn);
	r->cs = charset_kind(r, v, vn);
}

static void
transfer_encoding(struct rd *r, const char *p, size_t n)
{
	static const char *const known[] = { "7bit", "8bit", "binary",
	    "base64", "quoted-printable", NULL };
	size_t i, k = n;

	if (al_memcasemem(p, n, "base64", 6) != NULL)
		r->te = TE_BASE64;
	else if (al_memcasemem(p, n, "quoted-printable", 16) != NULL)
		r->te = TE_QP;
	else
		r->te = TE_DONTCARE;
	while (k > 0 && git_isspace((unsigned char)p[k - 1]))
		k--;
	for (i = 0; known[i] != NULL; i++)
		if (name_is(p, k, known[i]))
			return;
	why(r, "a Content-Transfer-Encoding airlock does not know: git am "
	    "reads such a body ", r->te == TE_DONTCARE ? "as it stands" :
	    "as the encoding it names", ", a mail reader may not");
}

/* Keeps a decoded header value for scanning: when decoding changed it, or
 * when its raw line is not in the prose (a part's header). */
static void
keep_hval(struct rd *r, struct mail_mode *mm, int h, const char *raw,
    size_t rn, const struct dynbuf *dec, uint64_t line, int always)
{
	struct mail_hval *hv;

	if (!always && dec->len == rn && (rn == 0 || memcmp(dec->data, raw,
	    rn) == 0))
		return;
	if (mm->nhv == mm->caphv) {
		size_t cap = mm->caphv ? 2 * mm->caphv : 8;

		hv = reallocarray(mm->hv, cap, sizeof(*hv));
		if (hv == NULL) {
			r->rc = al_err_set(AL_ENOMEM, "out of memory");
			r->stop = 1;
			return;
		}
		mm->hv = hv;
		mm->caphv = cap;
	}
	hv = &mm->hv[mm->nhv];
	hv->off = mm->htext.len;
	put(r, &mm->htext, hname[h], strlen(hname[h]));
	put(r, &mm->htext, ": ", 2);
	put(r, &mm->htext, dec->data, dec->len);
	put(r, &mm->htext, "\n", 1);
	hv->len = mm->htext.len - hv->off;
	hv->line = line;
	if (r->rc == 0)
		mm->nhv++;
}

enum level { L_TOP, L_PART };

/* mailinfo.c check_header for the mail's and its parts' headers. */
static void
check_header(struct rd *r, const struct dynbuf *line, enum level lv,
    uint64_t lineno)
{
	const char *p = line->data != NULL ? line->data : "", *v;
	size_t n = line->len;
	struct dynbuf dec;
	int h;

	/* Decoding never grows a value; converting ISO-8859-1 doubles it. */
	dynbuf_init(&dec, 2 * n + 16);
	for (h = 0; h < H_N; h++)
		if ((!r->have[h] || lv == L_TOP) &&
		    (v = skip_header(p, n, hname[h])) != NULL) {
			decode_header(r, &dec, v, (size_t)(p + n - v));
			r->have[h] = 1;
			keep_hval(r, &r->m->mode[0], h, v, (size_t)(p + n - v),
			    &dec, lv == L_TOP ? lineno : 0, lv == L_PART);
			goto done;
		}
	if ((v = skip_header(p, n, "Content-Type")) != NULL) {
		decode_header(r, &dec, v, (size_t)(p + n - v));
		content_type(r, dec.data != NULL ? dec.data : "", dec.len);
	} else if ((v = skip_header(p, n, "Content-Transfer-Encoding")) != NULL) {
		decode_header(r, &dec, v, (size_t)(p + n - v));
		transfer_encoding(r, dec.data != NULL ? dec.data : "", dec.len);
	} else if ((v = skip_header(p, n, "Message-ID")) != NULL) {
		decode_header(r, &dec, v, (size_t)(p + n - v));
	}
done:
	if (memchr(dec.data != NULL ? dec.data : "", '\0', dec.len) != NULL)
		why(r, "a header decodes to a NUL byte: git am refuses it", "",
		    "");
	dynbuf_free(&dec);
}

/* ---- reading lines ------------------------------------------------------ */

/* strbuf_getwholeline (keep) or strbuf_getline_lf: -1 at the end. */
static int
getline_(struct rd *r, struct dynbuf *line, int keep_lf)
{
	const char *nl;
	size_t n;

	dynbuf_reset(line);
	if (r->p >= r->end)
		return -1;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	n = nl != NULL ? (size_t)(nl - r->p) + 1 : (size_t)(r->end - r->p);
	put(r, line, r->p, n - (nl != NULL && !keep_lf));
	r->p += n;
	r->lineno++;
	return 0;
}

static void
rtrim(struct dynbuf *b)
{
	while (b->len > 0 && git_isspace((unsigned char)b->data[b->len - 1]))
		b->len--;
	if (b->data != NULL)
		b->data[b->len] = '\0';
}

/* mailinfo.c read_one_header_line: 1 and the unfolded header in line, or
 * 0 and the line after the header (trailing blanks dropped, LF added). */
static int
read_header_line(struct rd *r, struct dynbuf *line, uint64_t *lineno)
{
	struct dynbuf cont;

	r->line_at = r->p;
	*lineno = r->lineno + 1;
	if (getline_(r, line, 0) < 0)
		return 0;
	rtrim(line);
	if (line->len == 0 || !is_rfc2822_header(line->data, line->len)) {
		put(r, line, "\n", 1);
		return 0;
	}
	dynbuf_init(&cont, AL_PATCH_MAX_BYTES);
	while (r->rc == 0 && r->p < r->end && (*r->p == ' ' || *r->p == '\t')) {
		if (getline_(r, &cont, 0) < 0 || r->rc != 0)
			break;
		cont.data[0] = ' ';
		rtrim(&cont);
		put(r, line, cont.data, cont.len);
	}
	dynbuf_free(&cont);
	return 1;
}

/* ---- the body ----------------------------------------------------------- */

static void
emit(struct rd *r, const char *p, size_t n)
{
	struct rec *rc;

	if (r->nrec == r->caprec) {
		size_t cap = r->caprec ? 2 * r->caprec : 64;

		rc = reallocarray(r->rec, cap, sizeof(*rc));
		if (rc == NULL) {
			r->rc = al_err_set(AL_ENOMEM, "out of memory");
			r->stop = 1;
			return;
		}
		r->rec = rc;
		r->caprec = cap;
	}
	rc = &r->rec[r->nrec];
	rc->off = r->stream.len;
	rc->len = n;
	rc->cs = r->cs;
	put(r, &r->stream, p, n);
	if (r->rc == 0)
		r->nrec++;
}

static void
count(struct rd *r, size_t n)
{
	r->copied += n;
	if (r->copied > r->budget && !r->stop) {
		why(r, "format=flowed lines in an encoded body that would cost "
		    "airlock more than it reads", "", "");
		r->m->cut = 1;
		r->stop = 1;
	}
}

/* mailinfo.c handle_filter_flowed. */
static void
flowed(struct rd *r, const char *p, size_t n)
{
	size_t len = n;

	if (!r->flowed) {
		emit(r, p, n);
		return;
	}
	if (len > 0 && p[len - 1] == '\n') {
		len--;
		if (len > 0 && p[len - 1] == '\r')
			len--;
	}
	if (len == 3 && memcmp(p, "-- ", 3) == 0) {
		if (r->pend.len > 0) {
			emit(r, r->pend.data, r->pend.len);
			dynbuf_reset(&r->pend);
		}
		emit(r, p, n);
		return;
	}
	if (len > 0 && p[0] == ' ') {
		p++;
		n--;
		len--;
	}
	if (len > 0 && p[len - 1] == ' ') {
		put(r, &r->pend, p, len - (r->delsp ? 1 : 0));
		count(r, len);
		return;
	}
	if (r->pend.len > 0) {
		put(r, &r->pend, p, n);
		count(r, r->pend.len);
		emit(r, r->pend.data, r->pend.len);
		dynbuf_reset(&r->pend);
	} else {
		emit(r, p, n);
	}
}

/* One body line: its transfer encoding undone, the pieces to the filter. */
static void
body_line(struct rd *r, const struct dynbuf *line)
{
	const char *p = line->data != NULL ? line->data : "", *nl;
	size_t start, from;

	if (r->te == TE_DONTCARE) {
		flowed(r, p, line->len);
		return;
	}
	/* line = prev + decoded; prev = "" (prev never holds a LF). */
	swap(&r->work, &r->pend);
	from = r->work.len;
	dynbuf_reset(&r->tmp);
	if (r->te == TE_QP)
		decode_q(r, &r->tmp, p, line->len, 0);
	else
		decode_b(r, &r->tmp, p, line->len);
	put(r, &r->work, r->tmp.data, r->tmp.len);
	for (start = 0; r->rc == 0 && from < r->work.len &&
	    (nl = memchr(r->work.data + from, '\n', r->work.len - from)) != NULL;
	    start = from) {
		from = (size_t)(nl - r->work.data) + 1;
		flowed(r, r->work.data + start, from - start);
	}
	if (start == 0)
		swap(&r->work, &r->pend);    /* no LF: it all stays prev */
	else
		put(r, &r->pend, r->work.data + start, r->work.len - start);
	dynbuf_reset(&r->work);
}

static int
is_boundary(const struct rd *r, const struct dynbuf *line)
{
	const struct dynbuf *b = &r->bnd[r->top];

	return b->len <= line->len && memcmp(line->data, b->data, b->len) == 0;
}

static int
find_boundary(struct rd *r, struct dynbuf *line)
{
	while (r->rc == 0 && getline_(r, line, 0) == 0)
		if (r->top > 0 && is_boundary(r, line))
			return 1;
	return 0;
}

/* mailinfo.c handle_boundary: 0 when the body ends here. */
static int
handle_boundary(struct rd *r, struct dynbuf *line)
{
	uint64_t ln;

	for (;;) {
		const struct dynbuf *b = &r->bnd[r->top];

		if (!(line->len >= b->len + 2 &&
		    memcmp(line->data + b->len, "--", 2) == 0))
			break;
		dynbuf_reset(&r->bnd[r->top]);
		r->top--;
		emit(r, "\n", 1);
		if (r->stop || !find_boundary(r, line))
			return 0;
	}
	r->te = TE_DONTCARE;
	r->cs = CS_NONE;
	while (r->rc == 0 && read_header_line(r, line, &ln))
		check_header(r, line, L_PART, ln);
	if (getline_(r, line, 0) < 0)
		return 0;
	put(r, line, "\n", 1);
	return r->rc == 0;
}

/* mailinfo.c handle_body. */
static void
body(struct rd *r, struct dynbuf *line)
{
	if (r->top > 0 && !find_boundary(r, line))
		return;
	do {
		if (r->top > 0 && is_boundary(r, line)) {
			if (r->pend.len > 0) {
				emit(r, r->pend.data, r->pend.len);
				dynbuf_reset(&r->pend);
			}
			if (!handle_boundary(r, line))
				return;
		}
		body_line(r, line);
		if (r->stop)
			break;
	} while (getline_(r, line, 1) == 0);
	if (r->pend.len > 0)
		emit(r, r->pend.data, r->pend.len);
}

/* ---- the filter: commit message, then patch ----------------------------- */

/* mailinfo.c is_scissors_line. */
static int
is_scissors(const char *p, size_t n)
{
	int scissors = 0, gap = 0, perforation = 0, in_perforation = 0;
	size_t i, first = 0, last = 0;
	int seen = 0, visible;

	for (i = 0; i < n && p[i] != '\0'; i++) {
		if (git_isspace((unsigned char)p[i])) {
			if (in_perforation) {
				perforation++;
				gap++;
			}
			continue;
		}
		last = i;
		if (!seen) {
			first = i;
			seen = 1;
		}
		if (p[i] == '-') {
			in_perforation = 1;
			perforation++;
			continue;
		}
		if (i + 1 < n && ((p[i] == '>' && p[i + 1] == '8') ||
		    (p[i] == '8' && p[i + 1] == '<') ||
		    (p[i] == '>' && p[i + 1] == '%') ||
		    (p[i] == '%' && p[i + 1] == '<'))) {
			in_perforation = 1;
			perforation += 2;
			scissors += 2;
			i++;
			continue;
		}
		in_perforation = 0;
	}
	if (!seen)
		return 0;
	visible = (int)(last - first + 1);
	return scissors && 8 <= visible && visible < perforation * 3 &&
	    gap * 2 < perforation;
}

/* mailinfo.c patchbreak. */
static int
patchbreak(const char *p, size_t n)
{
	size_t i;

	if (al_starts(p, n, "diff -") || al_starts(p, n, "Index: "))
		return 1;
	if (n < 4 || !al_starts(p, n, "---"))
		return 0;
	if (p[3] == ' ' && !git_isspace((unsigned char)p[4]))
		return 1;
	for (i = 3; i < n; i++) {
		if (p[i] == '\n')
			return 1;
		if (!git_isspace((unsigned char)p[i]))
			break;
	}
	return 0;
}

static int
is_fp_separator(const char *p, size_t n)
{
	static const char sample[] =
	    "From e6807f3efca28b30decfecb1732a56c7db1137ee Mon Sep 17 00:00:00 2001\n";
	size_t i;

	if (n != sizeof(sample) - 1 || !al_starts(p, n, "From "))
		return 0;
	for (i = 5; i < 45; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	return memcmp(p + 45, sample + 45, n - 45) == 0;
}

struct filt {
	struct rd *r;
	struct mail_mode *mm;
	int scissors;
	int have[H_N];            /* s_hdr_data set */
	struct dynbuf acc;        /* inbody_header_accum */
};

static void
flush_acc(struct filt *f)
{
	const char *p = f->acc.data, *v;
	struct dynbuf dec;
	int h;

	if (f->acc.len == 0)
		return;
	dynbuf_init(&dec, 2 * f->acc.len + 16);
	for (h = 0; h < H_N; h++)
		if (!f->have[h] && (v = skip_header(p, f->acc.len, hname[h]))) {
			decode_header(f->r, &dec, v, (size_t)(p + f->acc.len - v));
			f->have[h] = 1;
			keep_hval(f->r, f->mm, h, v, (size_t)(p + f->acc.len - v),
			    &dec, 0, 0);
			break;
		}
	dynbuf_free(&dec);
	dynbuf_reset(&f->acc);
}

/* mailinfo.c check_inbody_header: 1 while in-body headers go on. */
static int
inbody(struct filt *f, const char *p, size_t n)
{
	int h;

	if (f->acc.len > 0 && n > 0 && (p[0] == ' ' || p[0] == '\t')) {
		if (f->scissors && is_scissors(p, n)) {
			flush_acc(f);
			return 0;
		}
		if (f->acc.data[f->acc.len - 1] == '\n')
			f->acc.len--;
		put(f->r, &f->acc, p, n);
		return 1;
	}
	flush_acc(f);
	if (n > 5 && al_starts(p, n, ">From") && git_isspace((unsigned char)p[5]))
		return is_fp_separator(p + 1, n - 1);
	if (n > 7 && al_starts(p, n, "[PATCH]") &&
	    git_isspace((unsigned char)p[7])) {
		f->have[H_SUBJECT] = 1;
		return 1;
	}
	for (h = 0; h < H_N; h++)
		if (!f->have[h] && skip_header(p, n, hname[h]) != NULL) {
			put(f->r, &f->acc, p, n);
			return 1;
		}
	return 0;
}

/* mailinfo.c handle_commit_msg and handle_patch over the records. */
static void
filter(struct rd *r, struct mail_mode *mm, int scissors)
{
	struct filt f = { .r = r, .mm = mm, .scissors = scissors };
	struct dynbuf line;
	int header_stage = 1;
	size_t i;

	dynbuf_init(&f.acc, 4 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&line, 4 * AL_PATCH_MAX_BYTES);
	mm->patch_at = r->nrec;
	for (i = 0; i < r->nrec && r->rc == 0; i++) {
		const char *p = dynbuf_str(&r->stream) + r->rec[i].off;
		size_t n = r->rec[i].len;

		if (mm->patch_at < r->nrec) {
			put(r, &mm->patch, p, n);
			continue;
		}
		if (header_stage && (n == 0 || (n == 1 && p[0] == '\n'))) {
			if (f.acc.len > 0) {
				flush_acc(&f);
				header_stage = 0;
			}
			continue;
		}
		if (header_stage && (header_stage = inbody(&f, p, n)))
			continue;
		dynbuf_reset(&line);
		convert(r, &line, p, n, r->rec[i].cs);
		p = line.data != NULL ? line.data : "";
		if (scissors && is_scissors(p, line.len)) {
			header_stage = 1;
			memset(f.have, 0, sizeof(f.have));
			continue;
		}
		if (patchbreak(p, line.len)) {
			mm->patch_at = i;
			put(r, &mm->patch, p, line.len);
		}
	}
	flush_acc(&f);
	dynbuf_free(&f.acc);
	dynbuf_free(&line);
}

/* ---- the mail ----------------------------------------------------------- */

static void
mode_init(struct mail_mode *mm)
{
	dynbuf_init(&mm->patch, 4 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&mm->htext, 4 * AL_PATCH_MAX_BYTES);
	mm->hv = NULL;
	mm->nhv = mm->caphv = 0;
	mm->patch_at = 0;
}

int
scan_mail_read(struct mail *m, const char *p, size_t n)
{
	struct rd r;
	struct dynbuf line;
	uint64_t ln;
	size_t i, upto;
	int k;

	memset(m, 0, sizeof(*m));
	dynbuf_init(&m->prose, 4 * AL_PATCH_MAX_BYTES);
	mode_init(&m->mode[0]);
	mode_init(&m->mode[1]);
	memset(&r, 0, sizeof(r));
	r.m = m;
	r.base = r.p = p;
	r.end = p + n;
	r.budget = AL_MAIL_WORK_FACTOR * n + 65536;
	for (k = 0; k < GIT_MAX_BOUNDARIES; k++)
		dynbuf_init(&r.bnd[k], AL_PATCH_MAX_BYTES);
	dynbuf_init(&r.pend, 2 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&r.work, 2 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&r.tmp, 2 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&r.stream, 2 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&line, 2 * AL_PATCH_MAX_BYTES);

	if (memchr(p, '\0', n) != NULL)
		why(&r, "a NUL byte in a mail: git reads mail as C strings and "
		    "would see less of it", "", "");
	while (r.p < r.end && git_isspace((unsigned char)*r.p)) {
		if (*r.p == '\n')
			r.lineno++;
		r.p++;
	}
	while (r.rc == 0 && read_header_line(&r, &line, &ln))
		check_header(&r, &line, L_TOP, ln);
	m->hdr_end = (size_t)(r.line_at - p);
	if (r.rc == 0)
		body(&r, &line);
	if (r.rc == 0) {
		filter(&r, &m->mode[0], 0);
		filter(&r, &m->mode[1], 1);
	}
	/* The prose: every record before the later start of the patch, as
	 * the commit message would hold it. */
	upto = m->mode[0].patch_at > m->mode[1].patch_at ? m->mode[0].patch_at :
	    m->mode[1].patch_at;
	for (i = 0; r.rc == 0 && i < upto && i < r.nrec; i++)
		convert(&r, &m->prose, dynbuf_str(&r.stream) + r.rec[i].off, r.rec[i].len,
		    r.rec[i].cs);
	if (r.rc == 0 && (memchr(dynbuf_str(&r.stream), '\0', r.nrec > 0 && upto < r.nrec ? r.rec[upto].off :
	    r.stream.len) != NULL))
		why(&r, "the commit message decodes to a NUL byte: git am "
		    "refuses it", "", "");

	for (k = 0; k < GIT_MAX_BOUNDARIES; k++)
		dynbuf_free(&r.bnd[k]);
	dynbuf_free(&r.pend);
	dynbuf_free(&r.work);
	dynbuf_free(&r.tmp);
	dynbuf_free(&r.stream);
	dynbuf_free(&line);
	free(r.rec);
	return r.rc;
}

void
scan_mail_free(struct mail *m)
{
	int k;

	dynbuf_free(&m->prose);
	for (k = 0; k < 2; k++) {
		dynbuf_free(&m->mode[k].patch);
		dynbuf_free(&m->mode[k].htext);
		free(m->mode[k].hv);
		m->mode[k].hv = NULL;
	}
}
