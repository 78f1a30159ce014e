/*
 * fuzz_mbox.c - fuzz target for the reader of format-patch mailboxes; see
 * fuzz_whole.h. Besides the whole artifact, the input is handed to the
 * mail decoder (scan_mail.c, git mailinfo's reading) as one mail in a
 * buffer of exactly its size, and what it returns must be bounded by the
 * input: decoding never grows text more than twice (ISO-8859-1 to UTF-8),
 * the header is inside the mail, a reason is a string.
 */
#define FUZZ_NAME "fuzz_mbox"
#define FUZZ_KIND AL_KIND_MBOX
#define LLVMFuzzerTestOneInput fuzz_whole_test_one
#include "fuzz_whole.h"
#undef LLVMFuzzerTestOneInput

#include "scan_mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_mail(const uint8_t *data, size_t size)
{
	struct mail m;
	char *copy = malloc(size ? size : 1);
	size_t bound = 2 * size + 64;
	int k;

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	if (scan_mail_read(&m, copy, size) < 0)
		abort();
	if (m.hdr_end > size || m.prose.len > bound ||
	    memchr(m.why, '\0', sizeof(m.why)) == NULL)
		abort();
	for (k = 0; k < 2; k++) {
		size_t i;

		if (m.mode[k].patch.len > bound)
			abort();
		for (i = 0; i < m.mode[k].nhv; i++)
			if (m.mode[k].hv[i].off + m.mode[k].hv[i].len >
			    m.mode[k].htext.len || m.mode[k].hv[i].line > size + 1)
				abort();
	}
	scan_mail_free(&m);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_whole_test_one(data, size);
	fuzz_mail(data, size);
	return 0;
}
