/*
 * scan_artifact.c - the artifact dispatch; see scan_artifact.h.
 *
 * A whole artifact is sniffed from its first 64 KiB (archive magic, a
 * bundle's first line, a mail header, a diff anywhere), a file inside a
 * tree from its first 512 bytes (archive magic only: a .patch in a tree is
 * text its consumer reads, not applies). The kind is the content's, never
 * the name's nor the submitter's: a kind asked for (--kind) that the
 * content contradicts is a finding, and the content's kind is read
 * (read_kind()); the caller learns which, and the gate delivers the
 * artifact only in that kind. Archives are streamed from the fd by the
 * archive reader; patches, mailboxes and bundles are read whole into
 * memory first, since their readers need all of it at once, bounded by
 * AL_PATCH_MAX_BYTES and AL_BUNDLE_MAX_BYTES (al_limits.h): a larger one
 * is unscannable, never read in part.
 *
 * Trust: input is hostile; this runs only in the sandboxed scan child.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "scan_archive.h"
#include "scan_artifact.h"
#include "scan_bundle.h"
#include "scan_mbox.h"
#include "scan_patch.h"
#include "scan_type.h"

enum al_kind
scan_sniff_kind(const char *h, size_t n, const char *relpath, int top)
{
	if (scan_is_archive_magic((const unsigned char *)h, n))
		return AL_KIND_ARCHIVE;
	if (!top)
		return AL_KIND_FILE;
	if (n >= 16 && (memcmp(h, "# v2 git bundle\n", 16) == 0 ||
	    memcmp(h, "# v3 git bundle\n", 16) == 0))
		return AL_KIND_BUNDLE;
	/* NUL bytes do not make a patch or a mail binary: git apply and
	 * git am read past them, so the readers must too. */
	if (scan_looks_mbox(h, n))
		return AL_KIND_MBOX;
	(void)relpath;
	/* git apply skips any text before the first diff: a diff anywhere
	 * makes a patch, whatever the file is named. */
	if (scan_looks_patch(h, n))
		return AL_KIND_PATCH;
	return AL_KIND_FILE;
}

/*
 * The kind to read a whole artifact as: the content's. A kind asked for
 * and contradicted by the content is a finding; a kind the content does
 * not show at all (a "patch" with no diff) is read as the plain file it
 * is, and is unscannable: what its consumer makes of it is unknown.
 */
static const char *
a_kind(enum al_kind k)
{
	return k == AL_KIND_ARCHIVE ? "an archive" : k == AL_KIND_PATCH ?
	    "a patch" : k == AL_KIND_MBOX ? "a mailbox" : k == AL_KIND_BUNDLE ?
	    "a bundle" : "a file";
}

static int
read_kind(enum al_kind asked, enum al_kind seen, const char *path,
    struct finding_list *out, enum al_kind *read)
{
	*read = seen;
	if (asked == AL_KIND_AUTO || asked == seen)
		return 0;
	if (seen != AL_KIND_FILE)
		return finding_add_builtinf(out, AL_RULE_KIND_MISMATCH, path,
		    "submitted as %s, but the content is %s: read as %s",
		    a_kind(asked), a_kind(seen), a_kind(seen));
	return finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path,
	    "submitted as %s, but the content is not one (%s): read as a "
	    "plain file", a_kind(asked), asked == AL_KIND_PATCH ?
	    "it holds no diff" : asked == AL_KIND_MBOX ? "no mail header "
	    "starts it" : asked == AL_KIND_BUNDLE ? "not a git bundle" :
	    "not an archive: no archive signature");
}

int
scan_blob_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, const char *relpath, struct finding_list *out)
{
	uint64_t bytes = 0;
	int rc;

	if (!scan_is_archive_magic((const unsigned char *)data, len))
		return scan_mem(w, data, len, path, relpath, out);
	if (scan_name_promises_data(relpath) && (rc = finding_add_builtin(out,
	    AL_RULE_TYPE_MISMATCH, path, "named like text or an image, but "
	    "the content is an archive")) < 0)
		return rc;
	return scan_archive_mem(w, data, len, path, out, &bytes);
}

int
scan_patch_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, int mbox, struct finding_list *out)
{
	if (mbox)
		return scan_mbox_mem(w, data, len, path, out);
	return scan_patch_apply_mem(w, data, len, path, out);
}

/* Reads all of fd, up to max bytes: 0, or 1 when it is larger. */
static int
read_whole(int fd, uint64_t max, char **out, size_t *len)
{
	struct dynbuf b;
	char chunk[65536];
	ssize_t n;

	dynbuf_init(&b, (size_t)max);
	for (;;) {
		do
			n = read(fd, chunk, sizeof(chunk));
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			dynbuf_free(&b);
			return al_err_set(AL_EIO, "read: %s", strerror(errno));
		}
		if (n == 0)
			break;
		if ((uint64_t)b.len + (uint64_t)n > max) {
			dynbuf_free(&b);
			return 1;
		}
		if (dynbuf_add(&b, chunk, (size_t)n) < 0) {
			dynbuf_free(&b);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
	}
	*len = b.len;
	*out = dynbuf_take(&b, len);
	if (*out == NULL && (*out = strdup("")) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	return 0;
}

/* Patches, mailboxes and bundles are read whole. */
static int
scan_whole(struct scan_worker *w, int fd, const char *path,
    enum al_kind kind, struct finding_list *out, uint64_t *bytes)
{
	uint64_t max = kind == AL_KIND_BUNDLE ? AL_BUNDLE_MAX_BYTES :
	    AL_PATCH_MAX_BYTES;
	char *data = NULL;
	size_t len = 0;
	int rc = read_whole(fd, max, &data, &len);

	if (rc < 0 && rc != AL_ENOMEM)
		return finding_add_builtin(out, AL_RULE_UNSCANNABLE, path,
		    al_err_msg());
	if (rc == 1)
		return finding_add_builtinf(out, AL_RULE_UNSCANNABLE, path, "a %s larger than "
		    "%llu MiB is not read", al_kind_name(kind),
		    (unsigned long long)(max >> 20));
	if (rc < 0)
		return rc;
	*bytes += len;
	if (kind == AL_KIND_BUNDLE)
		rc = scan_bundle_mem(w, data, len, path, out);
	else
		rc = scan_patch_mem(w, data, len, path, kind == AL_KIND_MBOX,
		    out);
	free(data);
	return rc;
}

int
scan_artifact_fd(struct scan_worker *w, int fd, const char *path,
    const char *relpath, enum al_kind kind, struct finding_list *out,
    uint64_t *bytes, char *digest, enum al_kind *kind_out)
{
	char head[65536];
	ssize_t n;
	int rc, sniffed;
	enum al_kind seen;

	if (kind_out != NULL)
		*kind_out = AL_KIND_FILE;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return finding_add_builtin(out, AL_RULE_UNSCANNABLE, path,
		    "cannot rewind the file to read it from its start");
	if (kind == AL_KIND_DIRECTORY)
		return scan_fd(w, fd, path, relpath, out, bytes, digest);
	sniffed = kind == AL_KIND_MEMBER || kind == AL_KIND_AUTO;
	/* Archive magic is within 512 bytes (tar's at 257); patches and
	 * mailboxes, possible only for a whole artifact, need more. */
	do
		n = pread(fd, head, kind == AL_KIND_MEMBER ? 512 : sizeof(head),
		    0);
	while (n < 0 && errno == EINTR);
	seen = scan_sniff_kind(head, n > 0 ? (size_t)n : 0, relpath,
	    kind != AL_KIND_MEMBER);
	if (kind == AL_KIND_MEMBER)
		kind = seen;
	else if ((rc = read_kind(kind, seen, path, out, &kind)) < 0)
		return rc;
	if (kind_out != NULL)
		*kind_out = kind;
	if (kind == AL_KIND_FILE || kind == AL_KIND_DIRECTORY)
		return scan_fd(w, fd, path, relpath, out, bytes, digest);
	if (digest != NULL)
		digest[0] = '\0';
	if (kind != AL_KIND_ARCHIVE)
		return scan_whole(w, fd, path, kind, out, bytes);
	/* (Forced with --kind, the content may not be an archive at all.) */
	if (sniffed && scan_name_promises_data(relpath) &&
	    (rc = finding_add_builtin(out, AL_RULE_TYPE_MISMATCH, path, "named "
	    "like text or an image, but the content is an archive")) < 0)
		return rc;
	return scan_archive_fd(w, fd, path, out, bytes);
}
