/*
 * proto.h - the framed protocol between the scan child and the gate.
 *
 * Trust: the parent trusts nothing the child sends. A child that parsed a
 * hostile artifact may be compromised, so every frame is checked before it
 * is believed: its length against a cap before any allocation, its type
 * against the types allowed in the current state, and its payload field by
 * field with exact sizes (no trailing bytes). Any violation ends the child
 * and makes the artifact `unscannable` (issue 4 wires this into the scan).
 *
 * Wire format: an 8-byte header, then the payload.
 *   u32 length of the payload (big-endian), at most PROTO_MAX_PAYLOAD
 *   u16 type (enum proto_type), u16 reserved, must be 0
 * Payload fields: u64 integers big-endian; strings as u32 length + bytes
 * (no NUL, at most PROTO_MAX_STRING).
 */
#ifndef AIRLOCK_PROTO_H
#define AIRLOCK_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "dynbuf.h"

#define PROTO_HEADER 8u
#define PROTO_MAX_PAYLOAD (1u << 20) /* a finding is far smaller */
#define PROTO_MAX_STRING 65536u     /* paths, excerpts, messages */

enum proto_type {
	PROTO_HELLO = 1,   /* child ready: engine version, rule-set digest */
	PROTO_ITEM,        /* an item begins: path, size */
	PROTO_FINDING,     /* a finding in the current item */
	PROTO_ITEM_END,    /* the current item is done */
	PROTO_DONE,        /* the artifact is done: items, bytes */
	PROTO_ERROR,       /* the child gives up: message */
	PROTO_SCAN,        /* parent to child: scan the fd sent with it */
	PROTO_MEMBER,      /* a file read whole in the current item: path,
	                    * mode, size, sha256 ("" if not whole), type */
	PROTO_TYPE_MAX,
};

enum proto_state {
	PROTO_ST_START = 0, /* expecting HELLO */
	PROTO_ST_READY,     /* between items */
	PROTO_ST_IN_ITEM,   /* inside an item */
	PROTO_ST_FINISHED,  /* DONE or ERROR received: nothing more */
	PROTO_ST_MAX,
};

const char *proto_type_name(int type);

/* Appends one frame to b, to send several with one write (proto_send). */
int proto_frame(struct dynbuf *b, enum proto_type type, const void *payload,
    size_t len);
int proto_send(int fd, const struct dynbuf *frames);

/* Writes one frame whole (retrying short writes and EINTR). */
int proto_write(int fd, enum proto_type type, const void *payload,
    size_t len);

/*
 * Reads one frame into payload (reset first; bounded by its max). The length
 * is checked against PROTO_MAX_PAYLOAD before anything is allocated. End of
 * stream before a header is AL_ENOTFOUND; inside a frame, AL_EIO.
 */
int proto_read(int fd, int *type_out, struct dynbuf *payload);

/* Parses one frame from memory: consumes *off bytes of buf on success. */
int proto_parse(const unsigned char *buf, size_t len, size_t *off,
    int *type_out, const unsigned char **payload, size_t *plen);

/* The parent's state machine: is this frame type allowed now? On success
 * the state advances. */
int proto_accept(enum proto_state *state, int type);

/* Field encoding into a payload buffer. */
int proto_put_u64(struct dynbuf *b, uint64_t v);
int proto_put_str(struct dynbuf *b, const char *s, size_t len);

/* Field decoding: a cursor over a payload; every read is bounds-checked. */
struct proto_cursor {
	const unsigned char *p;
	size_t len;
	size_t off;
};

int proto_get_u64(struct proto_cursor *c, uint64_t *out);
/* The string is copied, NUL-terminated; it may not contain NUL bytes. */
int proto_get_str(struct proto_cursor *c, char **out);
/* The payload was read exactly: no bytes left over. */
int proto_get_end(const struct proto_cursor *c);

/* A finding as it travels; all strings owned. */
struct proto_finding {
	char *rule;
	char *path;               /* the file, or ARCHIVE!/member */
	uint64_t severity;
	uint64_t line;
	uint64_t column;
	char *excerpt;
	char *fingerprint;
};

int proto_encode_finding(struct dynbuf *b, const char *rule,
    const char *path, uint64_t severity, uint64_t line, uint64_t column,
    const char *excerpt, const char *fingerprint);
/* Decodes and validates (severity 0..4, fingerprint 32 hex digits). */
int proto_decode_finding(const unsigned char *p, size_t len,
    struct proto_finding *out);
void proto_finding_free(struct proto_finding *f);

#endif
