/*
 * fuzz_extract.c - fuzz target for the report of airlock pull's unpacking
 * child, which the client decodes (extract_proto.c): the child parsed a
 * hostile archive and may have been taken over, so its records are
 * arbitrary bytes. They are decoded record by record as the client does;
 * nothing may crash or leak, and a decoded record must satisfy the checks
 * it was accepted under (a known type, no setuid bits, bounded lengths,
 * a link target only on links, a consumed length within what was left).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "extract_proto.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		struct extract_rec r;
		size_t used = 0;

		memset(&r, 0, sizeof(r));
		if (extract_proto_decode(&r, data + off, size - off, &used) < 0)
			break;
		if (used == 0 || used > size - off)
			abort();
		if (!r.end) {
			const struct extract_entry *e = &r.entry;

			if ((e->type != EXTRACT_FILE && e->type != EXTRACT_DIR &&
			    e->type != EXTRACT_LINK) || (e->mode & 07000) != 0 ||
			    e->path == NULL || strlen(e->path) > AL_MAX_PATH ||
			    (e->link != NULL) != (e->type == EXTRACT_LINK))
				abort();
			extract_entry_clear(&r.entry);
		} else if (strlen(r.msg) > EXTRACT_MSG_MAX) {
			abort();
		}
		off += used;
		if (r.end)
			break;
	}
	return 0;
}
