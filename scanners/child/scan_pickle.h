/*
 * scan_pickle.h - a streaming walk over the opcodes of Python pickles
 * (scan_pickle.c) that names the callables a load would resolve (GLOBAL,
 * STACK_GLOBAL, INST, EXT*) and says which of them it would call (REDUCE,
 * OBJ, INST, NEWOBJ, NEWOBJ_EX, BUILD on the global itself). It never
 * unpickles anything.
 *
 * Trust: every byte is hostile; runs only in the scan child. One
 * allocation at pickle_walk_new (under 256 KiB), none per opcode or
 * reset; the input may come in chunks of any size, an argument may span
 * chunks; at
 * most 255 bytes of a string argument are kept, the rest is counted and
 * skipped.
 */
#ifndef AIRLOCK_SCAN_PICKLE_H
#define AIRLOCK_SCAN_PICKLE_H

#include <stddef.h>
#include <stdint.h>

enum pickle_class {
	PICKLE_SAFE,
	PICKLE_UNKNOWN,
	PICKLE_DANGEROUS,
};

#define PICKLE_GLOBALS_MAX 32

/* One callable a load would resolve: module and name as given (at most
 * 127 bytes each, a NUL byte shown as '?', Python 2 modules mapped), "?"
 * where the walk could not tell; offset of the first opcode naming it;
 * called if the load would call it. */
struct pickle_global {
	char module[128];
	char name[128];
	uint64_t offset;
	int called;
	enum pickle_class cls;
};

struct pickle_walk;

/* NULL when out of memory; free with pickle_walk_free (NULL-safe). */
struct pickle_walk *pickle_walk_new(void);
void pickle_walk_free(struct pickle_walk *);
/* Makes w as pickle_walk_new made it, for the next file (clears a few
 * hundred bytes: the walk is made once per scan worker, not per file). */
void pickle_walk_reset(struct pickle_walk *w);

/*
 * Walks p[0..n). Returns 0 to keep feeding, 1 once the walk has ended: an
 * opcode or argument a load would refuse, or bytes after a STOP that do
 * not start another pickle. What was seen before stays readable.
 */
int pickle_walk_feed(struct pickle_walk *, const unsigned char *p, size_t n);
/* At the end of the file (a pickle cut short still ran what it read). */
void pickle_walk_end(struct pickle_walk *);

/* The highest protocol a PROTO opcode gave, or -1. */
int pickle_walk_proto(const struct pickle_walk *);
/* Complete pickles (STOP) read. */
unsigned long pickle_walk_stops(const struct pickle_walk *);
/* The distinct globals seen, at most PICKLE_GLOBALS_MAX, in order of first
 * appearance; *more counts the namings that did not fit. Borrowed. */
const struct pickle_global *pickle_walk_globals(const struct pickle_walk *,
    size_t *n, size_t *more);

/* How dangerous calling module.name is (Python 2 modules mapped first). */
enum pickle_class pickle_global_class(const char *module, const char *name);

#endif
