/*
 * extract_proto.h - the report of airlock pull's unpacking child: one
 * record per entry it wrote, then one record that says how it ended. The
 * child encodes, the client decodes; both sides use this file.
 *
 * Trust: the client reads the records as hostile (the child parsed a
 * hostile archive and may have been taken over): lengths are checked
 * against what is left before anything is copied, types and modes against
 * the few values that exist, and what a record says is never a reason to
 * touch the disk (the client checks the tree itself).
 *
 * Wire format, little-endian, no padding:
 *   'E' type:u8 mode:u32 size:u64 pathlen:u16 path linklen:u16 link
 *   'Z' status:i32 msglen:u16 msg        (status 0: every entry written)
 * Paths and messages are bytes, not NUL-terminated, at most AL_MAX_PATH
 * (messages: EXTRACT_MSG_MAX).
 */
#ifndef AIRLOCK_EXTRACT_PROTO_H
#define AIRLOCK_EXTRACT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "dynbuf.h"

#define EXTRACT_MSG_MAX 1024u

enum extract_type {
	EXTRACT_FILE = 1,
	EXTRACT_DIR = 2,
	EXTRACT_LINK = 3,
};

/* One entry as written beneath the target. */
struct extract_entry {
	enum extract_type type;
	uint32_t mode;            /* permission bits as set (never 07000) */
	uint64_t size;            /* bytes written (files), else 0 */
	char *path;               /* relative to the target, no '.' or '..' */
	char *link;               /* a link's target; NULL otherwise */
};

/* A decoded record: an entry (end == 0) or the end (end == 1). */
struct extract_rec {
	int end;
	struct extract_entry entry; /* owned: free with extract_entry_clear */
	int status;                 /* end: 0, or a negative al_err */
	char msg[EXTRACT_MSG_MAX + 1];
};

int extract_proto_entry(struct dynbuf *out, const struct extract_entry *e)
	__attribute__((warn_unused_result));
int extract_proto_end(struct dynbuf *out, int status, const char *msg)
	__attribute__((warn_unused_result));

/*
 * Decodes the record at p (n bytes left): 0 and *used set, or AL_EINVAL if
 * it is malformed or cut short (the child has exited: nothing more comes).
 */
int extract_proto_decode(struct extract_rec *out, const unsigned char *p,
    size_t n, size_t *used);

void extract_entry_clear(struct extract_entry *e);

#endif
