/*
 * scan_type.c - libmagic types and name checks; see scan_type.h.
 *
 * Trust: the bytes are hostile. libmagic is given at most the first chunk of
 * a file, with compressed-content and ELF-section parsing turned off (the
 * former decompresses, the latter seeks), and only inside the scan child.
 */
#include <magic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "scan_type.h"

struct scan_typer {
	magic_t m;
};

int
scan_typer_new(struct scan_typer **out)
{
	struct scan_typer *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (t == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	t->m = magic_open(MAGIC_MIME_TYPE | MAGIC_NO_CHECK_COMPRESS |
	    MAGIC_NO_CHECK_ELF | MAGIC_NO_CHECK_ENCODING | MAGIC_ERROR);
	if (t->m == NULL || magic_load(t->m, NULL) != 0) {
		int rc = al_err_set(AL_EIO, "libmagic: %s", t->m ?
		    magic_error(t->m) : "cannot start");

		scan_typer_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void
scan_typer_free(struct scan_typer *t)
{
	if (t == NULL)
		return;
	if (t->m != NULL)
		magic_close(t->m);
	free(t);
}

const char *
scan_typer_mime(struct scan_typer *t, const void *buf, size_t n)
{
	const char *mime = magic_buffer(t->m, buf, n);

	return mime != NULL ? mime : "";
}

int
scan_type_is_executable(const char *mime)
{
	static const char *const exe[] = {
		"application/x-executable", "application/x-pie-executable",
		"application/x-sharedlib", "application/x-mach-binary",
		"application/vnd.microsoft.portable-executable",
		"application/x-dosexec", "application/wasm",
		"application/x-bytecode.python", "application/x-java-applet",
		"application/x-object",
	};
	size_t i;

	for (i = 0; i < sizeof(exe) / sizeof(exe[0]); i++)
		if (strcmp(mime, exe[i]) == 0)
			return 1;
	return 0;
}

int
scan_name_promises_data(const char *relpath)
{
	static const char *const exts[] = {
		"txt", "md", "rst", "json", "yml", "yaml", "toml", "ini", "cfg",
		"csv", "xml", "html", "htm", "css", "svg", "png", "jpg", "jpeg",
		"gif", "webp", "ico", "pdf", "log", "lock",
	};
	const char *slash = strrchr(relpath, '/'), *dot;
	size_t i;

	dot = strrchr(slash ? slash + 1 : relpath, '.');
	if (dot == NULL)
		return 0;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (strcasecmp(dot + 1, exts[i]) == 0)
			return 1;
	return 0;
}
