/*
 * al_limits.h - every limit airlock enforces, in one place, each with its reason.
 *
 * Trust: compile-time constants; nothing here reads input. A limit that an
 * artifact breaches makes that content `unscannable` (fail closed), never
 * silently skipped or truncated into a clean verdict.
 */
#ifndef AIRLOCK_AL_LIMITS_H
#define AIRLOCK_AL_LIMITS_H

/* Bytes read from a file per scan step. Streaming keeps memory flat whatever
 * the file size; 1 MiB amortises the read() and Hyperscan call overhead. */
#define AL_SCAN_CHUNK (1u << 20)

/* Widest window, each side of a Hyperscan hit, in which PCRE2 confirms the
 * match and takes its captures. Bounds the work per hit and the bytes kept
 * between chunks; rule matches longer than this are not supported. */
#define AL_SCAN_WINDOW 4096u

/* The second stage (scanners/child/scan_flow.h) follows data through the
 * text of a file it keeps whole: up to this many bytes (source files are
 * far smaller; a larger one is decided by lines, a source within
 * FLOW_NEAR lines before a sink, and says so). Per worker, so memory
 * stays flat. */
#define AL_FLOW_TEXT_MAX (2u << 20)

/* Atoms (matches of atom rules) kept per file. Past it the file is
 * unscannable: a flood of atoms could otherwise push the one that
 * matters out of the window. */
#define AL_FLOW_MAX_ATOMS 65536u

/* Bytes inspected at the start of a file to decide whether it is binary
 * (a NUL byte there means binary, as git decides). */
#define AL_BINARY_SNIFF 8000u

/* Largest file scanned. Streaming could read more, but a file beyond this is
 * more likely padding to exhaust the gate than source; it is unscannable. */
#define AL_MAX_FILE_BYTES (4ULL << 30)

/* Findings kept per file. A file that floods the report could bury the one
 * finding that matters, so passing the cap makes the file unscannable. */
#define AL_MAX_FINDINGS_PER_FILE 1000u

/* Hyperscan hits queued for confirmation per chunk before they are confirmed
 * early; a bound on memory for pathological inputs (a hit every byte). */
#define AL_MAX_PENDING_HITS 65536u

/* Directory depth followed by `airlock scan`. Deeper trees are reported as
 * unscannable rather than recursed into (stack and fd use are bounded). */
#define AL_MAX_DIR_DEPTH 128u

/* Longest path handled; longer ones are reported as unscannable. */
#define AL_MAX_PATH 4096u

/* Bytes of a line shown in an excerpt, around the match. */
#define AL_EXCERPT_BYTES 160u

/* PCRE2 backtracking bound per confirmation; a pattern that exceeds it on
 * hostile input yields an `unscannable` finding, never a silent miss. */
#define AL_PCRE2_MATCH_LIMIT 200000u
#define AL_PCRE2_DEPTH_LIMIT 10000u

/* Rule files: size of one file and number of rules in a set. Rules are
 * written by the operator, but a typo should not exhaust memory. */
#define AL_MAX_RULE_FILE_BYTES (8u << 20)
#define AL_MAX_RULES 4096u
#define AL_MAX_RULE_LIST 256u /* entries in paths/keywords/allow lists */
#define AL_MAX_RULE_ID 64u

/* Shortest literal factor that stands for a pattern in the Hyperscan
 * database; with shorter factors the pattern itself goes in (prefilter). */
#define AL_MIN_FACTOR 4u

/* Shortest literal (bytes) a pattern must contain unless it has keywords. */
#define AL_MIN_PATTERN_LITERAL 2u

/* Encoded blobs (base64, hex, \xHH escapes) are decoded and scanned
 * again when they decode to text. Shorter runs are too often identifiers or
 * hashes; a blob is decoded in pieces of at most AL_DECODE_MAX_BLOB encoded
 * bytes; decoding nests at most AL_DECODE_DEPTH deep (base64 inside hex);
 * past AL_DECODE_MAX_FILE decoded bytes a file is unscannable. */
#define AL_DECODE_MIN_CHARS 32u
#define AL_DECODE_MAX_BLOB 65536u
#define AL_DECODE_DEPTH 2u
#define AL_DECODE_MAX_FILE (8u << 20)
/* An encoded blob this long that decodes to text is itself worth a look. */
#define AL_ENCODED_TEXT_REPORT 256u

/* The scan child's rlimits: address space for the engine, a chunk and the
 * parsers' working memory; CPU seconds for one artifact, after which the
 * kernel ends the child and the artifact is unscannable. */
#define AL_SBX_ADDRESS_SPACE (1ULL << 30)
#define AL_SBX_CPU_SECONDS 60u

/* Wall-clock seconds the scan child gets for one file (and to start). A
 * file that takes longer is unscannable; the child is killed. */
#define AL_CHILD_TIMEOUT 120

/* Files queued in a scan child ahead of the one it is on: enough to keep
 * it busy while the parent reads replies; each holds one open fd. */
#define AL_CHILD_INFLIGHT 8u

/* Archives: entries read, bytes they expand to in all, and the expansion
 * ratio (checked once more than AL_ARCHIVE_RATIO_FLOOR bytes came out) —
 * a zip bomb is unscannable long before it fills memory or time. */
#define AL_ARCHIVE_MAX_ENTRIES 100000u
#define AL_ARCHIVE_MAX_BYTES (4ULL << 30)
#define AL_ARCHIVE_MAX_RATIO 200u
#define AL_ARCHIVE_RATIO_FLOOR (16u << 20)

/* Patches and git bundles are parsed whole in memory (libgit2 needs the
 * diff as one buffer; a pack's objects refer to each other): the largest
 * read, which the child's address space must hold several times over. */
#define AL_PATCH_MAX_BYTES (256ULL << 20)
#define AL_BUNDLE_MAX_BYTES (256ULL << 20)

/* Files changed by one diff, and messages in one mailbox: more is an
 * attempt to exhaust the gate, not a change a person could review. */
#define AL_PATCH_MAX_FILES 100000u
#define AL_MBOX_MAX_MESSAGES 10000u
/* Symbolic links one diff creates or points again: each is resolved
 * through the others (at most AL_LINK_MAX_HOPS of them, as Linux stops
 * at 40), a quadratic walk; more links than this is unscannable. */
#define AL_PATCH_MAX_LINKS 1024u
#define AL_LINK_MAX_HOPS 40u

/* A mail's format=flowed lines inside a base64 or quoted-printable body
 * are joined by copying the line so far again for each piece (git does
 * so): past this many times the mail's size in copies the mail is
 * unscannable rather than quadratic. */
#define AL_MAIL_WORK_FACTOR 8u

/* Git bundles: objects in the pack, the bytes they inflate to in all (a
 * delta chain can make small packs huge), delta chain depth (git's own
 * default stops at 50; hostile chains recurse), and refs and
 * prerequisites in the header. */
#define AL_BUNDLE_MAX_OBJECTS 2000000u
#define AL_BUNDLE_MAX_INFLATED (512ULL << 20)
#define AL_BUNDLE_MAX_DELTA_DEPTH 4096u
#define AL_BUNDLE_MAX_REFS 100000u

/* The bytes of text members kept for review (`airlock diff` of an archive
 * or a bundle): the scan child sends a text member it read whole up to
 * the first limit, and at most the second of them per artifact; what is
 * past them is listed but its content is not kept. A reviewer reads text
 * of this size; more would make every scan's reply, and the store, grow
 * with the artifact. */
#define AL_MEMBER_CONTENT_MAX (1u << 20)
#define AL_ARTIFACT_CONTENT_MAX (16u << 20)

/* Archives inside archives are opened up to this depth (the outer archive
 * is depth 1); deeper ones are unscannable (nested bombs). */
#define AL_ARCHIVE_MAX_DEPTH 4u

/* Archive structure (scan_container.c): a zip's central directory is read
 * whole to check it against the local headers (100,000 entries with long
 * names fit); a pax header's records are kept to find its size=; an
 * archive inside an archive is held in memory to be checked and read with
 * seeks as its extractor reads it (three levels of it fit the child's
 * address space beside the engine); larger ones are unscannable. */
#define AL_ZIP_MAX_CD_BYTES (64u << 20)
#define AL_TAR_MAX_PAX_BYTES (1u << 20)
#define AL_ARCHIVE_NESTED_MAX_BYTES (64u << 20)

/* airlock pull's unpacking child (scanners/child/extract_child.c) reads the
 * archive with the archive limits above (entries, bytes, ratio, path) and
 * unpacks only the top level. Its CPU seconds: unpacking the largest
 * archive allowed, with room; no file it writes may pass the archive's
 * byte limit (RLIMIT_FSIZE); a few fds (the root, the report pipe, the
 * file being written, the one directory being opened). Its report (one
 * record per entry, a path each) is read by the client up to
 * AL_PULL_REPORT_BYTES: past that the child is lying or the archive is not
 * one a person reviewed. */
#define AL_PULL_CPU_SECONDS 600u
#define AL_PULL_NOFILE 16u
#define AL_PULL_REPORT_BYTES (64u << 20)

/* Worker threads for `airlock scan`. */
#define AL_MAX_THREADS 64u

/*
 * The fuzz targets (make fuzz-build defines the conventional
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) expand at most 64 KiB out of an
 * archive (a nested archive at most 32 KiB, the ratio checked from 16 KiB)
 * and decode at most 64 KiB of encoded text per file, so that an input the
 * fuzzer grows into a compression bomb costs a fraction of a millisecond,
 * not a second: the checks at these limits are the same code, reached
 * sooner (at 256 KiB, fuzz_archive ran at about 900 inputs a second).
 * Nothing else may differ between the fuzzed code and the shipped one.
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#undef AL_ARCHIVE_MAX_BYTES
#define AL_ARCHIVE_MAX_BYTES (64ULL << 10)
#undef AL_ARCHIVE_RATIO_FLOOR
#define AL_ARCHIVE_RATIO_FLOOR (16u << 10)
#undef AL_ARCHIVE_NESTED_MAX_BYTES
#define AL_ARCHIVE_NESTED_MAX_BYTES (32u << 10)
#undef AL_DECODE_MAX_FILE
#define AL_DECODE_MAX_FILE (64u << 10)
#endif

/*
 * 1 only in the build `make bench` makes to measure the first stage alone
 * (build-bench/, -DAL_FIRST_STAGE_ONLY=1): no conditions decided, no
 * normalised, alias or XOR views. The shipped binary cannot turn them off.
 */
#ifndef AL_FIRST_STAGE_ONLY
#define AL_FIRST_STAGE_ONLY 0
#endif

#endif
