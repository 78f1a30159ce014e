/*
 * scan_container.c - one reading of an archive's raw bytes, or a reason why
 * not; see scan_container.h.
 *
 * Why each rule is what the extractors do:
 *  - zip: unzip and Python's zipfile look for the end record (EOCD) from
 *    the end of the file back over at most 64 KiB of comment and take the
 *    last one; they read the central directory it points at, and adjust
 *    for bytes before it (self-extractors, concatenated zips). A streaming
 *    reader walks local headers from offset 0. The two agree only when the
 *    local entries, the central directory and the end record tile the file
 *    from its first byte to its last, each local header says what its
 *    central entry says, and no two entries share bytes. So that is what is
 *    required; the only gaps allowed are data descriptors (flag bit 3).
 *  - tar: GNU tar, libarchive and tarfile stop at the first all-zero block;
 *    GNU tar --ignore-zeros reads on. Zeros after it are record padding
 *    (GNU tar pads to 10240 bytes); anything else is a second reading.
 *  - gzip (and bzip2, xz, zstd, lz4 through libarchive, which like gzip -d
 *    decompresses every concatenated member): the tar rule applies to the
 *    whole decompressed stream. After the last gzip member gzip -d and
 *    tarfile skip zeros; other bytes are ignored by gzip -d and libarchive,
 *    refused by Python, and can be a zip that unzip finds: refused.
 *  - any archive that is not a zip: an end record near its end makes it a
 *    zip to unzip (a polyglot), unless it is the end of a zip stored whole
 *    as a tar member (unzip then reads exactly that member, which is
 *    checked as an archive in its own right).
 *
 * Limits (al_limits.h): AL_ZIP_MAX_CD_BYTES, AL_ARCHIVE_MAX_ENTRIES,
 * AL_TAR_MAX_PAX_BYTES, and the caller's max_out for decompression.
 */
#include <archive.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "al_limits.h"
#include "err.h"
#include "scan_container.h"

#define CTR_CHUNK 65536u
#define ZIP_EOCD_LEN 22u
#define ZIP_EOCD_SEARCH (65535u + ZIP_EOCD_LEN)
#define TAR_BLOCK 512u

static int
src_read(const struct ctr_src *s, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (off > s->size || n > s->size - off)
		return -1;
	if (s->mem != NULL) {
		memcpy(buf, s->mem + off, n);
		return 0;
	}
	while (got < n) {
		ssize_t r = pread(s->fd, (char *)buf + got, n - got,
		    (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int say(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return 1;
}

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* A hostile name, shortened and made printable, for a reason. */
static const char *
shown(char dst[72], const unsigned char *name, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n && k < 64; i++)
		dst[k++] = name[i] >= 0x20 && name[i] < 0x7f && name[i] != '\'' ?
		    (char)name[i] : '?';
	if (i < n) {
		memcpy(dst + k, "...", 3);
		k += 3;
	}
	dst[k] = '\0';
	return dst;
}

/* What a stretch of bytes begins like, for a reason. */
static const char *
looks_like(const unsigned char *p, size_t n)
{
	if (n >= 4 && (memcmp(p, "PK\003\004", 4) == 0 ||
	    memcmp(p, "PK\005\006", 4) == 0 || memcmp(p, "PK\001\002", 4) == 0))
		return "a zip archive";
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return "a gzip stream";
	if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
		return "a tar archive";
	if (n >= 6 && memcmp(p, "7z\xbc\xaf\x27\x1c", 6) == 0)
		return "a 7z archive";
	return "data";
}

/* ---- zip ------------------------------------------------------------------------------ */

/* The offset of the last end-record signature in the last 64 KiB + 22
 * bytes, as unzip and zipfile search; *found = 0 if none. *cut is set
 * when a later signature has no room for a whole record after it (zipfile
 * then refuses the file, unzip reads the earlier one). */
static int
zip_find_eocd(const struct ctr_src *s, uint64_t *off, int *found, int *cut)
{
	uint64_t start = s->size > ZIP_EOCD_SEARCH ? s->size - ZIP_EOCD_SEARCH : 0;
	size_t n = (size_t)(s->size - start), i;
	unsigned char *tail;

	*found = *cut = 0;
	if (n < 4)
		return 0;
	if ((tail = malloc(n)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (src_read(s, start, tail, n) < 0)
		n = 3;            /* unreadable: no end record */
	for (i = n - 3; i-- > 0;) {
		if (memcmp(tail + i, "PK\005\006", 4) != 0)
			continue;
		if (n - i < ZIP_EOCD_LEN) {
			*cut = 1;
			continue;
		}
		*off = start + i;
		*found = 1;
		break;
	}
	free(tail);
	return 0;
}

/* The end record's view of the central directory. */
struct zip_end {
	uint64_t entries, cd_size, cd_off;
	uint64_t tail;            /* where the zip64 record or the EOCD starts */
};

static int
zip_read_end(const struct ctr_src *s, uint64_t eocd, struct zip_end *z,
    char *why, size_t whylen)
{
	unsigned char e[ZIP_EOCD_LEN], loc[20], r[56];
	uint64_t z64;

	if (src_read(s, eocd, e, sizeof(e)) < 0)
		return say(why, whylen, "the zip's end record is unreadable");
	if (le16(e + 4) != 0 || le16(e + 6) != 0 || le16(e + 8) != le16(e + 10))
		return say(why, whylen, "the zip's last end record (at offset %llu, "
		    "the one unzip and zipfile use) is for a zip split over "
		    "several disks", (unsigned long long)eocd);
	z->entries = le16(e + 10);
	z->cd_size = le32(e + 12);
	z->cd_off = le32(e + 16);
	z->tail = eocd;
	if (eocd + ZIP_EOCD_LEN + le16(e + 20) != s->size)
		return say(why, whylen, eocd + ZIP_EOCD_LEN + le16(e + 20) > s->size ?
		    "the zip's comment runs past the end of the file" :
		    "%llu bytes follow the zip's end record and its comment "
		    "(data appended after the archive)", (unsigned long long)
		    (s->size - eocd - ZIP_EOCD_LEN - le16(e + 20)));
	/* zipfile and unzip use a zip64 locator whenever one is there. */
	if (eocd < sizeof(loc) || src_read(s, eocd - sizeof(loc), loc,
	    sizeof(loc)) < 0 || memcmp(loc, "PK\006\007", 4) != 0)
		return 0;
	z64 = le64(loc + 8);
	if (le32(loc + 4) != 0 || le32(loc + 16) > 1 ||
	    src_read(s, z64, r, sizeof(r)) < 0 || memcmp(r, "PK\006\006", 4) != 0 ||
	    le64(r + 4) > eocd || z64 + 12 + le64(r + 4) != eocd - sizeof(loc))
		return say(why, whylen, "the zip64 end record is missing or not "
		    "where its locator says");
	if (le32(r + 16) != 0 || le32(r + 20) != 0 || le64(r + 24) != le64(r + 32))
		return say(why, whylen, "a zip split over several disks");
	if ((z->entries != 0xffff && z->entries != le64(r + 32)) ||
	    (z->cd_size != 0xffffffff && z->cd_size != le64(r + 40)) ||
	    (z->cd_off != 0xffffffff && z->cd_off != le64(r + 48)))
		return say(why, whylen, "the zip's end record and its zip64 end "
		    "record describe different central directories");
	z->entries = le64(r + 32);
	z->cd_size = le64(r + 40);
	z->cd_off = le64(r + 48);
	z->tail = z64;
	return 0;
}

/* Finds the extra field id in [p, p + n); its data and length. */
static const unsigned char *
zip_extra(const unsigned char *p, size_t n, uint16_t id, size_t *len)
{
	while (n >= 4) {
		size_t l = le16(p + 2);

		if (l > n - 4)
			return NULL;
		if (le16(p) == id) {
			*len = l;
			return p + 4;
		}
		p += 4 + l;
		n -= 4 + l;
	}
	return NULL;
}

/* The zip64 values for the fields that are all ones, in the spec's order
 * (uncompressed, compressed, offset); 0 if present where needed. */
static int
zip_zip64(const unsigned char *ex, size_t exlen, uint64_t *usize,
    uint64_t *csize, uint64_t *lho)
{
	size_t len = 0, at = 0;
	const unsigned char *d = zip_extra(ex, exlen, 0x0001, &len);
	uint64_t *v[3] = {usize, csize, lho};
	int i;

	for (i = 0; i < 3; i++) {
		if (v[i] == NULL || *v[i] != 0xffffffff)
			continue;
		if (d == NULL || len < at + 8)
			return -1;
		*v[i] = le64(d + at);
		at += 8;
	}
	return 0;
}

/* 1 if the Info-ZIP Unicode path field names something else than name. */
static int
zip_other_unicode_name(const unsigned char *ex, size_t exlen,
    const unsigned char *name, size_t nlen, const unsigned char **u,
    size_t *ulen)
{
	size_t len = 0;
	const unsigned char *d = zip_extra(ex, exlen, 0x7075, &len);

	if (d == NULL || len < 5 || d[0] != 1)
		return 0;
	*u = d + 5;
	*ulen = len - 5;
	return *ulen != nlen || memcmp(*u, name, nlen) != 0;
}

struct zip_ent {
	uint64_t lo, end;         /* local header, end of its data */
	uint32_t name_off;        /* in the central directory buffer */
	uint16_t name_len;
	int dd;                   /* a data descriptor may follow */
};

/* By local offset: a heap sort, in place, without recursion (glibc's
 * qsort asks the kernel for the memory size, which the sandbox forbids). */
static void
zip_ent_sift(struct zip_ent *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct zip_ent t;

		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1].lo > v[c].lo)
			c++;
		if (v[i].lo >= v[c].lo)
			return;
		t = v[i];
		v[i] = v[c];
		v[c] = t;
		i = c;
	}
}

static void
zip_ent_sort(struct zip_ent *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		zip_ent_sift(v, i, n);
	while (n > 1) {
		struct zip_ent t = v[0];

		v[0] = v[--n];
		v[n] = t;
		zip_ent_sift(v, 0, n);
	}
}

/* One central entry at cd + p against its local header; fills ent. */
static int
zip_check_entry(const struct ctr_src *s, const unsigned char *c,
    unsigned char *lbuf, struct zip_ent *ent, char *why, size_t whylen)
{
	const unsigned char *name = c + 46, *ex = c + 46 + le16(c + 28), *u;
	size_t nlen = le16(c + 28), exlen = le16(c + 30), ulen;
	uint64_t usize = le32(c + 24), csize = le32(c + 20), lho = le32(c + 42);
	uint64_t lu, lc;
	unsigned char l[30];
	size_t lnlen, lexlen;
	uint16_t flags = le16(c + 8);
	char n1[72], n2[72];

	if (zip_zip64(ex, exlen, &usize, &csize, &lho) < 0)
		return say(why, whylen, "the zip entry '%s' lacks the zip64 sizes "
		    "its central directory entry calls for", shown(n1, name, nlen));
	if (le16(c + 34) != 0)
		return say(why, whylen, "a zip split over several disks");
	if (zip_other_unicode_name(ex, exlen, name, nlen, &u, &ulen))
		return say(why, whylen, "the zip entry '%s' has another name, '%s', "
		    "in its Unicode path field (unzip uses that one, zipfile not)",
		    shown(n1, name, nlen), shown(n2, u, ulen));
	if (src_read(s, lho, l, sizeof(l)) < 0 || memcmp(l, "PK\003\004", 4) != 0)
		return say(why, whylen, "the zip entry '%s' has no local header where "
		    "its central directory entry points (offset %llu)",
		    shown(n1, name, nlen), (unsigned long long)lho);
	lnlen = le16(l + 26);
	lexlen = le16(l + 28);
	if (src_read(s, lho + 30, lbuf, lnlen + lexlen) < 0)
		return say(why, whylen, "the zip entry '%s' has a truncated local "
		    "header", shown(n1, name, nlen));
	if (lnlen != nlen || memcmp(lbuf, name, nlen) != 0)
		return say(why, whylen, "the zip's local header names '%s' but its "
		    "central directory '%s'", shown(n1, lbuf, lnlen),
		    shown(n2, name, nlen));
	if (zip_other_unicode_name(lbuf + lnlen, lexlen, lbuf, lnlen, &u, &ulen))
		return say(why, whylen, "the zip entry '%s' has another name, '%s', "
		    "in its local Unicode path field", shown(n1, name, nlen),
		    shown(n2, u, ulen));
	if (le16(l + 8) != le16(c + 10) || ((le16(l + 6) ^ flags) & 0x0009))
		return say(why, whylen, "the zip entry '%s' is compressed or encrypted "
		    "differently in its local header and its central directory",
		    shown(n1, name, nlen));
	lu = le32(l + 22);
	lc = le32(l + 18);
	if (zip_zip64(lbuf + lnlen, lexlen, &lu, &lc, NULL) < 0)
		return say(why, whylen, "the zip entry '%s' lacks the zip64 sizes its "
		    "local header calls for", shown(n1, name, nlen));
	/* With a data descriptor the local sizes may be zero; if given, they
	 * must still be the same. */
	if ((flags & 0x0008) ? ((lc != 0 && lc != csize) || (lu != 0 &&
	    lu != usize) || (le32(l + 14) != 0 && le32(l + 14) != le32(c + 16))) :
	    (lc != csize || lu != usize || le32(l + 14) != le32(c + 16)))
		return say(why, whylen, "the zip entry '%s' has a different size or "
		    "checksum in its local header than in its central directory "
		    "(local %llu bytes, central %llu)", shown(n1, name, nlen),
		    (unsigned long long)lc, (unsigned long long)csize);
	ent->lo = lho;
	if (csize > s->size || (ent->end = lho + 30 + lnlen + lexlen + csize) >
	    s->size)
		return say(why, whylen, "the zip entry '%s' runs past the end of the "
		    "file", shown(n1, name, nlen));
	ent->dd = (flags & 0x0008) != 0;
	return 0;
}

/* The gaps a data descriptor may fill: with or without its signature,
 * 32- or 64-bit sizes. */
static int
zip_dd_gap(uint64_t gap)
{
	return gap == 12 || gap == 16 || gap == 20 || gap == 24;
}

static int
zip_check(const struct ctr_src *s, uint64_t eocd, char *why, size_t whylen)
{
	struct zip_end z = {0, 0, 0, 0};
	struct zip_ent *ents = NULL;
	unsigned char *cd = NULL, *lbuf = NULL;
	uint64_t i, p = 0, expect = 0;
	char n1[72], n2[72];
	int rc;

	if ((rc = zip_read_end(s, eocd, &z, why, whylen)) != 0)
		return rc;
	if (z.cd_off > z.tail || z.cd_size > z.tail - z.cd_off)
		return say(why, whylen, "the zip's central directory is not before "
		    "its end record (offset %llu, %llu bytes)",
		    (unsigned long long)z.cd_off, (unsigned long long)z.cd_size);
	if (z.cd_off + z.cd_size < z.tail)
		return say(why, whylen, "%llu bytes before the zip's first entry: "
		    "another zip, a program or hidden data (unzip reads the zip at "
		    "the end of the file, a streaming reader from its start)",
		    (unsigned long long)(z.tail - z.cd_off - z.cd_size));
	if (z.cd_size > AL_ZIP_MAX_CD_BYTES)
		return say(why, whylen, "a zip central directory of more than %u "
		    "MiB is not read", AL_ZIP_MAX_CD_BYTES >> 20);
	if (z.entries > AL_ARCHIVE_MAX_ENTRIES)
		return say(why, whylen, "a zip of more than %u entries is not read",
		    AL_ARCHIVE_MAX_ENTRIES);
	cd = malloc(z.cd_size ? (size_t)z.cd_size : 1);
	ents = calloc(z.entries ? (size_t)z.entries : 1, sizeof(*ents));
	lbuf = malloc(2 * 65535);
	if (cd == NULL || ents == NULL || lbuf == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto done;
	}
	if (src_read(s, z.cd_off, cd, (size_t)z.cd_size) < 0) {
		rc = say(why, whylen, "the zip's central directory is unreadable");
		goto done;
	}
	for (i = 0; i < z.entries; i++) {
		const unsigned char *c = cd + p;
		uint64_t len;

		if (z.cd_size - p < 46 || memcmp(c, "PK\001\002", 4) != 0 ||
		    (len = 46 + (uint64_t)le16(c + 28) + le16(c + 30) +
		    le16(c + 32)) > z.cd_size - p) {
			rc = say(why, whylen, "the zip's central directory holds fewer "
			    "than the %llu entries its end record counts",
			    (unsigned long long)z.entries);
			goto done;
		}
		if ((rc = zip_check_entry(s, c, lbuf, &ents[i], why, whylen)) != 0)
			goto done;
		ents[i].name_off = (uint32_t)(p + 46);
		ents[i].name_len = le16(c + 28);
		p += len;
	}
	if (p != z.cd_size) {
		rc = say(why, whylen, "the zip's central directory holds %llu bytes "
		    "more than its %llu entries (entries a reader counting by size "
		    "sees, one counting entries does not)",
		    (unsigned long long)(z.cd_size - p), (unsigned long long)z.entries);
		goto done;
	}
	zip_ent_sort(ents, (size_t)z.entries);
	for (i = 0; i <= z.entries; i++) {
		uint64_t at = i < z.entries ? ents[i].lo : z.cd_off;
		const struct zip_ent *prev = i > 0 ? &ents[i - 1] : NULL;

		if (at < expect) {
			if (i == z.entries)
				rc = say(why, whylen, "the zip entry '%s' overlaps the "
				    "central directory", shown(n1, cd + prev->name_off,
				    prev->name_len));
			else
				rc = say(why, whylen, "the zip entries '%s' and '%s' share "
				    "bytes%s (overlapping entries: a zip bomb or quine?)",
				    shown(n1, cd + prev->name_off, prev->name_len),
				    shown(n2, cd + ents[i].name_off, ents[i].name_len),
				    at == prev->lo ? ": two central entries point at the "
				    "same local data" : "");
			goto done;
		}
		if (at > expect && !(prev != NULL && prev->dd &&
		    zip_dd_gap(at - expect))) {
			rc = say(why, whylen, "%llu bytes at offset %llu belong to no zip "
			    "entry (hidden data a streaming reader may read as "
			    "entries)", (unsigned long long)(at - expect),
			    (unsigned long long)expect);
			goto done;
		}
		if (i < z.entries)
			expect = ents[i].end;
	}
	rc = 0;
done:
	free(cd);
	free(ents);
	free(lbuf);
	return rc;
}

/* An end record at eocd that a zip reader would act on: its central
 * directory, where the record says, starts like one. Where the zip would
 * start (its first local header) goes to *base. */
static int
zip_eocd_plausible(const struct ctr_src *s, uint64_t eocd, uint64_t *base)
{
	unsigned char e[ZIP_EOCD_LEN], sig[4];
	uint64_t cds, cdo;

	if (src_read(s, eocd, e, sizeof(e)) < 0)
		return 0;
	cds = le32(e + 12);
	cdo = le32(e + 16);
	if (eocd >= 20 && src_read(s, eocd - 20, sig, 4) == 0 &&
	    memcmp(sig, "PK\006\007", 4) == 0) {
		unsigned char loc[20], r[56];

		/* The zip64 record where writers put it, just before the
		 * locator; its recorded offset tells where the zip starts. */
		*base = UINT64_MAX;
		if (eocd >= 20 + sizeof(r) && src_read(s, eocd - 20, loc,
		    sizeof(loc)) == 0 && src_read(s, eocd - 20 - sizeof(r), r,
		    sizeof(r)) == 0 && memcmp(r, "PK\006\006", 4) == 0 &&
		    le64(r + 4) == sizeof(r) - 12 && le64(loc + 8) <= eocd - 20 -
		    sizeof(r))
			*base = eocd - 20 - sizeof(r) - le64(loc + 8);
		return 1;
	}
	if (cds > eocd)
		return 0;
	*base = cdo <= eocd - cds ? eocd - cds - cdo : UINT64_MAX;
	if (cds == 0)
		return le16(e + 10) == 0;
	return src_read(s, eocd - cds, sig, 4) == 0 &&
	    memcmp(sig, "PK\001\002", 4) == 0;
}

/* ---- tar ------------------------------------------------------------------------------ */

struct tarw {
	uint64_t off;             /* bytes fed so far */
	uint64_t skip;            /* bytes of the current member left */
	uint64_t end;             /* where the first zero block starts */
	int ended, stop;          /* stop: a verdict, or not a tar */
	int nottar;               /* the first block is no tar header */
	unsigned char blk[TAR_BLOCK];
	size_t blen;
	unsigned ext;             /* old GNU sparse extension blocks to come */
	int pax;                  /* collecting a pax header's data */
	unsigned char *paxbuf;
	size_t paxlen, paxcap;
	int64_t next_size;        /* a pax size= for the next member; -1 none */
	uint64_t want;            /* a zip end record's offset, or UINT64_MAX */
	uint64_t want_lo, want_hi; /* the member data that holds it */
	int verdict;
	char *why;
	size_t whylen;
};

static int
tar_chksum_ok(const unsigned char *b)
{
	unsigned long want = 0, u = 0;
	long sgn = 0;
	size_t i = 148;

	while (i < 156 && b[i] == ' ')
		i++;
	if (i == 156 || b[i] < '0' || b[i] > '7')
		return 0;
	for (; i < 156 && b[i] >= '0' && b[i] <= '7'; i++)
		want = want * 8 + (unsigned long)(b[i] - '0');
	for (i = 0; i < TAR_BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : b[i];

		u += c;
		sgn += (signed char)c;
	}
	return want == u || (long)want == sgn;
}

/* The size field: octal, or base-256 when its top bit is set; -1 if
 * neither. */
static int64_t
tar_size(const unsigned char *f)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return -1;
		for (i = 1; i < 12; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
		return (int64_t)v;
	}
	while (i < 12 && f[i] == ' ')
		i++;
	for (; i < 12 && f[i] >= '0' && f[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(f[i] - '0');
	if (i < 12 && f[i] != '\0' && f[i] != ' ')
		return -1;
	return (int64_t)v;
}

/* A pax header's "size=" record, as extractors apply it to the next
 * member; -1 if none. */
static int64_t
tar_pax_size(const unsigned char *p, size_t n)
{
	int64_t size = -1;

	while (n > 0) {
		size_t len = 0, i = 0;

		while (i < n && p[i] >= '0' && p[i] <= '9' && len < n)
			len = len * 10 + (size_t)(p[i++] - '0');
		if (i == n || p[i] != ' ' || len <= i + 1 || len > n)
			break;
		if (len - i - 1 > 5 && memcmp(p + i + 1, "size=", 5) == 0) {
			uint64_t v = 0;
			size_t j;

			for (j = i + 6; j < len - 1 && p[j] >= '0' && p[j] <= '9' &&
			    v < (1ULL << 60); j++)
				v = v * 10 + (uint64_t)(p[j] - '0');
			size = (int64_t)v;
		}
		p += len;
		n -= len;
	}
	return size;
}

/* One header block; sets what follows it. */
static void
tar_header(struct tarw *t)
{
	const unsigned char *b = t->blk;
	unsigned char type = b[156];
	int64_t size;
	size_t i;

	for (i = 0; i < TAR_BLOCK && b[i] == 0; i++)
		;
	if (i == TAR_BLOCK) {
		t->ended = 1;
		t->end = t->off - TAR_BLOCK;
		return;
	}
	if (!tar_chksum_ok(b) || (size = tar_size(b + 124)) < 0) {
		/* Not a tar at all; or a damaged header, which GNU tar skips
		 * (looking for the next one) and tarfile stops at. */
		if (t->off == TAR_BLOCK)
			t->nottar = 1;
		else
			t->verdict = say(t->why, t->whylen, "a damaged tar header at "
			    "offset %llu (GNU tar skips to the next header, tarfile "
			    "stops)", (unsigned long long)(t->off - TAR_BLOCK));
		t->stop = 1;
		return;
	}
	if (t->next_size >= 0 && type != 'x' && type != 'g' && type != 'L' &&
	    type != 'K') {
		size = t->next_size;
		t->next_size = -1;
	}
	if (type >= '1' && type <= '6' && size != 0) {
		t->verdict = say(t->why, t->whylen, "the tar entry at offset %llu is "
		    "a link, device or directory that declares %lld bytes of data "
		    "(tar skips them, tarfile reads them as headers)",
		    (unsigned long long)(t->off - TAR_BLOCK), (long long)size);
		t->stop = 1;
		return;
	}
	if (type >= '1' && type <= '6')
		size = 0;
	t->skip = ((uint64_t)size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	if (t->want != UINT64_MAX && t->want >= t->off && t->want < t->off + t->skip) {
		t->want_lo = t->off;
		t->want_hi = t->off + (uint64_t)size;
	}
	t->pax = (type == 'x' || type == 'g') ? type : 0;
	t->paxlen = 0;
	if (t->pax && (uint64_t)size > AL_TAR_MAX_PAX_BYTES) {
		t->verdict = say(t->why, t->whylen, "a tar pax header of more than "
		    "%u bytes is not read", AL_TAR_MAX_PAX_BYTES);
		t->stop = 1;
	}
	if (type == 'S' && b[482] != 0)
		t->ext = 1;
	if (t->pax && t->skip == 0)
		t->pax = 0;
}

/* The end of a pax header's data. */
static void
tar_pax_done(struct tarw *t)
{
	int64_t size = tar_pax_size(t->paxbuf, t->paxlen);

	if (t->pax == 'g' && size >= 0) {
		t->verdict = say(t->why, t->whylen, "a tar global pax header sets "
		    "every size (extractors disagree on it)");
		t->stop = 1;
	} else if (t->pax == 'x') {
		t->next_size = size;
	}
	t->pax = 0;
}

/* Feeds n bytes of the tar stream; returns < 0 on out of memory. */
static int
tar_feed(struct tarw *t, const unsigned char *p, size_t n)
{
	while (n > 0 && !t->stop) {
		size_t k;

		if (t->ended) {
			for (k = 0; k < n && p[k] == 0; k++)
				;
			if (k < n) {
				unsigned char head[TAR_BLOCK];
				size_t hl = n - k < sizeof(head) ? n - k : sizeof(head);
				uint64_t at = t->off + k;
				const char *what;

				memset(head, 0, sizeof(head));
				memcpy(head, p + k, hl);
				what = looks_like(head, hl);
				if (at % TAR_BLOCK == 0 && hl == TAR_BLOCK &&
				    tar_chksum_ok(head))
					what = "a tar archive";
				t->verdict = say(t->why, t->whylen, "%s is appended after "
				    "the tar's end (non-zero bytes at offset %llu, after "
				    "the end-of-archive block at %llu; tar --ignore-zeros, "
				    "unzip or a second extractor reads them)", what,
				    (unsigned long long)at, (unsigned long long)t->end);
				t->stop = 1;
			}
			t->off += n;
			return 0;
		}
		if (t->skip > 0) {
			k = t->skip < n ? (size_t)t->skip : n;
			if (t->pax) {
				size_t room = AL_TAR_MAX_PAX_BYTES - t->paxlen;
				size_t c = k < room ? k : room;

				if (t->paxlen + c > t->paxcap) {
					size_t cap = t->paxcap ? t->paxcap * 2 : 4096;
					unsigned char *nb;

					while (cap < t->paxlen + c)
						cap *= 2;
					if ((nb = realloc(t->paxbuf, cap)) == NULL)
						return al_err_set(AL_ENOMEM, "out of memory");
					t->paxbuf = nb;
					t->paxcap = cap;
				}
				memcpy(t->paxbuf + t->paxlen, p, c);
				t->paxlen += c;
			}
			t->skip -= k;
			t->off += k;
			p += k;
			n -= k;
			if (t->skip == 0 && t->pax)
				tar_pax_done(t);
			continue;
		}
		k = TAR_BLOCK - t->blen < n ? TAR_BLOCK - t->blen : n;
		memcpy(t->blk + t->blen, p, k);
		t->blen += k;
		t->off += k;
		p += k;
		n -= k;
		if (t->blen < TAR_BLOCK)
			continue;
		t->blen = 0;
		if (t->ext) {
			t->ext = t->blk[504] != 0;
			continue;
		}
		tar_header(t);
	}
	return 0;
}

static void
tar_init(struct tarw *t, uint64_t want, char *why, size_t whylen)
{
	memset(t, 0, sizeof(*t));
	t->next_size = -1;
	t->want = want;
	t->want_lo = t->want_hi = UINT64_MAX;
	t->why = why;
	t->whylen = whylen;
}

/* ---- the decompressed stream ---------------------------------------------------------- */

/* What a decompressed stream is fed to: the tar walk, and its first bytes,
 * to tell a tar from a compressed zip. */
struct ds {
	struct tarw tar;
	unsigned char head[TAR_BLOCK];
	size_t hlen;
	uint64_t out;
	uint64_t max_out;
	int over;
};

static int
ds_feed(struct ds *d, const unsigned char *p, size_t n)
{
	if (d->hlen < sizeof(d->head)) {
		size_t k = sizeof(d->head) - d->hlen < n ? sizeof(d->head) - d->hlen : n;

		memcpy(d->head + d->hlen, p, k);
		d->hlen += k;
	}
	d->out += n;
	if (d->out > d->max_out)
		d->over = 1;
	return tar_feed(&d->tar, p, n);
}

/* What the stream was, once read: a verdict, or 0. */
static int
ds_verdict(struct ds *d, char *why, size_t whylen)
{
	if (d->over)
		return say(why, whylen, "expands past the limits: more than %llu "
		    "bytes decompressed (an archive bomb?)",
		    (unsigned long long)d->max_out);
	if (d->hlen >= 4 && memcmp(d->head, "PK\003\004", 4) == 0)
		return say(why, whylen, "a zip inside a compressed stream: read "
		    "from its start here, by its central directory by unzip");
	if (d->tar.nottar)
		return 0;
	return d->tar.verdict;
}

/* The first byte at or after off that is not zero, or the file's size. */
static uint64_t
first_nonzero(const struct ctr_src *s, uint64_t off, unsigned char *buf)
{
	while (off < s->size) {
		size_t k = s->size - off < CTR_CHUNK ? (size_t)(s->size - off) :
		    CTR_CHUNK, j;

		if (src_read(s, off, buf, k) < 0)
			return s->size;
		for (j = 0; j < k && buf[j] == 0; j++)
			;
		if (j < k)
			return off + j;
		off += k;
	}
	return off;
}

/*
 * zlib, member by member, as gzip -d reads them, one piece of output at a
 * time: the check reads the stream whole through it, and the archive
 * reader can be given the pieces as they come (ctr_gz_*), so that the
 * stream is inflated once for both.
 */
struct ctr_gz {
	const struct ctr_src *s;
	struct ds *d;
	z_stream z;
	unsigned char *in, *out;
	uint64_t off;             /* raw bytes read so far */
	size_t have;              /* output held back by ctr_gz_open */
	unsigned members;
	int done;                 /* no more output */
	int serving;              /* a reader takes the output: its own
	                           * limits stop it, not max_out */
	int verdict;              /* 1: why holds the reason */
	char *why;
	size_t whylen;
	struct ctr_src src;       /* a copy, for ctr_gz_open's callers */
	char reason[512];         /* the verdict's, when read for a reader */
};

/* After a member's end: the next member, zeros, or something else. */
static void
gz_member_end(struct ctr_gz *g)
{
	const struct ctr_src *s = g->s;
	uint64_t at = g->off - g->z.avail_in;
	unsigned char h[TAR_BLOCK];
	size_t hl = s->size - at < sizeof(h) ? (size_t)(s->size - at) : sizeof(h);

	g->members++;
	if (hl == 0 || src_read(s, at, h, hl) < 0) {
		g->done = 1;
		return;
	}
	if (hl >= 2 && h[0] == 0x1f && h[1] == 0x8b) {
		inflateReset(&g->z);
		return;
	}
	g->done = 1;
	at = first_nonzero(s, at, g->out);
	if (at < s->size) {
		unsigned char t[TAR_BLOCK];
		size_t tl = s->size - at < sizeof(t) ? (size_t)(s->size - at) :
		    sizeof(t);

		memset(t, 0, sizeof(t));
		(void)src_read(s, at, t, tl);
		g->verdict = say(g->why, g->whylen, "%s follows the last gzip "
		    "member (%llu bytes at offset %llu, after %u member%s: gzip -d "
		    "and libarchive ignore them, unzip may read them)",
		    looks_like(t, tl), (unsigned long long)(s->size - at),
		    (unsigned long long)at, g->members, g->members == 1 ? "" :
		    "s");
	}
}

/* Inflates into out + *have until some output is there or the stream is
 * done; the output is fed to the checks. < 0: out of memory. */
static int
gz_step(struct ctr_gz *g, size_t *have)
{
	const struct ctr_src *s = g->s;
	size_t before = *have;
	int zr;

	while (!g->done && *have == before) {
		if (g->z.avail_in == 0) {
			size_t k = s->size - g->off < CTR_CHUNK ?
			    (size_t)(s->size - g->off) : CTR_CHUNK;

			if (k == 0 || src_read(s, g->off, g->in, k) < 0) {
				g->done = 1;  /* truncated: the reader says so */
				break;
			}
			g->off += k;
			g->z.next_in = g->in;
			g->z.avail_in = (uInt)k;
		}
		g->z.next_out = g->out + *have;
		g->z.avail_out = (uInt)(CTR_CHUNK - *have);
		zr = inflate(&g->z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			g->done = 1;  /* corrupt: every reader refuses it */
			break;
		}
		*have = CTR_CHUNK - g->z.avail_out;
		if (zr == Z_STREAM_END)
			gz_member_end(g);
		if (*have == CTR_CHUNK)
			break;
	}
	if (*have > before) {
		int rc = ds_feed(g->d, g->out + before, *have - before);

		if (rc < 0)
			return rc;
		/* Past the limits nothing more is inflated for the checks;
		 * a reader stops at its own (which say so in its terms). */
		if (g->d->over && !g->serving)
			g->done = 1;
	}
	return 0;
}

static int
gz_begin(struct ctr_gz *g, const struct ctr_src *s, struct ds *d, char *why,
    size_t whylen)
{
	memset(g, 0, sizeof(*g));
	g->s = s;
	g->d = d;
	g->why = why;
	g->whylen = whylen;
	g->in = malloc(CTR_CHUNK);
	g->out = malloc(CTR_CHUNK);
	if (g->in == NULL || g->out == NULL ||
	    inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g->in);
		free(g->out);
		g->in = g->out = NULL;
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	return 0;
}

static void
gz_end(struct ctr_gz *g)
{
	if (g->in != NULL)
		inflateEnd(&g->z);
	free(g->in);
	free(g->out);
	g->in = g->out = NULL;
}

/* The whole stream, read through the checks. */
static int
gzip_check(const struct ctr_src *s, struct ds *d, char *why, size_t whylen)
{
	struct ctr_gz g;
	size_t have = 0;
	int rc;

	if ((rc = gz_begin(&g, s, d, why, whylen)) < 0)
		return rc;
	while (rc == 0 && !g.done && !d->tar.stop) {
		have = 0;
		rc = gz_step(&g, &have);
	}
	gz_end(&g);
	if (rc < 0)
		return rc;
	return g.verdict ? g.verdict : ds_verdict(d, why, whylen);
}

/* ---- a gzip stream inflated once, for the checks and the reader --------------------- */

/* The polyglot rule for a file that is not a zip and whose offsets say
 * nothing of its members (a compressed stream): 1 with why, or 0. */
static int
zip_at_end(const struct ctr_src *s, char *why, size_t whylen)
{
	unsigned char h[TAR_BLOCK];
	size_t hl = s->size < sizeof(h) ? (size_t)s->size : sizeof(h);
	uint64_t eocd = 0, base = 0;
	int found = 0, cut = 0, rc;

	memset(h, 0, sizeof(h));
	if ((rc = zip_find_eocd(s, &eocd, &found, &cut)) < 0)
		return rc;
	if (!found || !zip_eocd_plausible(s, eocd, &base) ||
	    src_read(s, 0, h, hl) < 0)
		return 0;
	return say(why, whylen, "a zip archive's end record is at offset %llu, "
	    "near the end of the file (%s): unzip and zipfile read the file as "
	    "that zip (a polyglot)", (unsigned long long)eocd, looks_like(h, hl));
}

int
ctr_gz_open(struct ctr_gz **out, const struct ctr_src *src, int *is_tar)
{
	struct ctr_gz *g = calloc(1, sizeof(*g));
	struct ds *d = calloc(1, sizeof(*d));
	int rc = 0;

	*out = NULL;
	*is_tar = 0;
	if (g == NULL || d == NULL) {
		free(g);
		free(d);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	d->max_out = src->max_out;
	if ((rc = gz_begin(g, src, d, NULL, 0)) < 0) {
		free(g);
		free(d);
		return rc;
	}
	g->why = g->reason;
	g->whylen = sizeof(g->reason);
	tar_init(&d->tar, UINT64_MAX, g->reason, sizeof(g->reason));
	d->max_out = src->max_out;
	g->src = *src;
	g->s = &g->src;
	g->serving = 1;
	/* The first block decides: a tar is read through here. */
	while (rc == 0 && !g->done && g->have < TAR_BLOCK)
		rc = gz_step(g, &g->have);
	if (rc < 0) {
		ctr_gz_free(g);
		return rc;
	}
	*is_tar = g->have >= TAR_BLOCK && tar_chksum_ok(g->out);
	*out = g;
	return 0;
}

int
ctr_gz_next(struct ctr_gz *g, const unsigned char **p, size_t *n)
{
	size_t have = g->have;
	int rc = 0;

	g->have = 0;
	if (have == 0 && !g->done)
		rc = gz_step(g, &have);
	*p = g->out;
	*n = rc < 0 ? 0 : have;
	return rc;
}

uint64_t
ctr_gz_raw(const struct ctr_gz *g)
{
	return g->off;
}

int
ctr_gz_finish(struct ctr_gz *g, char *why, size_t whylen)
{
	size_t have;
	int rc = 0;

	/* What the reader did not ask for is read by the checks all the
	 * same: data after the tar's end is in it. */
	if (whylen > 0)
		why[0] = '\0';
	g->serving = 0;
	while (rc == 0 && !g->done && !g->d->tar.stop && !g->d->over) {
		have = 0;
		rc = gz_step(g, &have);
	}
	if (rc < 0)
		return rc;
	if (!g->verdict)
		g->verdict = ds_verdict(g->d, g->reason, sizeof(g->reason));
	if (g->verdict > 0) {
		snprintf(why, whylen, "%s", g->reason);
		return g->verdict;
	}
	return zip_at_end(g->s, why, whylen);
}

void
ctr_gz_free(struct ctr_gz *g)
{
	if (g == NULL)
		return;
	gz_end(g);
	free(g->d->tar.paxbuf);
	free(g->d);
	free(g);
}

/* bzip2, xz, zstd, lz4: libarchive's filters decompress the stream (all of
 * its concatenated parts, as the tools do); the tar walk reads it. */
struct raw_in {
	const struct ctr_src *s;
	uint64_t off;
	unsigned char buf[CTR_CHUNK];
};

static la_ssize_t
raw_read(struct archive *a, void *ud, const void **buf)
{
	struct raw_in *r = ud;
	size_t k = r->s->size - r->off < CTR_CHUNK ? (size_t)(r->s->size - r->off) :
	    CTR_CHUNK;

	if (k > 0 && src_read(r->s, r->off, r->buf, k) < 0) {
		archive_set_error(a, EIO, "read error");
		return -1;
	}
	r->off += k;
	*buf = r->buf;
	return (la_ssize_t)k;
}

static int
filter_check(const struct ctr_src *s, struct ds *d, char *why, size_t whylen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct raw_in *r = calloc(1, sizeof(*r));
	unsigned char *out = malloc(CTR_CHUNK);
	int rc = 0;

	if (a == NULL || r == NULL || out == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto done;
	}
	r->s = s;
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open(a, r, NULL, raw_read, NULL) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK)
		goto done;        /* the archive reader says why */
	for (;;) {
		la_ssize_t n = archive_read_data(a, out, CTR_CHUNK);

		if (n <= 0)
			break;
		if ((rc = ds_feed(d, out, (size_t)n)) < 0)
			goto done;
		if (d->over || d->tar.stop)
			break;
	}
	rc = ds_verdict(d, why, whylen);
done:
	if (a != NULL)
		archive_read_free(a);
	free(r);
	free(out);
	return rc;
}

/* A tar read from the file itself. */
static int
tar_check(const struct ctr_src *s, struct tarw *t)
{
	unsigned char *buf = malloc(CTR_CHUNK);
	uint64_t off = 0;
	int rc = 0;

	if (buf == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	while (off < s->size && !t->stop) {
		size_t k = s->size - off < CTR_CHUNK ? (size_t)(s->size - off) :
		    CTR_CHUNK;

		if (src_read(s, off, buf, k) < 0 || (rc = tar_feed(t, buf, k)) < 0)
			break;
		off += k;
	}
	free(buf);
	return rc < 0 ? rc : t->verdict;
}

/* ---- the whole ------------------------------------------------------------------------ */

int
ctr_check(const struct ctr_src *s, char *why, size_t whylen)
{
	unsigned char h[TAR_BLOCK];
	size_t hl = s->size < sizeof(h) ? (size_t)s->size : sizeof(h);
	uint64_t eocd = 0, base = 0;
	int found = 0, cut = 0, rc = 0, zip;
	const char *kind;
	struct ds *d = NULL;

	if (whylen > 0)
		why[0] = '\0';
	memset(h, 0, sizeof(h));
	if (hl < 4 || src_read(s, 0, h, hl) < 0)
		return 0;
	kind = looks_like(h, hl);
	if ((rc = zip_find_eocd(s, &eocd, &found, &cut)) < 0)
		return rc;
	zip = memcmp(h, "PK\003\004", 4) == 0 || memcmp(h, "PK\005\006", 4) == 0;
	if (zip && cut)
		return say(why, whylen, "an end record's signature in the zip's last "
		    "21 bytes, too short for a record (zipfile refuses the file, "
		    "unzip reads an earlier record)");
	if (zip)
		return found ? zip_check(s, eocd, why, whylen) :
		    say(why, whylen, "a zip without an end record in its last 64 "
		    "KiB: unzip cannot read it, a streaming reader can");
	if (found && !zip_eocd_plausible(s, eocd, &base))
		found = 0;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	tar_init(&d->tar, UINT64_MAX, why, whylen);
	d->max_out = s->max_out;
	if (h[0] == 0x1f && h[1] == 0x8b)
		rc = gzip_check(s, d, why, whylen);
	else if (memcmp(h, "BZh", 3) == 0 || memcmp(h, "\xfd" "7zXZ", 5) == 0 ||
	    memcmp(h, "\x28\xb5\x2f\xfd", 4) == 0 ||
	    memcmp(h, "\x04\x22\x4d\x18", 4) == 0)
		rc = filter_check(s, d, why, whylen);
	else if (hl == TAR_BLOCK && tar_chksum_ok(h)) {
		/* Offsets in the file are offsets in the tar: a zip stored
		 * as a member can be told from one put after it. */
		d->tar.want = found ? eocd : UINT64_MAX;
		rc = tar_check(s, &d->tar);
	}
	/* Exempt: a member that is itself a zip, whole (it starts like one,
	 * so it is opened and checked as an archive of its own). */
	if (rc == 0 && found && d->tar.want_lo == base && base != UINT64_MAX &&
	    eocd < d->tar.want_hi && src_read(s, base, h, 4) == 0 &&
	    (memcmp(h, "PK\003\004", 4) == 0 || memcmp(h, "PK\005\006", 4) == 0))
		found = 0;
	if (rc == 0 && found)
		rc = say(why, whylen, "a zip archive's end record is at offset %llu, "
		    "near the end of the file (%s): unzip and zipfile read the "
		    "file as that zip (a polyglot)", (unsigned long long)eocd,
		    kind);
	free(d->tar.paxbuf);
	free(d);
	return rc;
}
