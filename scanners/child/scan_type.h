/*
 * scan_type.h - what a file really is (libmagic), against what its name
 * says. Runs in the scan child; the magic database is loaded before the
 * sandbox closes.
 */
#ifndef AIRLOCK_SCAN_TYPE_H
#define AIRLOCK_SCAN_TYPE_H

#include <stddef.h>

struct scan_typer;

/* Loads the magic database (file system access: before the sandbox). */
int scan_typer_new(struct scan_typer **out);
void scan_typer_free(struct scan_typer *t);

/* The MIME type of the first bytes of a file ("" if unknown); borrowed,
 * valid until the next call. */
const char *scan_typer_mime(struct scan_typer *t, const void *buf, size_t n);

/* 1 for machine code or bytecode a reviewer cannot read: ELF, PE, Mach-O,
 * WebAssembly, Python bytecode, Java classes. */
int scan_type_is_executable(const char *mime);

/* 1 when the name promises text, a document or an image (README.txt,
 * notes.md, logo.png): a binary or an archive there is disguised. */
int scan_name_promises_data(const char *relpath);

#endif
