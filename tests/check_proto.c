/*
 * check_proto.c - the frames between scan child and gate: round trips over a
 * real socketpair, and every way a compromised child could lie: oversized
 * length (refused before allocation), truncated header or payload, unknown
 * type, reserved bits, frames out of order, malformed or padded payloads.
 */
#include <sys/socket.h>

#include "test_util.h"

#include "proto.h"

#define FP "0123456789abcdef0123456789abcdef"

static int sv[2];

static void
setup(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void
teardown(void)
{
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
}

START_TEST(finding_round_trip)
{
	struct dynbuf b, in;
	struct proto_finding f;
	int type;

	dynbuf_init(&b, PROTO_MAX_PAYLOAD);
	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	ck_assert_int_eq(proto_encode_finding(&b, "github-token", "a.py", 4, 12, 7,
	    "token = ghp_*****", FP), 0);
	ck_assert_int_eq(proto_write(sv[1], PROTO_FINDING, b.data, b.len), 0);
	ck_assert_int_eq(proto_read(sv[0], &type, &in), 0);
	ck_assert_int_eq(type, PROTO_FINDING);
	ck_assert_int_eq(proto_decode_finding((unsigned char *)in.data, in.len,
	    &f), 0);
	ck_assert_str_eq(f.rule, "github-token");
	ck_assert_str_eq(f.path, "a.py");
	ck_assert_uint_eq(f.severity, 4);
	ck_assert_uint_eq(f.line, 12);
	ck_assert_uint_eq(f.column, 7);
	ck_assert_str_eq(f.excerpt, "token = ghp_*****");
	ck_assert_str_eq(f.fingerprint, FP);
	proto_finding_free(&f);
	/* End of stream between frames is distinct from a truncated frame. */
	close(sv[1]);
	sv[1] = -1;
	ck_assert_int_eq(proto_read(sv[0], &type, &in), AL_ENOTFOUND);
	dynbuf_free(&b);
	dynbuf_free(&in);
}
END_TEST

/* Writes raw bytes as a lying child would. */
static void
raw(const void *p, size_t n)
{
	ck_assert_int_eq(write(sv[1], p, n), (ssize_t)n);
}

START_TEST(oversized_frame_refused_before_allocation)
{
	/* 4 GiB - 1 announced: refused from the header alone. */
	static const unsigned char h[8] = {0xff, 0xff, 0xff, 0xff, 0, 3, 0, 0};
	struct dynbuf in;
	int type;

	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	raw(h, sizeof(h));
	ck_assert_int_eq(proto_read(sv[0], &type, &in), AL_ELIMIT);
	ck_assert_ptr_null(in.data); /* nothing was allocated */
	dynbuf_free(&in);
}
END_TEST

START_TEST(truncated_frames)
{
	static const unsigned char h[8] = {0, 0, 0, 100, 0, 3, 0, 0};
	struct dynbuf in;
	int type;

	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	raw(h, sizeof(h));
	raw("short", 5);
	close(sv[1]);
	sv[1] = -1;
	ck_assert_int_eq(proto_read(sv[0], &type, &in), AL_EIO);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "truncated FINDING frame"));
	dynbuf_free(&in);
}
END_TEST

START_TEST(truncated_header)
{
	struct dynbuf in;
	int type;

	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	raw("\0\0\0", 3);
	close(sv[1]);
	sv[1] = -1;
	ck_assert_int_eq(proto_read(sv[0], &type, &in), AL_EIO);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "truncated frame header"));
	dynbuf_free(&in);
}
END_TEST

START_TEST(unknown_type_and_reserved_bits)
{
	static const unsigned char t[8] = {0, 0, 0, 0, 0, 99, 0, 0};
	static const unsigned char r[8] = {0, 0, 0, 0, 0, 1, 0, 1};
	struct dynbuf in;
	int type;

	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	raw(t, sizeof(t));
	ck_assert_int_eq(proto_read(sv[0], &type, &in), AL_EINVAL);
	raw(r, sizeof(r));
	ck_assert_int_eq(proto_read(sv[0], &type, &in), AL_EINVAL);
	dynbuf_free(&in);
}
END_TEST

START_TEST(state_table)
{
	enum proto_state st = PROTO_ST_START;

	/* A finding before HELLO, or outside an item, is refused. */
	ck_assert_int_eq(proto_accept(&st, PROTO_FINDING), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_HELLO), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_FINDING), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_HELLO), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_FINDING), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_FINDING), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_DONE), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM_END), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_DONE), 0);
	ck_assert_int_eq(st, PROTO_ST_FINISHED);
	/* Nothing is accepted after DONE. */
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ERROR), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, 0), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, 1000), AL_EINVAL);
}
END_TEST

START_TEST(malformed_payloads)
{
	struct proto_finding f;
	struct dynbuf b;

	dynbuf_init(&b, 4096);
	/* Each lie is refused and leaves nothing allocated. */
	ck_assert_int_eq(proto_encode_finding(&b, "r", "a.py", 5, 1, 1, "x", FP), 0);
	ck_assert_int_eq(proto_decode_finding((unsigned char *)b.data, b.len,
	    &f), AL_EINVAL); /* severity out of range */
	ck_assert_ptr_null(f.rule);
	ck_assert_int_eq(proto_encode_finding(&b, "r", "a.py", 1, 1, 1, "x", "zz"), 0);
	ck_assert_int_eq(proto_decode_finding((unsigned char *)b.data, b.len,
	    &f), AL_EINVAL); /* fingerprint */
	ck_assert_int_eq(proto_encode_finding(&b, "r", "a.py", 1, 1, 1, "x", FP), 0);
	ck_assert_int_eq(dynbuf_addc(&b, 'x'), 0);
	ck_assert_int_eq(proto_decode_finding((unsigned char *)b.data, b.len,
	    &f), AL_EINVAL); /* trailing byte */
	ck_assert_int_eq(proto_decode_finding((unsigned char *)b.data, 10,
	    &f), AL_EINVAL); /* cut short */
	/* A string length larger than what follows. */
	dynbuf_reset(&b);
	ck_assert_int_eq(dynbuf_add(&b, "\0\0\xff\xff" "abc", 7), 0);
	ck_assert_int_eq(proto_decode_finding((unsigned char *)b.data, b.len,
	    &f), AL_EINVAL);
	/* Encoding refuses what decoding would refuse. */
	ck_assert_int_eq(proto_put_str(&b, "a\0b", 3), AL_EINVAL);
	dynbuf_free(&b);
}
END_TEST

START_TEST(parse_from_memory)
{
	struct dynbuf frames, p;
	const unsigned char *payload;
	size_t off = 0, plen;
	int type;

	dynbuf_init(&frames, 4096);
	dynbuf_init(&p, 4096);
	ck_assert_int_eq(proto_encode_finding(&p, "r", "a.py", 2, 3, 4, "e", FP), 0);
	ck_assert_int_eq(proto_write(sv[1], PROTO_HELLO, "", 0), 0);
	ck_assert_int_eq(proto_write(sv[1], PROTO_FINDING, p.data, p.len), 0);
	close(sv[1]);
	sv[1] = -1;
	for (;;) {
		char chunk[256];
		ssize_t n = read(sv[0], chunk, sizeof(chunk));

		if (n <= 0)
			break;
		ck_assert_int_eq(dynbuf_add(&frames, chunk, (size_t)n), 0);
	}
	ck_assert_int_eq(proto_parse((unsigned char *)frames.data, frames.len,
	    &off, &type, &payload, &plen), 0);
	ck_assert_int_eq(type, PROTO_HELLO);
	ck_assert_uint_eq(plen, 0);
	ck_assert_int_eq(proto_parse((unsigned char *)frames.data, frames.len,
	    &off, &type, &payload, &plen), 0);
	ck_assert_int_eq(type, PROTO_FINDING);
	ck_assert_uint_eq(plen, p.len);
	ck_assert_uint_eq(off, frames.len);
	ck_assert_int_eq(proto_parse((unsigned char *)frames.data, frames.len,
	    &off, &type, &payload, &plen), AL_EIO);
	dynbuf_free(&frames);
	dynbuf_free(&p);
}
END_TEST

static Suite *
proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("frames");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, finding_round_trip);
	tcase_add_test(tc, oversized_frame_refused_before_allocation);
	tcase_add_test(tc, truncated_frames);
	tcase_add_test(tc, truncated_header);
	tcase_add_test(tc, unknown_type_and_reserved_bits);
	tcase_add_test(tc, parse_from_memory);
	suite_add_tcase(s, tc);
	tc = tcase_create("validation");
	tcase_add_test(tc, state_table);
	tcase_add_test(tc, malformed_payloads);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(proto_suite()) ? 1 : 0;
}
