/*
 * check_proto.c - the frames between scan child and gate: round trips over a
 * real socketpair, and every way a compromised child could lie: oversized
 * length (refused before allocation), truncated header or payload, unknown
 * type, reserved bits, frames out of order, malformed or padded payloads,
 * and member bytes (MEMBER_DATA) that are cut, padded, oversized or out of
 * their place.
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

/* Every message decodes what its encoder wrote, and nothing else. */
START_TEST(message_round_trips)
{
	struct dynbuf b;
	struct proto_hello h;
	struct proto_scan sc;
	struct proto_member m;
	struct proto_item_end ie;
	char *item = NULL;
	static const char sha[] = "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855";

	dynbuf_init(&b, PROTO_MAX_PAYLOAD);
	ck_assert_int_eq(proto_encode_hello(&b, "1", "sha256:ab"), 0);
	ck_assert_int_eq(proto_decode_hello((unsigned char *)b.data, b.len, &h),
	    0);
	ck_assert_str_eq(h.engine, "1");
	ck_assert_str_eq(h.ruleset, "sha256:ab");
	proto_hello_free(&h);
	/* One byte short, one byte over: refused. */
	ck_assert_int_eq(proto_decode_hello((unsigned char *)b.data, b.len - 1,
	    &h), AL_EINVAL);
	ck_assert_int_eq(dynbuf_addc(&b, 0), 0);
	ck_assert_int_eq(proto_decode_hello((unsigned char *)b.data, b.len, &h),
	    AL_EINVAL);
	ck_assert_ptr_null(h.engine);

	ck_assert_int_eq(proto_encode_scan(&b, "up.tar", "up.tar",
	    PROTO_SCAN_DIGEST | PROTO_SCAN_ITEMS, AL_KIND_BUNDLE), 0);
	ck_assert_int_eq(proto_decode_scan((unsigned char *)b.data, b.len, &sc),
	    0);
	ck_assert_str_eq(sc.path, "up.tar");
	ck_assert_uint_eq(sc.flags, PROTO_SCAN_DIGEST | PROTO_SCAN_ITEMS);
	ck_assert_int_eq(sc.kind, AL_KIND_BUNDLE);
	proto_scan_free(&sc);
	/* A child is never asked to read a directory. */
	ck_assert_int_eq(proto_encode_scan(&b, "d", "d", 0, AL_KIND_DIRECTORY),
	    0);
	ck_assert_int_eq(proto_decode_scan((unsigned char *)b.data, b.len, &sc),
	    AL_EINVAL);

	ck_assert_int_eq(proto_encode_item(&b, "up.tar"), 0);
	ck_assert_int_eq(proto_decode_item((unsigned char *)b.data, b.len,
	    &item), 0);
	ck_assert_str_eq(item, "up.tar");
	free(item);

	ck_assert_int_eq(proto_encode_member(&b, "up.tar!/a", 0100644, 12, sha,
	    "text/plain"), 0);
	ck_assert_int_eq(proto_decode_member((unsigned char *)b.data, b.len,
	    &m), 0);
	ck_assert(m.mode == 0100644 && m.size == 12);
	ck_assert_str_eq(m.sha256, sha);
	ck_assert_str_eq(m.type, "text/plain");
	proto_member_free(&m);
	/* A mode past st_mode's bits, a digest that is not hex, a type with
	 * a blank or a control byte: each is a lie. */
	ck_assert_int_eq(proto_encode_member(&b, "a", 0200000, 1, "", "x/y"), 0);
	ck_assert_int_eq(proto_decode_member((unsigned char *)b.data, b.len,
	    &m), AL_EINVAL);
	ck_assert_int_eq(proto_encode_member(&b, "a", 0, 1, "xyz", "x/y"), 0);
	ck_assert_int_eq(proto_decode_member((unsigned char *)b.data, b.len,
	    &m), AL_EINVAL);
	ck_assert_int_eq(proto_encode_member(&b, "a", 0, 1, "", "text/plain; "
	    "charset=x"), 0);
	ck_assert_int_eq(proto_decode_member((unsigned char *)b.data, b.len,
	    &m), AL_EINVAL);
	ck_assert_int_eq(proto_encode_member(&b, "a", 0, 1, "", "x\x1b"), 0);
	ck_assert_int_eq(proto_decode_member((unsigned char *)b.data, b.len,
	    &m), AL_EINVAL);
	ck_assert_ptr_null(m.path);

	ck_assert_int_eq(proto_encode_item_end(&b, 99, sha, AL_KIND_MBOX), 0);
	ck_assert_int_eq(proto_decode_item_end((unsigned char *)b.data, b.len,
	    &ie), 0);
	ck_assert(ie.bytes == 99);
	ck_assert_str_eq(ie.digest, sha);
	ck_assert_int_eq(ie.kind, AL_KIND_MBOX);
	proto_item_end_free(&ie);
	ck_assert_int_eq(proto_encode_item_end(&b, 1, "ABCD", AL_KIND_FILE), 0);
	ck_assert_int_eq(proto_decode_item_end((unsigned char *)b.data, b.len,
	    &ie), AL_EINVAL);
	/* The kind read is one a reader reads: not AUTO, MEMBER, DIRECTORY
	 * or beyond the vocabulary. */
	ck_assert_int_eq(proto_encode_item_end(&b, 1, "", AL_KIND_AUTO), 0);
	ck_assert_int_eq(proto_decode_item_end((unsigned char *)b.data, b.len,
	    &ie), AL_EINVAL);
	ck_assert_int_eq(proto_encode_item_end(&b, 1, "", AL_KIND_MEMBER), 0);
	ck_assert_int_eq(proto_decode_item_end((unsigned char *)b.data, b.len,
	    &ie), AL_EINVAL);
	ck_assert_int_eq(proto_encode_item_end(&b, 1, "", AL_KIND_DIRECTORY),
	    0);
	ck_assert_int_eq(proto_decode_item_end((unsigned char *)b.data, b.len,
	    &ie), AL_EINVAL);
	ck_assert_int_eq(proto_encode_item_end(&b, 1, "", (enum al_kind)99),
	    0);
	ck_assert_int_eq(proto_decode_item_end((unsigned char *)b.data, b.len,
	    &ie), AL_EINVAL);
	ck_assert_ptr_null(ie.digest);
	dynbuf_free(&b);
}
END_TEST

/* After a SCAN the parent waits for that item: DONE, a finding before the
 * item, or a second HELLO are refused by the table, with no override. */
START_TEST(await_state)
{
	enum proto_state st = PROTO_ST_AWAIT;

	ck_assert_int_eq(proto_accept(&st, PROTO_DONE), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_FINDING), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_HELLO), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM_END), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM), 0);
	ck_assert_int_eq(st, PROTO_ST_IN_ITEM);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM_END), 0);
	ck_assert_int_eq(st, PROTO_ST_READY);
	st = PROTO_ST_AWAIT;
	ck_assert_int_eq(proto_accept(&st, PROTO_ERROR), 0);
	ck_assert_int_eq(st, PROTO_ST_FINISHED);
}
END_TEST

/* Member bytes travel whole, in pieces that say their offset and size. */
START_TEST(member_data_round_trip)
{
	static const char text[] = "#!/bin/sh\ncurl x | sh\n";
	struct proto_member_data d;
	struct dynbuf b, in;
	int type;

	dynbuf_init(&b, PROTO_MAX_PAYLOAD);
	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	ck_assert_int_eq(proto_encode_member_data(&b, 4096, text,
	    strlen(text)), 0);
	ck_assert_uint_eq(b.len, 16 + strlen(text));
	ck_assert_int_eq(proto_write(sv[1], PROTO_MEMBER_DATA, b.data, b.len), 0);
	ck_assert_int_eq(proto_read(sv[0], &type, &in), 0);
	ck_assert_int_eq(type, PROTO_MEMBER_DATA);
	ck_assert_str_eq(proto_type_name(type), "MEMBER_DATA");
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)in.data,
	    in.len, &d), 0);
	ck_assert_uint_eq(d.offset, 4096);
	ck_assert_uint_eq(d.len, strlen(text));
	ck_assert_mem_eq(d.data, text, strlen(text));
	/* A piece of the largest size goes; one byte more is not encoded. */
	{
		char *big = calloc(1, PROTO_MEMBER_CHUNK + 1);

		ck_assert_ptr_nonnull(big);
		ck_assert_int_eq(proto_encode_member_data(&b, 0, big,
		    PROTO_MEMBER_CHUNK), 0);
		ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
		    b.len, &d), 0);
		ck_assert_uint_eq(d.len, PROTO_MEMBER_CHUNK);
		ck_assert_int_eq(proto_encode_member_data(&b, 0, big,
		    PROTO_MEMBER_CHUNK + 1), AL_EINVAL);
		free(big);
	}
	ck_assert_int_eq(proto_encode_member_data(&b, 0, "", 0), AL_EINVAL);
	dynbuf_free(&b);
	dynbuf_free(&in);
}
END_TEST

/* Writes a MEMBER_DATA payload by hand: offset, claimed length, then
 * `have` bytes. */
static void
member_data_raw(struct dynbuf *b, uint64_t offset, uint64_t claimed,
    size_t have)
{
	size_t i;

	dynbuf_reset(b);
	ck_assert_int_eq(proto_put_u64(b, offset), 0);
	ck_assert_int_eq(proto_put_u64(b, claimed), 0);
	for (i = 0; i < have; i++)
		ck_assert_int_eq(dynbuf_addc(b, 'a'), 0);
}

START_TEST(member_data_malformed)
{
	struct proto_member_data d;
	struct dynbuf b;

	dynbuf_init(&b, PROTO_MAX_PAYLOAD);
	/* The claimed length must be exactly what follows. */
	member_data_raw(&b, 0, 5, 4);   /* cut short */
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
	    b.len, &d), AL_EINVAL);
	ck_assert_ptr_null(d.data);
	member_data_raw(&b, 0, 3, 4);   /* a trailing byte */
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
	    b.len, &d), AL_EINVAL);
	member_data_raw(&b, 0, 0, 0);   /* an empty piece says nothing */
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
	    b.len, &d), AL_EINVAL);
	/* Oversized: a piece past the chunk size, even if the bytes follow. */
	member_data_raw(&b, 0, PROTO_MEMBER_CHUNK + 1, PROTO_MEMBER_CHUNK + 1);
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
	    b.len, &d), AL_EINVAL);
	/* A length that wraps the size arithmetic. */
	member_data_raw(&b, 0, UINT64_MAX, 1);
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
	    b.len, &d), AL_EINVAL);
	/* An offset whose end passes any size. */
	member_data_raw(&b, UINT64_MAX, 1, 1);
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data,
	    b.len, &d), AL_EINVAL);
	/* The header fields themselves cut short. */
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data, 12,
	    &d), AL_EINVAL);
	ck_assert_int_eq(proto_decode_member_data((unsigned char *)b.data, 0,
	    &d), AL_EINVAL);
	dynbuf_free(&b);
}
END_TEST

/* Bytes only right after their MEMBER record (or another piece). */
START_TEST(member_data_state)
{
	enum proto_state st = PROTO_ST_READY;

	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), AL_EINVAL);
	st = PROTO_ST_AWAIT;
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM), 0);
	/* Inside an item, before any member: refused. */
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER), 0);
	ck_assert_int_eq(st, PROTO_ST_IN_MEMBER);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), 0);
	/* A finding ends the member: bytes after it are refused. */
	ck_assert_int_eq(proto_accept(&st, PROTO_FINDING), 0);
	ck_assert_int_eq(st, PROTO_ST_IN_ITEM);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER), 0);
	ck_assert_int_eq(proto_accept(&st, PROTO_DONE), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM), AL_EINVAL);
	ck_assert_int_eq(proto_accept(&st, PROTO_ITEM_END), 0);
	ck_assert_int_eq(st, PROTO_ST_READY);
	ck_assert_int_eq(proto_accept(&st, PROTO_MEMBER_DATA), AL_EINVAL);
}
END_TEST

/* The launcher's reports carry a pid and a wait status, whole. */
START_TEST(launcher_reports)
{
	unsigned char s[PROTO_LAUNCH_STARTED], e[PROTO_LAUNCH_ENDED];

	proto_launch_started(s, 4242);
	ck_assert_int_eq(proto_launch_pid(s), 4242);
	proto_launch_ended(e, 77, 0x8b00);
	ck_assert_int_eq(proto_launch_pid(e), 77);
	ck_assert_int_eq(proto_launch_status(e), 0x8b00);
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
	tcase_add_test(tc, member_data_round_trip);
	suite_add_tcase(s, tc);
	tc = tcase_create("validation");
	tcase_add_test(tc, state_table);
	tcase_add_test(tc, malformed_payloads);
	tcase_add_test(tc, message_round_trips);
	tcase_add_test(tc, await_state);
	tcase_add_test(tc, member_data_malformed);
	tcase_add_test(tc, member_data_state);
	tcase_add_test(tc, launcher_reports);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(proto_suite()) ? 1 : 0;
}
