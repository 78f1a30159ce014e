/*
 * extract_child.h - airlock pull's unpacking child: one archive's top level,
 * written beneath one directory fd, in a sandbox.
 *
 * Trust: the archive is hostile (released bytes, approved by people, but
 * their consumer gets the reading the scan child gave them); this runs only
 * in a child forked by extract_archive_fd (scanners/parent/extract.c).
 */
#ifndef AIRLOCK_EXTRACT_CHILD_H
#define AIRLOCK_EXTRACT_CHILD_H

struct extract_child_args {
	int archive_fd;           /* the archive's bytes: a regular file or memfd */
	int root_fd;              /* a fresh, empty directory to unpack into */
	int report_fd;            /* the write end of the report pipe */
	const char *name;         /* the artifact's name (a compressed single
	                           * file is written as it, less its suffix) */
	unsigned umask;           /* the client's umask, applied to every mode */
	const char *fault;        /* test hook: "" or a fault (extract_child.c) */
};

/*
 * Maps the archive, enters the sandbox (sbx_enter_extract), unpacks and
 * reports each entry written (extract_proto.h), then an end record, and
 * exits 0; exits with a proto_exit code if the sandbox cannot be entered.
 * Never returns.
 */
_Noreturn void extract_child_main(const struct extract_child_args *args);

#endif
