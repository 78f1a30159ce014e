/*
 * scan_alias.h - the alias view (scan_alias.c): a file's lines read again
 * with the names it gave to watched modules, functions and commands
 * written out in full, for the rules to read.
 *
 * The rules and the atoms spell what they watch in full: `subprocess.Popen(`,
 * `os.system`, `child_process.exec`, `curl ... | sh`, `Invoke-Expression`.
 * A program may call the same thing by a name it gave it:
 *
 *   import subprocess as sp          sp.Popen(...)
 *   from os import system as run     run(...)
 *   s = os.system; e = eval          s(...); e(...)
 *   g = getattr(os, 'system')        g(...)
 *   const {exec: x} = require('child_process')    x(...)
 *   import * as cp2 from 'child_process'           cp2.exec(...)
 *   import ex "os/exec"              ex.Command(...)      (Go)
 *   m = Kernel.method(:system)       m.call(...)          (Ruby)
 *   c=curl; $c -s URL | sh           alias get='curl -s'; get URL
 *   Set-Alias x Invoke-Expression    $c = 'iex'; & $c $payload
 *
 * scan_alias_collect reads every such definition in a file (whatever its
 * language: the forms do not collide) whose target is watched: a module,
 * builtin or command whose behaviour the rules look at (the list is in
 * scan_alias.c). Definitions chain (`a = os; b = a.system`). A name given
 * several watched targets keeps up to ALIAS_ALTS of them, and a line is
 * written once per alternative. scan_alias_line writes a line with every
 * use of an alias replaced by its target: NAME( and NAME. (NAME.call( and
 * NAME.apply( as a call of the target), $NAME and ${NAME} for shell and
 * PowerShell variables, a command alias in a command's place.
 *
 * It over-approximates, like the flow stage: a name is its target on every
 * line of the file, whatever scope it was defined in. The view says what
 * the code spelled out would say; what the rules find on it is what they
 * find on the spelled-out code.
 *
 * Trust: the text is hostile. No recursion; the set is bounded
 * (ALIAS_MAX names); each line is read once per pass; a view never
 * exceeds the caller's room. Pure functions over the caller's buffers
 * apart from the set itself.
 */
#ifndef AIRLOCK_SCAN_ALIAS_H
#define AIRLOCK_SCAN_ALIAS_H

#include <stddef.h>

#define ALIAS_MAX 256        /* names kept per file */
#define ALIAS_ALTS 4         /* targets kept per name */
#define ALIAS_NAME_MAX 64    /* longer names are never aliases */
#define ALIAS_TARGET_MAX 128 /* longer targets are not kept */

struct alias_set;

/* The watched aliases the n bytes of text define; NULL only when out of
 * memory (a set with none is empty). */
struct alias_set *scan_alias_collect(const char *text, size_t n);
/* The definitions of n more bytes of text added to the set (read as if
 * the text went on after a line end); -1 only when out of memory. */
int scan_alias_read(struct alias_set *as, const char *text, size_t n);
/* The same, without skipping the lines that cannot define anything nor
 * the values that cannot be targets (for fuzz_alias, which checks that
 * skipping them changes nothing). */
int scan_alias_read_every_line(struct alias_set *as, const char *text,
    size_t n);
size_t scan_alias_count(const struct alias_set *as);
/* How many views a line needs: the most targets any one name has. */
unsigned scan_alias_alts(const struct alias_set *as);
void scan_alias_free(struct alias_set *as);

/*
 * Writes the n bytes of one line (no LF in it) into out (room for cap
 * bytes) with every use of an alias replaced by its alt-th target (its
 * last, if it has fewer). Returns the view's length, or 0 if no use was
 * replaced. A view that would not fit is cut at cap.
 */
size_t scan_alias_line(const struct alias_set *as, unsigned alt,
    const char *line, size_t n, char *out, size_t cap);

/* 1 if the lists of watched roots, builtins and commands are in strcmp
 * order, the commands in lower case (check_alias): they are searched by
 * halves; and if each word, and each command in upper case too, passes
 * the quick test made before that search. */
int scan_alias_lists_ok(void);

/* The name and target of alias i (for messages and tests). */
const char *scan_alias_name(const struct alias_set *as, size_t i);
const char *scan_alias_target(const struct alias_set *as, size_t i,
    unsigned alt);

#endif
