/*
 * scan_read.h - reading a file the way its consumer reads it, before the
 * rules run (scan_read.c): UTF-16 transcoded to UTF-8, a lone CR seen as a
 * line end by the prefilter, and the printable strings of a binary file.
 *
 * Trust: every byte is hostile. These are pure functions over caller
 * buffers with state kept in small structs: no allocation, no recursion,
 * and every output bounded by a capacity the caller gives.
 */
#ifndef AIRLOCK_SCAN_READ_H
#define AIRLOCK_SCAN_READ_H

#include <stddef.h>
#include <stdint.h>

enum scan_utf16 {
	SCAN_UTF16_NO = 0,
	SCAN_UTF16_LE,
	SCAN_UTF16_BE,
};

/*
 * Is the file that starts with p[0..n) UTF-16? A BOM (FF FE or FE FF, not
 * followed by two NULs: that is UTF-32) says so if an ASCII character's
 * NUL follows in the first 8 KiB; without one, text whose every other
 * byte is NUL does (at least 8 code units, nearly all of them printable
 * ASCII). *bom gets the BOM's length (0 or 2).
 */
enum scan_utf16 scan_utf16_sniff(const unsigned char *p, size_t n,
    size_t *bom);

/* A UTF-16 decoder's state between chunks. */
struct scan_u16 {
	enum scan_utf16 order;
	unsigned char odd;        /* a code unit's first byte, if have_odd */
	int have_odd;
	uint32_t high;            /* a high surrogate waiting for its low */
};

/*
 * Decodes UTF-16 from in[0..n) into UTF-8 at out (room for cap bytes, at
 * least 8). Stops when out cannot take another character; *used gets the
 * input bytes consumed. Unpaired surrogates become U+FFFD, as a reader
 * that replaces does; NUL code units stay NUL bytes. With final set, a
 * dangling byte or surrogate at the end is flushed as U+FFFD. Returns the
 * bytes written.
 */
size_t scan_u16_decode(struct scan_u16 *d, const unsigned char *in, size_t n,
    size_t *used, unsigned char *out, size_t cap, int final);

/*
 * Copies p[0..n) to out, a lone CR (one not followed by LF) turned into
 * LF, for the prefilter, whose `^` holds only after LF. A CR that ends
 * the chunk is taken as lone (the prefilter only nominates; the rule's own
 * regex decides on the real bytes). Returns 1 if anything changed, else 0
 * and out is not written.
 */
int scan_lone_cr(const char *p, size_t n, char *out);

/* The longest printable string kept whole; longer ones are cut in pieces. */
#define SCAN_STR_MAX 4096u
/* The shortest string reported, in characters (as `strings -n 8`). */
#define SCAN_STR_MIN 8u

/* One run being collected: ASCII bytes, UTF-16LE at one alignment, or
 * ASCII with the NUL bytes between its characters dropped. */
struct scan_strrun {
	uint64_t start;           /* file offset of its first byte */
	uint64_t next;            /* UTF-16: the offset of the unit expected */
	size_t len;               /* characters */
	unsigned char nul_edge;   /* ASCII: NULs between it and a character */
	unsigned char gap;        /* joined: NULs dropped inside it */
	unsigned char notwide;    /* joined: not shaped as UTF-16 is */
	char s[SCAN_STR_MAX];
};

/* What a string is, as the callback is told. */
enum scan_str_kind {
	SCAN_STR_ASCII = 0,       /* as `strings -n 8` */
	SCAN_STR_WIDE = 1,        /* as `strings -e l` */
	SCAN_STR_JOINED = 2,      /* ASCII, the NULs between dropped */
};

/* Called with each string found: its file offset (of its first byte),
 * bytes, length and kind. */
typedef int (*scan_str_fn)(void *ctx, uint64_t off, const char *s, size_t n,
    int kind);

/* Ways of reading strings (flags to scan_strings_init). */
enum {
	/* Also the runs a reader that drops NUL bytes sees, as dash (sh)
	 * and bash read a script: `cu<NUL>rl` is `curl` to them. Reported
	 * only where a NUL was dropped between two printable characters,
	 * and not when every character is alone with one NUL after it: that
	 * is UTF-16's shape, reported as such. */
	SCAN_STR_DROP_NUL = 1,
	/* Only the ASCII runs that NULs between two characters start or
	 * end, and no UTF-16: for a text file read with its NULs dropped,
	 * the strings a reader that a NUL stops (C's) sees differently. */
	SCAN_STR_NUL_EDGES = 2,
};

/*
 * Printable strings of a binary file, as `strings -n 8` (ASCII: tab and
 * 0x20-0x7e) and `strings -e l` (the same characters as UTF-16LE, at
 * either alignment) find them, and as the flags above add or limit. Fed
 * chunk by chunk at the file offset off.
 */
struct scan_strings {
	struct scan_strrun a;     /* ASCII */
	struct scan_strrun w[2];  /* UTF-16LE at even and odd offsets */
	struct scan_strrun j;     /* joined: ASCII, NULs dropped */
	unsigned flags;
	unsigned char prev;       /* the byte before the chunk */
	unsigned char st;         /* what came since the last character */
	unsigned char a_held;     /* NUL_EDGES: the ASCII run a NUL ended */
	unsigned char nuls;       /* NULs since the last character (to 2) */
	uint64_t next;            /* file offset of the next byte fed */
};

void scan_strings_init(struct scan_strings *x, unsigned flags);
/* A reading that starts at file offset off, the byte before it prev (a
 * file read from its middle: what came before holds no string to report).
 * Call after scan_strings_init, before the first feed. */
void scan_strings_start_at(struct scan_strings *x, uint64_t off,
    unsigned char prev);
/* Returns 0, or the first non-zero value fn returned (then stops). */
int scan_strings_feed(struct scan_strings *x, const unsigned char *p,
    size_t n, scan_str_fn fn, void *ctx);
/* Reports the runs still open at the end of the file. */
int scan_strings_end(struct scan_strings *x, scan_str_fn fn, void *ctx);

/*
 * Is p[0..n), NUL bytes dropped, text: no control characters but tab, LF,
 * FF, CR and ESC in it (bytes above 0x7f are taken as text, as a shell
 * takes them), and some byte that is not NUL? What dash and bash run
 * as a script when a file holds NULs: they drop them.
 */
int scan_nul_text(const unsigned char *p, size_t n);

#endif
