/*
 * scan_mbox.c - `git format-patch` mailboxes; see scan_mbox.h.
 *
 * git am splits a mailbox with git mailsplit and reads each mail with git
 * mailinfo; airlock does the same two steps the same way, so that what it
 * scans is what git apply is given. The split follows mailsplit exactly
 * (is_from_line: "From " and something like a date; no blank line is
 * needed before it; CR LF made LF; a mailbox whose first line is not such
 * a line is one mail). Each mail is decoded as mailinfo decodes it
 * (scan_mail.c): its header as it stands, its body decoded up to the patch
 * and the decoded header values are scanned as prose, and the patch is
 * handed to the patch reader (scan_patch_diff) under the message's own
 * name. What cannot be decoded as git would is unscannable, and what could
 * be read is scanned all the same.
 *
 * Trust: input is hostile; this runs only in the sandboxed scan child.
 * Everything is read within (pointer, length). Limits (al_limits.h): the
 * mailbox is at most AL_PATCH_MAX_BYTES (the dispatch reads no more) and
 * holds at most AL_MBOX_MAX_MESSAGES messages (past that none is read);
 * scan_mail.c bounds decoding; each diff has the patch reader's limits.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "scan_mail.h"
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

static int is_from_line(const char *line, size_t len);
static int git_space(char c);

/* A header git mailinfo acts on (names compare without case, as its do):
 * one of these in a mail's header changes how its body is read. */
static int
mailinfo_header(const char *p, size_t n)
{
	static const char *const names[] = {"From:", "Subject:", "Date:",
	    "Content-Type:", "Content-Transfer-Encoding:", "Message-Id:",
	    "MIME-Version:"};
	size_t i, k;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (n >= (k = strlen(names[i])) && strncasecmp(p, names[i], k) == 0)
			return 1;
	return 0;
}

/*
 * As git am decides, given the file or standard input (builtin/am.c
 * detect_patch_format, and git mailsplit after it): white space before the
 * first line is skipped; a first line "From: " or a mailsplit From line
 * makes a mailbox; so does a header block (every line up to the first
 * empty one a header, "^[!-9;-~]+:", or folded: am's is_mail) that holds
 * a header mailinfo acts on, such as Content-Transfer-Encoding: mailinfo
 * would decode the body, so it must be read as a mail. A block of other
 * "key: value" lines (a YAML file) git am would take for headers too, but
 * mailinfo then reads the rest as it stands, as a patch or a file is read.
 */
int
scan_looks_mbox(const char *p, size_t n)
{
	const char *end = p + n, *next, *l;
	size_t len;
	int acts = 0;

	while (p < end && git_space(*p))
		p++;
	if (p == end)
		return 0;
	len = al_line_len(p, end, &next);
	if (al_starts(p, len, "From: ") || is_from_line(p, (size_t)(next - p)))
		return 1;
	if (from_line(p, len)) {
		const char *second = next;

		len = al_line_len(second, end, &next);
		return header_line(second, len);
	}
	for (l = p; l < end; l = next) {
		len = al_line_len(l, end, &next);
		if (len > 0 && l[len - 1] == '\r')
			len--;
		if (len == 0)
			break;
		if (l[0] == ' ' || l[0] == '\t')
			continue;
		if (!header_line(l, len))
			return 0;
		acts |= mailinfo_header(l, len);
	}
	return acts;
}

/* ---- one mail ----------------------------------------------------------- */

/* Decoded From, Subject and Date values: the mail's own on their header's
 * line; in-body ones and a part's as their own text. */
static int
scan_hvals(struct scan_worker *w, const struct mail_mode *mm,
    const char *item, struct finding_list *out)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; rc == 0 && i < mm->nhv; i++) {
		size_t first = out->n;

		rc = scan_mem(w, mm->htext.data + mm->hv[i].off, mm->hv[i].len,
		    item, MSG_RELPATH, out);
		for (k = first; mm->hv[i].line > 0 && k < out->n; k++)
			if (out->v[k].line > 0)
				out->v[k].line = mm->hv[i].line;
	}
	return rc;
}

static int
same_tail(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/*
 * One mail, as git mailinfo hands it to git am (scan_mail.h): its header
 * as it stands, its body decoded up to the patch and the patch's text
 * before the first diff are its message; the diff goes to the patch
 * reader. When --scissors would start the patch elsewhere, that patch is
 * read too.
 */
static int
scan_message(struct scan_worker *w, const char *p, size_t n,
    const char *item, struct finding_list *out)
{
	struct mail m;
	struct dynbuf text, prefix;
	const struct dynbuf *p0, *p1;
	const char *e0, *e1, *d0 = NULL, *d1 = NULL;
	int rc;

	dynbuf_init(&text, 8 * AL_PATCH_MAX_BYTES);
	dynbuf_init(&prefix, 2 * AL_MAX_PATH);
	if ((rc = scan_mail_read(&m, p, n)) < 0)
		goto done;
	p0 = &m.mode[0].patch;
	p1 = &m.mode[1].patch;
	e0 = dynbuf_str(p0) + p0->len;
	e1 = dynbuf_str(p1) + p1->len;
	if (p0->len > 0)
		d0 = scan_patch_find_diff(p0->data, e0);
	if (p1->len > 0)
		d1 = scan_patch_find_diff(p1->data, e1);
	if (dynbuf_add(&text, p, m.hdr_end) < 0 ||
	    dynbuf_add(&text, m.prose.data, m.prose.len) < 0 ||
	    (d0 != NULL && dynbuf_add(&text, p0->data,
	    (size_t)(d0 - p0->data)) < 0) ||
	    dynbuf_addf(&prefix, "%s" AL_MEMBER_SEP, item) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto done;
	}
	rc = scan_mem(w, text.data, text.len, item, MSG_RELPATH, out);
	if (rc == 0)
		rc = scan_hvals(w, &m.mode[0], item, out);
	if (rc == 0 && m.why[0] != '\0')
		rc = finding_add_builtin(out, AL_RULE_UNSCANNABLE, item, m.why);
	/* Decoding stopped short: the rest as it stands. */
	if (rc == 0 && m.cut)
		rc = scan_mem(w, p, n, item, MSG_RELPATH, out);
	if (rc == 0 && d0 != NULL && d0 < e0)
		rc = scan_patch_diff(w, d0, (size_t)(e0 - d0),
		    dynbuf_str(&prefix), item, out);
	/* git am --scissors (or mailinfo.scissors) reads a later patch. */
	if (rc == 0 && d1 != NULL && !(d0 != NULL && same_tail(d0,
	    (size_t)(e0 - d0), d1, (size_t)(e1 - d1)))) {
		rc = scan_mem(w, p1->data, (size_t)(d1 - p1->data), item,
		    MSG_RELPATH, out);
		if (rc == 0 && d1 < e1)
			rc = scan_patch_diff(w, d1, (size_t)(e1 - d1),
			    dynbuf_str(&prefix), item, out);
	}
	if (rc == 0 && !same_tail(m.mode[0].htext.data, m.mode[0].htext.len,
	    m.mode[1].htext.data, m.mode[1].htext.len))
		rc = scan_hvals(w, &m.mode[1], item, out);
done:
	scan_mail_free(&m);
	dynbuf_free(&text);
	dynbuf_free(&prefix);
	return rc;
}

/* ---- messages (git mailsplit) ------------------------------------------- */

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* builtin/mailsplit.c is_from_line: "From " and, before the line's last
 * two bytes, a colon with digits at -4, -2, -1, +1 and +2 and a number
 * above 90 at +3 (a year). len counts the LF when there is one. */
static int
is_from_line(const char *line, size_t len)
{
	const char *colon, *s, *end = line + len;
	unsigned long year = 0;
	int digits = 0;

	if (len < 20 || memcmp(line, "From ", 5) != 0)
		return 0;
	colon = line + len - 2;
	for (;;) {
		if (colon < line + 5)
			return 0;
		if (*--colon == ':')
			break;
	}
	if (!is_digit(colon[-4]) || !is_digit(colon[-2]) ||
	    !is_digit(colon[-1]) || !is_digit(colon[1]) ||
	    !is_digit(colon[2]))
		return 0;
	/* strtol(colon + 3): blanks, a sign, digits. */
	for (s = colon + 3; s < end && (*s == ' ' || (*s >= '\t' && *s <= '\r'));
	    s++)
		;
	if (s < end && *s == '-')
		return 0;
	if (s < end && *s == '+')
		s++;
	for (; s < end && is_digit(*s) && year <= 90; s++, digits = 1)
		year = year * 10 + (unsigned long)(*s - '0');
	return digits && year > 90;
}

static int
git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* One mail as git mailsplit writes it: each CR LF made LF. */
static int
mail_copy(struct dynbuf *b, const char *p, const char *end)
{
	const char *next;

	dynbuf_reset(b);
	for (; p < end; p = next) {
		size_t n = al_line_len(p, end, &next);

		if (next > p + n && n > 0 && p[n - 1] == '\r') {
			if (dynbuf_add(b, p, n - 1) < 0 || dynbuf_addc(b, '\n') < 0)
				return -1;
		} else if (dynbuf_add(b, p, (size_t)(next - p)) < 0) {
			return -1;
		}
	}
	return 0;
}

int
scan_mbox_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out)
{
	const char *end = data + len, *p = data, *next;
	const char **starts_at = NULL;
	struct dynbuf item, mail;
	size_t nmsg = 0, i;
	int bare = 0, rc = 0;

	/* As git am runs git mailsplit (-b, no --keep-cr, no --mboxrd):
	 * white space before the first line is skipped; a first line that
	 * is not a From line makes the whole one mail; else every From line
	 * starts one, blank line before it or not. */
	while (p < end && git_space(*p))
		p++;
	for (; p < end; p = next) {
		size_t nl;

		(void)al_line_len(p, end, &next);
		nl = (size_t)(next - p);

		if (nmsg == 0)
			bare = !is_from_line(p, nl);
		if (nmsg == 0 || (!bare && is_from_line(p, nl))) {
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
	}
	dynbuf_init(&item, 2 * AL_MAX_PATH);
	dynbuf_init(&mail, AL_PATCH_MAX_BYTES);
	for (i = 0; rc == 0 && i < nmsg; i++) {
		dynbuf_reset(&item);
		if ((nmsg == 1 ? dynbuf_adds(&item, path) :
		    dynbuf_addf(&item, "%s" AL_MEMBER_SEP "%04zu", path,
		    i + 1)) < 0 || mail_copy(&mail, starts_at[i], i + 1 < nmsg ?
		    starts_at[i + 1] : end) < 0) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		rc = scan_message(w, mail.data != NULL ? mail.data : "", mail.len,
		    dynbuf_str(&item), out);
	}
	dynbuf_free(&item);
	dynbuf_free(&mail);
	free(starts_at);
	return rc;
}
