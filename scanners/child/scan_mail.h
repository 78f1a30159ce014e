/*
 * scan_mail.h - one mail of a mailbox decoded the way `git mailinfo` decodes
 * it for `git am` (git 2.39: default options, -u, no --scissors unless
 * asked), in the scan child.
 *
 * Trust: the mail is hostile; this runs only inside the sandboxed child.
 * The mail is what `git mailsplit` wrote (CR LF already made LF). Its body
 * is decoded as mailinfo does it: the parts of a multipart body in order,
 * each part's quoted-printable or base64 undone line by line, format=flowed
 * lines joined; every decoded line then goes to the commit message until
 * the first line that starts the patch ("---", "diff -", "Index: "), and
 * every line from there to the patch git apply reads. In-body From:,
 * Subject: and Date: lines and RFC 2047 encoded words are decoded; text the
 * commit message gets is converted to UTF-8 as git does, for the charsets
 * airlock converts itself (UTF-8, US-ASCII, ISO-8859-1). What airlock
 * cannot read as git would (another charset, a conversion git refuses, a
 * broken encoded word, a NUL byte, too many nested boundaries) is given as
 * a reason, and the mail stays readable all the same.
 */
#ifndef AIRLOCK_SCAN_MAIL_H
#define AIRLOCK_SCAN_MAIL_H

#include <stddef.h>
#include <stdint.h>

#include "dynbuf.h"

/* A decoded From:, Subject: or Date: value worth scanning on its own (its
 * text is not in the prose as git shows it): "Subject: value\n". */
struct mail_hval {
	size_t off, len;    /* in mail_mode.htext */
	uint64_t line;      /* the header's line in the mail, 0 if none */
};

/* The mail read one way: without --scissors (git am's default), or with. */
struct mail_mode {
	size_t patch_at;          /* record where the patch starts; nrec if none */
	struct dynbuf patch;      /* the file git apply is given */
	struct dynbuf htext;      /* decoded header values, see mail_hval */
	struct mail_hval *hv;
	size_t nhv, caphv;
};

struct mail {
	size_t hdr_end;           /* bytes of the mail that are its header */
	struct dynbuf prose;      /* decoded body before the later patch start */
	struct mail_mode mode[2]; /* [0] as git am reads it, [1] --scissors */
	char why[256];            /* why it is unscannable, "" if it is not */
	int cut;                  /* decoding stopped before the end */
};

/* Reads the mail in [p, p + n) into m (initialised here; scan_mail_free it
 * whatever the result). AL_ENOMEM, else 0 (a reason in m->why is not an
 * error). */
int scan_mail_read(struct mail *m, const char *p, size_t n);
void scan_mail_free(struct mail *m);

#endif
