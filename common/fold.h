/*
 * fold.h - person names compared as people read them: the key two names
 * share when a reader would take them for the same name. It is Unicode's
 * NFKC_Casefold, trimmed and with inner white space runs made one space,
 * computed by a small table over a documented safe set of code points
 * (there is no ICU here and glibc has no NFKC); a name with any other code
 * point is refused, never guessed at (fail closed).
 *
 * The safe set, and what each part becomes:
 *   ASCII letters and digits, and . _ - @ ' +     letters to lower case
 *   ASCII space, tab, CR, LF; U+00A0, U+2000..U+200A, U+202F, U+205F,
 *   U+3000 (compatibility spaces)                  white space
 *   U+FF01..U+FF5E (fullwidth forms)               their ASCII, then as ASCII
 *   Latin-1 letters U+00C0..U+00FF (not x or /)    lower case; U+00DF -> "ss"
 *   U+00AA, U+00BA, U+00B2, U+00B3, U+00B9         a, o, 2, 3, 1 (NFKC)
 *   Latin Extended-A U+0100..U+017F                lower case; U+0132/0133
 *                                                  -> "ij", U+017F -> "s",
 *                                                  U+0178 -> U+00FF
 * Refused: U+0130 (its folding adds a combining dot), U+013F, U+0140 and
 * U+0149 (NFKC makes them two characters outside the set), every
 * combining mark (a precomposed letter is the only spelling accepted, so
 * no composition is needed), control, format and invisible characters,
 * and everything else.
 *
 * Trust: the input is hostile (it comes from requests); (pointer, length),
 * strict UTF-8 (no overlong forms, no surrogates), bounded output.
 */
#ifndef AIRLOCK_FOLD_H
#define AIRLOCK_FOLD_H

#include <stddef.h>

/* The longest folded key, in bytes (a key longer is refused). */
#define AL_FOLD_MAX 256

/*
 * The folded key of the n bytes at in, NUL-terminated, into out (cap
 * bytes, at least AL_FOLD_MAX + 1); its length, or AL_EINVAL (with a
 * message naming the code point) when the name is empty after trimming,
 * not UTF-8, too long, or has a code point outside the safe set.
 * *start and *len (if not NULL) give the name without the white space
 * around it, in the input's own spelling (what is shown).
 */
int al_name_fold(char *out, size_t cap, const char *in, size_t n,
    size_t *start, size_t *len);

#endif
