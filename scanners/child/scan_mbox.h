/*
 * scan_mbox.h - `git format-patch` mailboxes, read the way `git am` reads
 * them, in the scan child.
 *
 * Trust: the mailbox is hostile; this runs only inside the sandboxed child.
 * A mailbox is split into mails as git mailsplit splits it; each mail is
 * decoded as git mailinfo decodes it (scan_mail.h): its header, decoded
 * body up to the patch and decoded From, Date and Subject are scanned as
 * prose, a human reads them; its patch is read by the patch reader
 * (scan_patch.h). What cannot be decoded as git would is unscannable, and
 * what could be read is scanned all the same.
 */
#ifndef AIRLOCK_SCAN_MBOX_H
#define AIRLOCK_SCAN_MBOX_H

#include <stddef.h>

#include "scan_engine.h"

/* 1 if git am would read the text as a mail whose reading differs from a
 * patch's (scan_mbox.c says when); its first 64 KiB are enough. */
int scan_looks_mbox(const char *p, size_t n);

/*
 * Scans a mailbox held in memory. A message's text is reported under PATH
 * when the mailbox holds one message, else under "PATH!/0002" (its number,
 * from 1); the files its diff writes under "PATH!/file" or
 * "PATH!/0002!/file".
 */
int scan_mbox_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out);

#endif
