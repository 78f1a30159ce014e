/*
 * json_text.c - text from artifacts and agents in JSON; see json_text.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "json_text.h"
#include "text.h"
#include "util.h"

int
al_text_plain(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, len;
	uint32_t cp;

	while (i < n) {
		if (u[i] >= 0x01 && u[i] < 0x80) {
			i++;
			continue;
		}
		if ((len = al_utf8_seq(u + i, n - i, &cp)) == 0 || cp == 0)
			return 0;
		i += len;
	}
	return 1;
}

/* key + "_hex" into buf (AL_JSON_KEY_MAX + the suffix and a NUL). */
static int
hex_key(char *buf, size_t size, const char *key)
{
	if (strlen(key) > AL_JSON_KEY_MAX ||
	    (size_t)snprintf(buf, size, "%s" AL_JSON_HEX_SUFFIX, key) >= size)
		return al_err_set(AL_EINVAL, "a JSON key longer than %u bytes",
		    AL_JSON_KEY_MAX);
	return 0;
}

int
al_json_set_text(json_t *obj, const char *key, const char *p, size_t n)
{
	char hkey[AL_JSON_KEY_MAX + sizeof(AL_JSON_HEX_SUFFIX)];
	struct dynbuf shown;
	size_t cap, hlen;
	char *hex = NULL;
	int rc;

	if (!json_is_object(obj))
		return al_err_set(AL_EINVAL, "text set on a JSON value that is "
		    "not an object");
	if ((rc = hex_key(hkey, sizeof(hkey), key)) < 0)
		return rc;
	if (json_object_get(obj, key) != NULL ||
	    json_object_get(obj, hkey) != NULL)
		return al_err_set(AL_EEXIST, "the JSON member %s (or %s) is "
		    "there already", key, hkey);
	if (al_text_plain(p, n)) {
		if (json_object_set_new(obj, key, json_stringn(p, n)) < 0)
			return al_err_set(AL_ENOMEM, "out of memory for JSON text");
		return 0;
	}
	/* One U+FFFD (3 bytes) at most per byte; two hex digits per byte. */
	if (al_size_mul(&cap, n, 3) < 0 || al_size_mul(&hlen, n, 2) < 0 ||
	    al_size_add(&hlen, hlen, 1) < 0)
		return AL_ELIMIT;
	dynbuf_init(&shown, cap);
	if ((rc = al_utf8_sanitize(&shown, p, n)) < 0)
		goto out;
	if ((hex = malloc(hlen)) == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory for JSON text");
		goto out;
	}
	al_hex(hex, (const unsigned char *)p, n);
	if (json_object_set_new(obj, key, json_stringn(dynbuf_str(&shown),
	    shown.len)) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory for JSON text");
		goto out;
	}
	if (json_object_set_new(obj, hkey, json_stringn(hex, hlen - 1)) < 0) {
		/* Neither, rather than the text without its bytes. */
		json_object_del(obj, key);
		rc = al_err_set(AL_ENOMEM, "out of memory for JSON text");
	}
out:
	free(hex);
	dynbuf_free(&shown);
	return rc;
}

int
al_json_set_textz(json_t *obj, const char *key, const char *s)
{
	char hkey[AL_JSON_KEY_MAX + sizeof(AL_JSON_HEX_SUFFIX)];
	int rc;

	if (s != NULL)
		return al_json_set_text(obj, key, s, strlen(s));
	if (!json_is_object(obj))
		return al_err_set(AL_EINVAL, "text set on a JSON value that is "
		    "not an object");
	if ((rc = hex_key(hkey, sizeof(hkey), key)) < 0)
		return rc;
	if (json_object_get(obj, key) != NULL ||
	    json_object_get(obj, hkey) != NULL)
		return al_err_set(AL_EEXIST, "the JSON member %s (or %s) is "
		    "there already", key, hkey);
	if (json_object_set_new(obj, key, json_null()) < 0)
		return al_err_set(AL_ENOMEM, "out of memory for JSON text");
	return 0;
}

int
al_json_text_bytes(const json_t *obj, const char *key, struct dynbuf *out)
{
	char hkey[AL_JSON_KEY_MAX + sizeof(AL_JSON_HEX_SUFFIX)];
	const json_t *v = json_object_get(obj, key), *h;
	struct dynbuf bytes, again;
	const char *x;
	size_t i, n;
	int rc;

	if (!json_is_string(v))
		return al_err_set(AL_ENOTFOUND, "no text member %s", key);
	if ((rc = hex_key(hkey, sizeof(hkey), key)) < 0)
		return rc;
	if ((h = json_object_get(obj, hkey)) == NULL)
		return dynbuf_add(out, json_string_value(v), json_string_length(v));
	x = json_string_value(h);
	n = json_string_length(h);
	if (x == NULL || n % 2 != 0)
		return al_err_set(AL_EINVAL, "%s is not hex of whole bytes", hkey);
	dynbuf_init(&bytes, n / 2);
	dynbuf_init(&again, (n / 2) * 3);
	for (i = 0; i < n && rc == 0; i += 2) {
		int hi = al_hex_digit((unsigned char)x[i]);
		int lo = al_hex_digit((unsigned char)x[i + 1]);

		/* Lowercase only, as the scheme writes it: one spelling. */
		if (hi < 0 || lo < 0 || (x[i] >= 'A' && x[i] <= 'F') ||
		    (x[i + 1] >= 'A' && x[i + 1] <= 'F'))
			rc = al_err_set(AL_EINVAL, "%s is not lowercase hex", hkey);
		else
			rc = dynbuf_addc(&bytes, (char)(hi << 4 | lo));
	}
	if (rc == 0)
		rc = al_utf8_sanitize(&again, bytes.data ? bytes.data : "",
		    bytes.len);
	if (rc == 0 && (again.len != json_string_length(v) ||
	    memcmp(dynbuf_str(&again), json_string_value(v), again.len) != 0))
		rc = al_err_set(AL_EINVAL, "%s and %s do not say the same",
		    key, hkey);
	if (rc == 0)
		rc = dynbuf_add(out, dynbuf_str(&bytes), bytes.len);
	dynbuf_free(&bytes);
	dynbuf_free(&again);
	return rc;
}

int
al_json_is_hex_sibling(const json_t *obj, const char *key)
{
	size_t n = strlen(key), sn = sizeof(AL_JSON_HEX_SUFFIX) - 1;
	char base[AL_JSON_KEY_MAX + 1];

	if (n <= sn || n - sn > AL_JSON_KEY_MAX ||
	    strcmp(key + n - sn, AL_JSON_HEX_SUFFIX) != 0)
		return 0;
	memcpy(base, key, n - sn);
	base[n - sn] = '\0';
	return json_object_get(obj, base) != NULL;
}
