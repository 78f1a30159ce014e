/*
 * fuzz_proto.c - fuzz target for the frame decoder: arbitrary bytes, as a
 * compromised scan child could send them, are parsed frame by frame, checked
 * against the parent's state table, and FINDING payloads decoded. Nothing
 * may crash, and a decoded finding must satisfy the checks it was accepted
 * under.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

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
	enum proto_state st = PROTO_ST_START;
	size_t off = 0;

	while (off < size) {
		const unsigned char *p;
		struct proto_finding f;
		size_t plen;
		int type;

		if (proto_parse(data, size, &off, &type, &p, &plen) < 0)
			break;
		if (plen > PROTO_MAX_PAYLOAD)
			abort();
		if (proto_accept(&st, type) < 0)
			break;
		if (type == PROTO_FINDING &&
		    proto_decode_finding(p, plen, &f) == 0) {
			if (f.severity > 4 || strlen(f.fingerprint) != 32)
				abort();
			proto_finding_free(&f);
		}
	}
	return 0;
}
