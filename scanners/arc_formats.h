/*
 * arc_formats.h - the archive formats airlock reads, the same for the scan
 * and for extraction (pull), so that both see the same entries.
 *
 * Every format libarchive reads except mtree. An mtree file is a manifest
 * (names and attributes of files that live elsewhere), not an archive of
 * contents, and its bidder accepts ordinary text: a gzipped JSON file read
 * as mtree becomes one "entry" per line, where its consumer (gunzip) sees
 * one JSON document. Such text is read as the single file it is (raw).
 */
#ifndef AIRLOCK_ARC_FORMATS_H
#define AIRLOCK_ARC_FORMATS_H

#include <archive.h>

static inline void
al_archive_formats(struct archive *a)
{
	archive_read_support_filter_all(a);
	archive_read_support_format_7zip(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_cab(a);
	archive_read_support_format_cpio(a);
	archive_read_support_format_empty(a);
	archive_read_support_format_iso9660(a);
	archive_read_support_format_lha(a);
	archive_read_support_format_rar(a);
	archive_read_support_format_rar5(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_warc(a);
	archive_read_support_format_xar(a);
	archive_read_support_format_zip(a);
	/* A compressed single file (x.gz): raw bids last, after every real
	 * format. */
	archive_read_support_format_raw(a);
}

#endif
