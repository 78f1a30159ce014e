/*
 * json_text.h - text that came from an artifact or an agent, put into JSON
 * and taken back out, so that every document is valid JSON and no byte is
 * lost (docs/api.md, "Text that is not UTF-8"). Every place that writes
 * such text into JSON (the API, events, `airlock scan --json` and SARIF,
 * `airlock verify --json`) goes through al_json_set_text; every client that
 * prints it reads it back with al_json_text_bytes.
 *
 * The scheme. A field whose bytes are valid UTF-8 and hold no NUL is a
 * plain JSON string. Any other field is a JSON string in which each byte
 * that does not begin a valid UTF-8 sequence (an overlong form, a
 * surrogate, a value past U+10FFFF, a truncated sequence, a stray
 * continuation byte) and each NUL is replaced by U+FFFD, one for one, and
 * a sibling member "<key>_hex" holds the field's bytes in lowercase hex.
 * A consumer that needs the exact bytes reads "<key>_hex" when it is
 * there, the string when it is not. NUL counts as not plain text because
 * C consumers (ours included) read strings up to it.
 *
 * Trust: the bytes are hostile; lengths are explicit and nothing relies
 * on a terminating NUL. A key and its "_hex" sibling are never written
 * over: setting either when one is in the object already is AL_EEXIST, so
 * that text can never replace another field (a caller that builds a map
 * with keys it did not choose, the agent's labels, refuses keys ending in
 * "_hex" where they come in). Failures are errors to report, never a
 * field left out: a caller answers 500 rather than a document without it.
 */
#ifndef AIRLOCK_JSON_TEXT_H
#define AIRLOCK_JSON_TEXT_H

#include <stddef.h>

#include <jansson.h>

#include "dynbuf.h"

#define AL_JSON_HEX_SUFFIX "_hex"
#define AL_JSON_KEY_MAX 128       /* keys we name, and label keys (64) */

/* 1 when the n bytes at p are valid UTF-8 without NUL (a plain string). */
int al_text_plain(const char *p, size_t n);

/*
 * Sets obj[key] to the n bytes at p by the scheme: a plain string, or the
 * replaced string and obj[key_hex]. AL_EEXIST when key or key_hex is in
 * obj already, AL_EINVAL for a key longer than AL_JSON_KEY_MAX, AL_ENOMEM
 * or AL_ELIMIT when memory fails (obj then holds neither).
 */
int al_json_set_text(json_t *obj, const char *key, const char *p, size_t n);
/* The same for a C string; NULL sets JSON null (and no key_hex). */
int al_json_set_textz(json_t *obj, const char *key, const char *s);

/*
 * The bytes of the text field obj[key], appended to out: those of
 * obj[key_hex] when it is there, else the string's. AL_ENOTFOUND when
 * obj[key] is not a string; AL_EINVAL when key_hex is not lowercase hex of
 * whole bytes or does not say the same as the string (its bytes, replaced
 * by the scheme, must be the string): a document that contradicts itself
 * is not believed either way.
 */
int al_json_text_bytes(const json_t *obj, const char *key,
    struct dynbuf *out);

/* 1 when key is "<base>_hex" and obj has a member base: a sibling of the
 * scheme, shown with its field rather than as a field of its own. */
int al_json_is_hex_sibling(const json_t *obj, const char *key);

#endif
