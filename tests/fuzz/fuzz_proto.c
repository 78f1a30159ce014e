/*
 * fuzz_proto.c - fuzz target for the frame decoder: arbitrary bytes, as a
 * compromised scan child could send them, are parsed frame by frame, checked
 * against the parent's state table, and every payload a child sends
 * (HELLO, ITEM, FINDING, MEMBER, MEMBER_DATA, ITEM_END) decoded. Nothing may crash, and
 * a decoded message must satisfy the checks it was accepted under.
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

/* The other messages a child sends, decoded as the parent decodes them. */
static void
fuzz_other(int type, const unsigned char *p, size_t plen)
{
	struct proto_hello h;
	struct proto_member m;
	struct proto_item_end e;
	struct proto_member_data md;
	char *item;

	if (type == PROTO_HELLO && proto_decode_hello(p, plen, &h) == 0)
		proto_hello_free(&h);
	if (type == PROTO_ITEM && proto_decode_item(p, plen, &item) == 0)
		free(item);
	if (type == PROTO_MEMBER && proto_decode_member(p, plen, &m) == 0) {
		if (m.mode > 0177777 || strlen(m.type) > 255 ||
		    (m.sha256[0] != '\0' && strlen(m.sha256) != 64))
			abort();
		proto_member_free(&m);
	}
	/* A piece lies within its payload and is never empty or oversize. */
	if (type == PROTO_MEMBER_DATA &&
	    proto_decode_member_data(p, plen, &md) == 0 &&
	    (md.len == 0 || md.len > PROTO_MEMBER_CHUNK || md.data < p ||
	    md.data + md.len != p + plen || md.offset + md.len < md.offset))
		abort();
	if (type == PROTO_ITEM_END && proto_decode_item_end(p, plen, &e) == 0) {
		if ((e.digest[0] != '\0' && strlen(e.digest) != 64) ||
		    e.kind < AL_KIND_FILE || e.kind > AL_KIND_BUNDLE)
			abort();
		proto_item_end_free(&e);
	}
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
		fuzz_other(type, p, plen);
	}
	return 0;
}
