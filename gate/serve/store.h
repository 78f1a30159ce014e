/*
 * store.h - the quarantine store: artifact bytes, content-addressed.
 *
 * Layout under the data directory: objects/ab/abcdef… (the SHA-256 of the
 * bytes, files mode 0400, never rewritten), tmp/ for uploads in flight.
 * An upload is streamed to a temporary file while hashed, then fsynced and
 * renamed into place, and the directory fsynced: once store_upload_commit()
 * returns, the bytes survive a crash. Identical bytes are stored once; an
 * object found not to hash to its name when the same bytes come again is
 * replaced by them (the only time an object is rewritten).
 * Leftovers of uploads cut short (a crash, a kill) are removed at open.
 * An upload whose bytes are there already keeps the stored copy if it
 * still hashes to its name, and otherwise replaces it (a damaged object is
 * healed by the next upload of its bytes, or the next scan that keeps
 * them).
 *
 * Trust: the bytes are hostile and never interpreted here; the hash is
 * computed by the gate, not taken from the client.
 */
#ifndef AIRLOCK_STORE_H
#define AIRLOCK_STORE_H

#include <stddef.h>
#include <stdint.h>

struct gate_store;
struct store_upload;

/* Opens (create: makes objects/ and tmp/) the store in datadir. */
int store_open(struct gate_store **out, const char *datadir, int create);
void store_close(struct gate_store *s); /* NULL-safe */

/* Starts an upload of at most max bytes. */
int store_upload_begin(struct gate_store *s, uint64_t max,
    struct store_upload **out);
/* AL_ELIMIT once more than max bytes came; AL_EFULL when the disk (or a
 * quota) is full, AL_EIO on another write error. */
int store_upload_write(struct store_upload *u, const void *p, size_t n);
/* Makes the bytes durable under their hash; frees u (also on failure,
 * when its temporary file is removed: no object is ever half there).
 * AL_EFULL when the disk is full, AL_EIO on another error. */
int store_upload_commit(struct store_upload *u, char sha256_out[65],
    uint64_t *size_out);
void store_upload_abort(struct store_upload *u); /* NULL-safe */

/*
 * Stores n bytes from memory the same way (temporary file, fsync, rename,
 * directory fsync), and only if they hash to want (64 hex digits): the
 * gate hashes what it writes, whoever said what the bytes are. AL_EINVAL
 * when they do not.
 */
int store_put(struct gate_store *s, const void *p, size_t n,
    const char *want);

/*
 * Objects no row refers to (a commit that failed after the bytes were
 * stored, a crash between the two) are removed by a sweep: each object
 * whose mtime is before cutoff (seconds; an object stored again has its
 * mtime renewed at commit) is offered to keep(sha256, arg), and unlinked
 * when it answers 0 (1: keep; negative: stop, and return that). At most
 * max objects are removed in one call; *n_out counts them. The caller
 * makes sure that nothing is committed meanwhile that would refer to one.
 */
int store_sweep(struct gate_store *s, int64_t cutoff, size_t max,
    int (*keep)(const char *sha256, void *arg), void *arg, size_t *n_out);

/* Opens the stored bytes read-only (O_NOFOLLOW); AL_ENOTFOUND. */
int store_blob_open(struct gate_store *s, const char *sha256, int *fd_out);

/*
 * Hashes the whole of fd (with pread: its offset does not move) and
 * compares with want: 0 when they agree (then the size is the recorded one
 * too); AL_EINVAL when they do not ("the stored bytes hash to …"), with
 * what they hash to in got (64 hex digits); AL_EIO when they cannot be
 * read. A stored object is never rewritten, so one that does not verify
 * was damaged (the disk, or someone with access to the data directory):
 * an integrity alarm.
 */
int store_blob_check(int fd, const char *want, char got[65]);

#endif
