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
#include <sys/types.h>

#include "dynbuf.h"
#include "vocab.h"

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
	PROTO_MEMBER_DATA, /* a piece of the text member just announced:
	                    * offset, bytes (the parent re-hashes them) */
	PROTO_TYPE_MAX,
};

/*
 * What the parent may receive next. A child's life: START, HELLO, then per
 * file it was sent: AWAIT (a SCAN went out), ITEM, IN_ITEM (FINDING and
 * MEMBER frames), ITEM_END back to READY. A MEMBER leads to IN_MEMBER,
 * the one state that takes MEMBER_DATA: bytes always follow the record
 * they belong to. The parent sets AWAIT when it sends a SCAN; from there
 * this table alone decides what is accepted.
 */
enum proto_state {
	PROTO_ST_START = 0, /* expecting HELLO */
	PROTO_ST_READY,     /* between items */
	PROTO_ST_IN_ITEM,   /* inside an item */
	PROTO_ST_FINISHED,  /* DONE or ERROR received: nothing more */
	PROTO_ST_AWAIT,     /* a SCAN was sent: its ITEM (or ERROR) comes */
	PROTO_ST_IN_MEMBER, /* after a MEMBER: its MEMBER_DATA may follow */
	PROTO_ST_MAX,
};

/* SCAN flags: what the parent wants besides the findings. The kind to
 * read the file as travels above them (flags >> PROTO_SCAN_KIND_SHIFT). */
#define PROTO_SCAN_DIGEST 1u      /* the file's SHA-256 in ITEM_END */
#define PROTO_SCAN_ITEMS 2u       /* a MEMBER frame for each file read */
#define PROTO_SCAN_KIND_SHIFT 8

/*
 * How a scan child (or the launcher) ends: the parent names the status in
 * the artifact's unscannable reason. The values are part of nothing but
 * that message.
 */
enum proto_exit {
	PROTO_EXIT_OK = 0,
	PROTO_EXIT_RETURNED = 2,  /* its main loop returned: a bug */
	PROTO_EXIT_PREPARE = 3,   /* loading what a scan needs failed */
	PROTO_EXIT_SANDBOX = 4,   /* the sandbox could not be entered */
	PROTO_EXIT_REQUEST = 5,   /* no request, or not a SCAN */
	PROTO_EXIT_PAYLOAD = 6,   /* a SCAN it cannot decode; for the
	                           * launcher: no child could be forked */
	PROTO_EXIT_SCAN = 7,      /* the scan failed (out of memory); for
	                           * the launcher: the control socket broke */
	PROTO_EXIT_REPLY = 8,     /* the answer could not be sent */
	PROTO_EXIT_SANITIZER = 9, /* a sanitizer's fatal error (sanitized
	                           * builds only: sbx.h); its report went
	                           * to the parent */
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

/*
 * The messages, each with its struct (strings owned, NUL-terminated), its
 * encoder (the payload into b, which is reset first) and its decoder
 * (field by field, exact sizes, no trailing bytes; on failure nothing is
 * left to free). Frames: proto_frame(frames, TYPE, b.data, b.len).
 */

/* HELLO, child to parent: the engine and rules it scans with. */
struct proto_hello {
	char *engine;
	char *ruleset;
};
int proto_encode_hello(struct dynbuf *b, const char *engine,
    const char *ruleset);
int proto_decode_hello(const unsigned char *p, size_t len,
    struct proto_hello *out);
void proto_hello_free(struct proto_hello *h);

/* SCAN, parent to child (or launcher): read the fd sent with it. */
struct proto_scan {
	char *path;               /* shown in findings */
	char *relpath;            /* what path globs see */
	unsigned flags;           /* PROTO_SCAN_DIGEST | PROTO_SCAN_ITEMS */
	enum al_kind kind;        /* never AL_KIND_DIRECTORY */
};
int proto_encode_scan(struct dynbuf *b, const char *path,
    const char *relpath, unsigned flags, enum al_kind kind);
/* AL_EINVAL also for a kind a child cannot read (DIRECTORY and above). */
int proto_decode_scan(const unsigned char *p, size_t len,
    struct proto_scan *out);
void proto_scan_free(struct proto_scan *s);

/* ITEM, child to parent: the answer for this path begins. */
int proto_encode_item(struct dynbuf *b, const char *path);
int proto_decode_item(const unsigned char *p, size_t len, char **path_out);

/* MEMBER, child to parent: a file it read whole inside the item. */
struct proto_member {
	char *path;               /* the item, or ITEM!/member */
	uint64_t mode;            /* st_mode bits, at most 0177777; 0 */
	uint64_t size;
	char *sha256;             /* 64 hex digits, or "" if not whole */
	char *type;               /* MIME type: printable ASCII, <= 255 */
};
int proto_encode_member(struct dynbuf *b, const char *path, uint64_t mode,
    uint64_t size, const char *sha256, const char *type);
int proto_decode_member(const unsigned char *p, size_t len,
    struct proto_member *out);
void proto_member_free(struct proto_member *m);

/*
 * MEMBER_DATA, child to parent: bytes [offset, offset + len) of the text
 * member the last MEMBER frame announced, in pieces of at most
 * PROTO_MEMBER_CHUNK (a whole member, AL_MEMBER_CONTENT_MAX, does not fit
 * in one payload). Payload: u64 offset, u64 len, len bytes. The decoder
 * checks the sizes only; what the bytes must be (contiguous, within the
 * member's size and the caps, hashing to its sha256) is the parent's to
 * check.
 */
#define PROTO_MEMBER_CHUNK (256u << 10)
struct proto_member_data {
	uint64_t offset;
	const unsigned char *data; /* borrowed: points into the payload */
	size_t len;               /* 1 .. PROTO_MEMBER_CHUNK */
};
int proto_encode_member_data(struct dynbuf *b, uint64_t offset,
    const void *data, size_t len);
int proto_decode_member_data(const unsigned char *p, size_t len,
    struct proto_member_data *out);

/* ITEM_END, child to parent: bytes read, the digest if asked, and the
 * kind the item was read as (FILE to BUNDLE: the content's, which the
 * gate records and delivers in). */
struct proto_item_end {
	uint64_t bytes;
	char *digest;             /* 64 hex digits, or "" */
	enum al_kind kind;
};
int proto_encode_item_end(struct dynbuf *b, uint64_t bytes,
    const char *digest, enum al_kind kind);
int proto_decode_item_end(const unsigned char *p, size_t len,
    struct proto_item_end *out);
void proto_item_end_free(struct proto_item_end *e);

/*
 * The launcher's reports on its control socket (the launcher is trusted:
 * it parses nothing). STARTED travels with the child's socket; ENDED
 * follows when the child is reaped.
 */
#define PROTO_LAUNCH_STARTED 8u   /* u64 pid */
#define PROTO_LAUNCH_ENDED 12u    /* u64 pid, u32 wait status */
void proto_launch_started(unsigned char out[PROTO_LAUNCH_STARTED],
    pid_t pid);
void proto_launch_ended(unsigned char out[PROTO_LAUNCH_ENDED], pid_t pid,
    int status);
pid_t proto_launch_pid(const unsigned char *msg);
int proto_launch_status(const unsigned char msg[PROTO_LAUNCH_ENDED]);

/* FINDING, child to parent: a finding as it travels. */
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
