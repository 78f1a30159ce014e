/*
 * scan_mbox.c - `git format-patch` mailboxes; see scan_mbox.h.
 *
 * A mailbox is split into messages at its start and at each "From " line
 * after an empty line, which is how a series of format-patch files looks
 * when concatenated. Each message's headers are read (folded lines joined,
 * RFC 2047 encoded words in From and Subject decoded as git am shows them);
 * its text up to the diff is scanned as prose, and the diff is handed to
 * the patch reader (scan_patch_diff) under the message's own name. A body
 * that is transfer-encoded or multipart is not decoded: git am would, and
 * airlock does not guess, so the message is unscannable and its raw text
 * is scanned all the same.
 *
 * Trust: input is hostile; this runs only in the sandboxed scan child.
 * Everything is read within (pointer, length). Limits (al_limits.h): the
 * mailbox is at most AL_PATCH_MAX_BYTES (the dispatch reads no more) and
 * holds at most AL_MBOX_MAX_MESSAGES messages (past that none is read);
 * a header's value is held up to 64 KiB; each diff has the patch reader's
 * limits.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "scan_decode.h"
#include "scan_mbox.h"
#include "scan_patch.h"
#include "text.h"
#include "util.h"

/* Commit messages and authors are prose for a human: scanned under this
 * name so that the rules for documents apply to them. */
#define MSG_RELPATH "COMMIT_MSG.txt"

static int
header_line(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i] != ':'; i++)
		if (p[i] <= ' ' || p[i] > '~')
			return 0;
	return i > 0 && i < n;
}

/* "From " and a word: an mbox separator line. */
static int
from_line(const char *p, size_t n)
{
	return n > 5 && al_starts(p, n, "From ") && p[5] != ' ';
}

int
scan_looks_mbox(const char *p, size_t n)
{
	const char *end = p + n, *next;
	size_t len = al_line_len(p, end, &next);

	if (from_line(p, len)) {
		const char *second = next;

		len = al_line_len(second, end, &next);
		return header_line(second, len);
	}
	return al_starts(p, len, "From: ") || al_starts(p, len, "Subject: ") ||
	    al_starts(p, len, "Date: ");
}

/* ---- mail --------------------------------------------------------------- */

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = al_lower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One RFC 2047 encoded word at p ("=?charset?B?...?="), decoded into out
 * (the charset is not converted: UTF-8 is what git writes). Returns the
 * bytes consumed, 0 if p does not start one. */
static size_t
encoded_word(const char *p, const char *end, struct dynbuf *out)
{
	const char *q, *text, *stop;
	char enc;

	if (end - p < 8 || p[0] != '=' || p[1] != '?')
		return 0;
	q = memchr(p + 2, '?', (size_t)(end - p - 2));
	if (q == NULL || end - q < 5 || q[2] != '?')
		return 0;
	enc = (char)al_lower((unsigned char)q[1]);
	text = q + 3;
	for (stop = text; stop + 1 < end && !(stop[0] == '?' && stop[1] == '=');
	    stop++)
		if (*stop == ' ' || *stop == '\t')
			return 0;
	if (stop + 1 >= end)
		return 0;
	if (enc == 'b') {
		unsigned char buf[1024];
		ssize_t k;

		if ((size_t)(stop - text) > sizeof(buf) ||
		    (k = scan_decode_base64(text, (size_t)(stop - text), buf)) < 0)
			return 0;
		if (dynbuf_add(out, buf, (size_t)k) < 0)
			return 0;
	} else if (enc == 'q') {
		const char *s;

		for (s = text; s < stop; s++) {
			int c = (unsigned char)*s;

			if (c == '_')
				c = ' ';
			else if (c == '=' && stop - s >= 3 && hexval(s[1]) >= 0 &&
			    hexval(s[2]) >= 0) {
				c = hexval(s[1]) * 16 + hexval(s[2]);
				s += 2;
			}
			if (dynbuf_addc(out, (char)c) < 0)
				return 0;
		}
	} else {
		return 0;
	}
	return (size_t)(stop + 2 - p);
}

/* A header's value as git am shows it: encoded words decoded. */
static int
add_header(struct dynbuf *out, const char *name, const char *v, size_t n)
{
	const char *p = v, *end = v + n;
	int after_word = 0;

	if (dynbuf_adds(out, name) < 0 || dynbuf_adds(out, ": ") < 0)
		return -1;
	while (p < end) {
		size_t k = encoded_word(p, end, out);
		const char *q;

		if (k > 0) {
			p += k;
			after_word = 1;
			continue;
		}
		/* White space between two encoded words is dropped. */
		for (q = p; q < end && (*q == ' ' || *q == '\t'); q++)
			;
		if (after_word && q > p) {
			size_t k2 = encoded_word(q, end, out);

			if (k2 > 0) {
				p = q + k2;
				continue;
			}
		}
		after_word = 0;
		if (dynbuf_addc(out, *p++) < 0)
			return -1;
	}
	return dynbuf_addc(out, '\n');
}

struct mail {
	struct dynbuf hdr[5];     /* unfolded values, in the order below */
	uint64_t line[5];         /* where each header is, from 1 */
	const char *body;
};

enum { H_FROM, H_SUBJECT, H_DATE, H_CTE, H_CTYPE, H_N };
static const char *const hdr_names[H_N] = {
	"From", "Subject", "Date", "Content-Transfer-Encoding", "Content-Type",
};

/* Reads the headers of the message in [p, end); the body follows. */
static int
mail_parse(struct mail *m, const char *p, const char *end)
{
	const char *next;
	int cur = -1;
	size_t n, i;

	uint64_t lineno = 1;

	for (i = 0; i < H_N; i++) {
		dynbuf_init(&m->hdr[i], 65536);
		m->line[i] = 0;
	}
	n = al_line_len(p, end, &next);
	if (from_line(p, n)) {
		p = next;
		lineno++;
	}
	for (; p < end; p = next, lineno++) {
		n = al_line_len(p, end, &next);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n == 0) {
			p = next;
			break;
		}
		if ((p[0] == ' ' || p[0] == '\t') && cur >= 0) {
			if (dynbuf_add(&m->hdr[cur], p, n) < 0)
				return -1;
			continue;
		}
		if (!header_line(p, n))
			break;    /* not a header: the body starts here */
		cur = -1;
		for (i = 0; i < H_N; i++) {
			size_t k = strlen(hdr_names[i]);

			if (n > k && p[k] == ':' && strncasecmp(p, hdr_names[i],
			    k) == 0) {
				const char *v = p + k + 1;

				while (v < p + n && (*v == ' ' || *v == '\t'))
					v++;
				dynbuf_reset(&m->hdr[i]);
				if (dynbuf_add(&m->hdr[i], v, (size_t)(p + n - v)) < 0)
					return -1;
				m->line[i] = lineno;
				cur = (int)i;
			}
		}
	}
	m->body = p;
	return 0;
}

static void
mail_free(struct mail *m)
{
	size_t i;

	for (i = 0; i < H_N; i++)
		dynbuf_free(&m->hdr[i]);
}

/* Why git am would read the body otherwise than as plain text, or NULL. */
static const char *
mail_encoded(const struct mail *m)
{
	const char *cte = dynbuf_str(&m->hdr[H_CTE]);
	const char *ct = dynbuf_str(&m->hdr[H_CTYPE]);

	if (cte[0] != '\0' && strncasecmp(cte, "7bit", 4) != 0 &&
	    strncasecmp(cte, "8bit", 4) != 0 && strncasecmp(cte, "binary", 6))
		return "its body is transfer-encoded (quoted-printable or "
		    "base64): git am decodes it, airlock does not";
	if (strncasecmp(ct, "multipart/", 10) == 0)
		return "a multipart message: git am picks a part, airlock does "
		    "not guess which";
	return NULL;
}

/* One message: its text, then its diff. */
static int
scan_message(struct scan_worker *w, const char *p, const char *end,
    const char *item, struct finding_list *out)
{
	struct mail m;
	struct dynbuf text, prefix;
	const char *diff, *why;
	size_t i;
	int rc;

	dynbuf_init(&text, AL_PATCH_MAX_BYTES);
	dynbuf_init(&prefix, 2 * AL_MAX_PATH);
	rc = mail_parse(&m, p, end);
	if (rc == 0 && (why = mail_encoded(&m)) != NULL) {
		/* Scanned as it stands, every line of it: not clean. */
		if ((rc = finding_add_builtin(out, AL_RULE_UNSCANNABLE, item,
		    why)) == 0)
			rc = scan_mem(w, p, (size_t)(end - p), item, MSG_RELPATH, out);
		goto done;
	}
	/* The message as it stands, so that lines count as in the file;
	 * then From and Subject as git am shows them, when encoded words
	 * hid them, their findings put on the header's line. */
	diff = rc == 0 ? scan_patch_find_diff(m.body, end) : end;
	if (rc == 0)
		rc = scan_mem(w, p, (size_t)(diff - p), item, MSG_RELPATH, out);
	for (i = 0; rc == 0 && i < 2; i++) {
		static const int which[2] = {H_FROM, H_SUBJECT};
		const struct dynbuf *h = &m.hdr[which[i]];
		size_t first = out->n, k;

		if (h->len == 0 || al_memcasemem(h->data, h->len, "=?", 2) == NULL)
			continue;
		dynbuf_reset(&text);
		if (add_header(&text, hdr_names[which[i]], h->data, h->len) < 0) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		rc = scan_mem(w, text.data, text.len, item, MSG_RELPATH, out);
		for (k = first; k < out->n; k++)
			if (out->v[k].line > 0)
				out->v[k].line = m.line[which[i]];
	}
	if (rc == 0 && diff < end &&
	    dynbuf_addf(&prefix, "%s" AL_MEMBER_SEP, item) < 0)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	if (rc == 0 && diff < end)
		rc = scan_patch_diff(w, diff, (size_t)(end - diff),
		    dynbuf_str(&prefix), item, out);
done:
	mail_free(&m);
	dynbuf_free(&text);
	dynbuf_free(&prefix);
	return rc;
}

/* ---- messages ----------------------------------------------------------- */

int
scan_mbox_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out)
{
	const char *end = data + len, *p, *next;
	const char **starts_at = NULL;
	struct dynbuf item;
	size_t nmsg = 0, i;
	int prev_empty = 1, rc = 0;

	/* Messages begin at the start and at each "From " line after an
	 * empty one, as format-patch series are concatenated. */
	for (p = data; p < end; p = next) {
		size_t n = al_line_len(p, end, &next);

		if (p == data || (prev_empty && from_line(p, n))) {
			if (nmsg == AL_MBOX_MAX_MESSAGES) {
				free(starts_at);
				return finding_add_builtin(out, AL_RULE_UNSCANNABLE,
				    path, "more messages in one mailbox than airlock "
				    "reads (AL_MBOX_MAX_MESSAGES); none was read");
			}
			if (nmsg % 64 == 0) {
				const char **s = reallocarray(starts_at, nmsg + 64,
				    sizeof(*s));

				if (s == NULL) {
					free(starts_at);
					return al_err_set(AL_ENOMEM, "out of memory");
				}
				starts_at = s;
			}
			starts_at[nmsg++] = p;
		}
		prev_empty = n == 0 || (n == 1 && p[0] == '\r');
	}
	dynbuf_init(&item, 2 * AL_MAX_PATH);
	for (i = 0; rc == 0 && i < nmsg; i++) {
		dynbuf_reset(&item);
		if ((nmsg == 1 ? dynbuf_adds(&item, path) :
		    dynbuf_addf(&item, "%s" AL_MEMBER_SEP "%04zu", path,
		    i + 1)) < 0) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		rc = scan_message(w, starts_at[i], i + 1 < nmsg ? starts_at[i + 1] :
		    end, dynbuf_str(&item), out);
	}
	dynbuf_free(&item);
	free(starts_at);
	return rc;
}
