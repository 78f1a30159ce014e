/*
 * check_note.c - C2SP signed notes and tlog checkpoints (gate/note.c).
 *
 * The vectors are the reference's: golang.org/x/mod/sumdb/note, file
 * note_test.go (TestNewVerifier, TestSign, TestOpen; read at commit
 * 02c991387e35f9e4c0a9b7ce137717055f8d716d) and the example in note.go's
 * package comment (commit 605edab4323bfdf06a0d8ac68b4b18e9e0df249b): the
 * PeterNeumann key pair, its signature over the Peter Neumann quote, and
 * EnochRoot's public key and signature over the same text. Our key ids,
 * verifier key strings and signatures must be theirs byte for byte
 * (Ed25519 is deterministic). The examples of C2SP/C2SP signed-note.md
 * (commit 055287621bf3cd13ff4394418a3e8efc2d5e8ed7) and tlog-checkpoint.md
 * (commit 2793893976c835db049c194d8f2c4f946dcb70ba) must read as
 * well-formed. Then every refusal with its message, our own keys signing
 * and verifying (two keys, a rotated key), and the strict checkpoint
 * numbers and hashes.
 */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "attest.h"
#include "err.h"
#include "note.h"

#define EM "\xe2\x80\x94" /* U+2014 EM DASH */

/* golang.org/x/mod/sumdb/note: note_test.go, TestNewVerifier, TestSign,
 * TestOpen (and note.go's package comment). */
#define PETER_VKEY "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
#define PETER_SKEY "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
#define ENOCH_VKEY "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
#define TEXT "If you think cryptography is the answer to your problem,\n" \
	"then you don't know what your problem is.\n"
#define PETER_SIG EM " PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
#define ENOCH_SIG EM " EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"

/* C2SP signed-note.md: its example (a text with an empty line in it). */
#define C2SP_NOTE "Ognuno sta solo sul cuor della terra\n" \
	"trafitto da un raggio di sole:\n" \
	"\n" \
	"ed \xc3\xa8 subito sera.\n" \
	"\n" \
	EM " quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n"
/* C2SP tlog-checkpoint.md: its example. */
#define C2SP_CP_TEXT "example.com/behind-the-sofa\n20852163\n" \
	"CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
#define C2SP_CP C2SP_CP_TEXT "\n" \
	EM " example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"

/* The strings joined (the list ends with NULL), malloc'd. */
static char *
cat(const char *first, ...)
{
	struct dynbuf b;
	const char *s;
	va_list ap;

	dynbuf_init(&b, 1u << 24);
	va_start(ap, first);
	for (s = first; s != NULL; s = va_arg(ap, const char *))
		ck_assert_int_eq(dynbuf_adds(&b, s), 0);
	va_end(ap);
	return dynbuf_take(&b, NULL);
}

/* s repeated n times. */
static char *
repeat(const char *s, size_t n)
{
	struct dynbuf b;

	dynbuf_init(&b, 1u << 24);
	while (n-- > 0)
		ck_assert_int_eq(dynbuf_adds(&b, s), 0);
	return dynbuf_take(&b, NULL);
}

/* rc is code and the message holds want. */
#define ck_refused(rc, code, want) do { \
	int rc_ = (rc); \
	ck_assert_msg(rc_ == (code), "rc %d, want %d (%s)", rc_, (code), \
	    al_err_msg()); \
	ck_assert_msg(strstr(al_err_msg(), (want)) != NULL, \
	    "message \"%s\" lacks \"%s\"", al_err_msg(), (want)); \
} while (0)

static void
vkey(struct note_verifier *v, const char *s)
{
	int rc = note_vkey_parse(v, s, strlen(s));

	ck_assert_msg(rc == 0, "%s: %s", s, al_err_msg());
}

/* note_vkey_parse of a NUL-terminated string. */
static int
vkey_try(const char *s)
{
	struct note_verifier v;
	int rc = note_vkey_parse(&v, s, strlen(s));

	ck_assert_ptr_null(rc < 0 ? v.pub : NULL);
	note_verifier_clear(&v);
	return rc;
}

/* note_verify on a NUL-terminated note. */
static int
verify(const char *note, const struct note_verifier *keys, size_t nkeys,
    size_t *text_len, size_t *nverified)
{
	size_t tl, nv;

	return note_verify(text_len ? text_len : &tl, nverified ? nverified : &nv,
	    note, strlen(note), keys, nkeys);
}

/*
 * The signer key string of the reference (PRIVATE+KEY+NAME+HEX8+
 * BASE64(0x01 || seed)), read here only, with libcrypto's own base64
 * decoder so that ours is not checked against itself: the key, and the
 * key id the string states.
 */
static EVP_PKEY *
skey_parse(const char *skey, char *name, size_t namesz, uint32_t *id)
{
	const char *p = skey + strlen("PRIVATE+KEY+"), *plus;
	unsigned char raw[64];
	char hex[9];
	int n;

	ck_assert_int_eq(strncmp(skey, "PRIVATE+KEY+", 12), 0);
	plus = strchr(p, '+');
	ck_assert_ptr_nonnull(plus);
	ck_assert_uint_lt((size_t)(plus - p), namesz);
	memcpy(name, p, (size_t)(plus - p));
	name[plus - p] = '\0';
	memcpy(hex, plus + 1, 8);
	hex[8] = '\0';
	ck_assert_int_eq(plus[9], '+');
	*id = (uint32_t)strtoul(hex, NULL, 16);
	n = EVP_DecodeBlock(raw, (const unsigned char *)plus + 10,
	    (int)strlen(plus + 10));
	ck_assert_int_eq(n, 33); /* 44 characters, no padding */
	ck_assert_int_eq(raw[0], 0x01);
	return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, raw + 1, 32);
}

static EVP_PKEY *
peter_key(void)
{
	char name[64];
	uint32_t id;
	EVP_PKEY *k = skey_parse(PETER_SKEY, name, sizeof(name), &id);

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(name, "PeterNeumann");
	ck_assert_uint_eq(id, 0xc74f20a3);
	return k;
}

static EVP_PKEY *
new_key(void)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");

	ck_assert_ptr_nonnull(k);
	return k;
}

/* A note of text signed by the n keys named. */
static char *
sign_n(const char *text, const char *const *names, EVP_PKEY **keys,
    size_t n)
{
	struct note_signer s[4];
	size_t i, len;
	char *out;
	int rc;

	ck_assert_uint_le(n, 4);
	for (i = 0; i < n; i++) {
		s[i].name = names[i];
		s[i].key = keys[i];
	}
	rc = note_sign(&out, &len, text, strlen(text), s, n);
	ck_assert_msg(rc == 0, "%s", al_err_msg());
	ck_assert_uint_eq(strlen(out), len);
	return out;
}

static char *
sign1(const char *text, const char *name, EVP_PKEY *key)
{
	return sign_n(text, &name, &key, 1);
}

static void
verifier(struct note_verifier *v, const char *name, EVP_PKEY *key)
{
	int rc = note_verifier_init(v, name, key);

	ck_assert_msg(rc == 0, "%s", al_err_msg());
}

/* --- the reference's vectors ------------------------------------------ */

/* Our parse and format of the reference's verifier keys give their key
 * ids and their strings back. */
START_TEST(t_vkey_vectors)
{
	struct note_verifier v;
	char *s;

	vkey(&v, PETER_VKEY);
	ck_assert_str_eq(v.name, "PeterNeumann");
	ck_assert_uint_eq(v.id, 0xc74f20a3);
	ck_assert_int_eq(note_vkey_format(&s, v.name, v.pub), 0);
	ck_assert_str_eq(s, PETER_VKEY);
	free(s);
	note_verifier_clear(&v);

	vkey(&v, ENOCH_VKEY);
	ck_assert_str_eq(v.name, "EnochRoot");
	ck_assert_uint_eq(v.id, 0xaf0cfe78);
	ck_assert_int_eq(note_vkey_format(&s, v.name, v.pub), 0);
	ck_assert_str_eq(s, ENOCH_VKEY);
	free(s);
	note_verifier_clear(&v);
	note_verifier_clear(&v); /* twice is harmless */
}
END_TEST

/* The reference's private key: the public key derived from its seed has
 * the key id the string states and the reference's verifier key; a
 * verifier built from the key (not the string) is the same. */
START_TEST(t_skey_vector)
{
	struct note_verifier v;
	EVP_PKEY *k = peter_key();
	uint32_t id = 0;
	char *s;

	ck_assert_int_eq(note_keyid(&id, "PeterNeumann", k), 0);
	ck_assert_uint_eq(id, 0xc74f20a3);
	ck_assert_int_eq(note_vkey_format(&s, "PeterNeumann", k), 0);
	ck_assert_str_eq(s, PETER_VKEY);
	free(s);
	verifier(&v, "PeterNeumann", k);
	ck_assert_uint_eq(v.id, 0xc74f20a3);
	note_verifier_clear(&v);
	/* The id is of the name too. */
	ck_assert_int_eq(note_keyid(&id, "PeterNeuman", k), 0);
	ck_assert_uint_ne(id, 0xc74f20a3);
	EVP_PKEY_free(k);
}
END_TEST

/* TestSign: our signature over the text is the reference's, byte for
 * byte. */
START_TEST(t_sign_vector)
{
	EVP_PKEY *k = peter_key();
	char *note = sign1(TEXT, "PeterNeumann", k);

	ck_assert_str_eq(note, TEXT "\n" PETER_SIG);
	free(note);
	EVP_PKEY_free(k);
}
END_TEST

/* TestOpen: one known, one unknown; both known; none known. */
START_TEST(t_open_vector)
{
	struct note_verifier v[2];
	const char *note = TEXT "\n" PETER_SIG ENOCH_SIG;
	size_t tl = 0, nv = 0;

	vkey(&v[0], PETER_VKEY);
	vkey(&v[1], ENOCH_VKEY);
	ck_assert_int_eq(verify(note, v, 1, &tl, &nv), 0);
	ck_assert_uint_eq(tl, strlen(TEXT));
	ck_assert_uint_eq(nv, 1);
	ck_assert_int_eq(verify(note, v, 2, &tl, &nv), 0);
	ck_assert_uint_eq(tl, strlen(TEXT));
	ck_assert_uint_eq(nv, 2);
	ck_assert_int_eq(verify(note, v + 1, 1, &tl, &nv), 0);
	ck_assert_uint_eq(nv, 1);
	ck_refused(verify(note, v, 0, &tl, &nv), AL_ENOTFOUND,
	    "note: no signature by a known key (signatures: 2, known keys: 0)");
	ck_assert_uint_eq(tl, 0);
	ck_assert_uint_eq(nv, 0);
	note_verifier_clear(&v[0]);
	note_verifier_clear(&v[1]);
}
END_TEST

/* TestNewVerifier: every proper part of the verifier key, and the key
 * with any one byte changed, is refused; so are the reference's two bad
 * keys with an adjusted key id. */
START_TEST(t_vkey_manglings)
{
	char b[sizeof(PETER_VKEY)];
	size_t n = strlen(PETER_VKEY), i, j;
	struct note_verifier v;

	memcpy(b, PETER_VKEY, sizeof(b));
	for (i = 0; i <= n; i++)
		for (j = i + 1; j <= n; j++) {
			if (i == 0 && j == n)
				continue;
			ck_assert_msg(note_vkey_parse(&v, b + i, j - i) < 0,
			    "part [%zu, %zu) accepted", i, j);
			ck_assert_ptr_null(v.pub);
		}
	for (i = 0; i < n; i++) {
		b[i]++;
		ck_assert_msg(note_vkey_parse(&v, b, n) < 0, "%s accepted", b);
		b[i]--;
	}
	/* Wrong length key, with adjusted key hash: the reference's lenient
	 * base64 reads 37 bytes from it, ours refuses the stray bits in
	 * "EY==" before the length is looked at. */
	ck_refused(vkey_try("PeterNeumann+cc469956+ARpc2QcUPDhMQegw"
	    "xbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=="), AL_EINVAL,
	    "verifier key: the key is not canonical standard base64");
	/* Unknown algorithm, with adjusted key hash. */
	ck_refused(vkey_try("PeterNeumann+173116ae+ZRpc2QcUPDhMQegw"
	    "xbzhKqiBfsVkmqq/LDE4izWy10TW"), AL_EINVAL,
	    "verifier key: unknown signature type 0x65 (only Ed25519, 0x01)");
	/* The wrong id for the key. */
	ck_refused(vkey_try("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegw"
	    "xbzhKqiBfsVkmqq/LDE4izWy10TW"), AL_EINVAL,
	    "verifier key: key id c74f20a4 is not the name's and key's "
	    "(c74f20a3)");
	/* The reference reads the id as hex of either case. */
	vkey(&v, "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
	ck_assert_uint_eq(v.id, 0xc74f20a3);
	note_verifier_clear(&v);
	ck_refused(vkey_try("PeterNeumann"), AL_EINVAL,
	    "verifier key: not NAME+ID+KEY (no '+')");
	ck_refused(vkey_try("Peter Neumann+c74f20a3+AAAA"),
	    AL_EINVAL, "verifier key: the key name holds a space");
	ck_refused(vkey_try("+c74f20a3+AAAA"), AL_EINVAL,
	    "verifier key: the key name is empty");
	ck_refused(vkey_try("P+c74f20a+AAAA"), AL_EINVAL,
	    "verifier key: the key id is not 8 hex digits");
	ck_refused(vkey_try("P+c74f20ag+AAAA"), AL_EINVAL,
	    "verifier key: the key id is not 8 hex digits");
	/* An Ed25519 key of 31 bytes, with its own right id. */
	{
		unsigned char enc[32] = {0x01};
		char s[128];
		struct dynbuf d;
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		unsigned char md[32];
		unsigned int mdlen;
		int k;

		ck_assert_int_eq(EVP_DigestInit_ex(ctx, EVP_sha256(), NULL), 1);
		ck_assert_int_eq(EVP_DigestUpdate(ctx, "P\n", 2), 1);
		ck_assert_int_eq(EVP_DigestUpdate(ctx, enc, 32), 1);
		ck_assert_int_eq(EVP_DigestFinal_ex(ctx, md, &mdlen), 1);
		EVP_MD_CTX_free(ctx);
		dynbuf_init(&d, 256);
		ck_assert_int_eq(dynbuf_addf(&d, "P+%02x%02x%02x%02x+", md[0],
		    md[1], md[2], md[3]), 0);
		k = EVP_EncodeBlock((unsigned char *)s, enc, 32);
		ck_assert_int_eq(dynbuf_add(&d, s, (size_t)k), 0);
		ck_refused(note_vkey_parse(&v, d.data, d.len), AL_EINVAL,
		    "verifier key: an Ed25519 key is 32 bytes, not 31");
		dynbuf_free(&d);
	}
}
END_TEST

/* TestOpen's other cases: the verifier set holding a key twice, too many
 * signatures, an invalid signature, repeats of verified and unverified
 * signatures, malformed notes. */
START_TEST(t_open_reference_cases)
{
	struct note_verifier peter, enoch, dup[3];
	size_t tl, nv;
	char *s;

	vkey(&peter, PETER_VKEY);
	vkey(&enoch, ENOCH_VKEY);
	vkey(&dup[0], ENOCH_VKEY);
	vkey(&dup[1], PETER_VKEY);
	vkey(&dup[2], ENOCH_VKEY);

	/* Duplicated verifier: refused when a signature names it, not when
	 * it is not used. */
	ck_refused(verify(TEXT "\n" ENOCH_SIG, dup, 3, NULL, NULL), AL_EINVAL,
	    "note: line 4: the verifier set holds key EnochRoot+af0cfe78 more "
	    "than once");
	ck_assert_int_eq(verify(TEXT "\n" PETER_SIG, dup, 3, NULL, &nv), 0);
	ck_assert_uint_eq(nv, 1);

	/* 100 signatures are read, 101 are too many (known or not). */
	{
		char *sigs = repeat(PETER_SIG, 100);

		s = cat(TEXT "\n", sigs, NULL);
		ck_assert_int_eq(verify(s, &peter, 1, &tl, &nv), 0);
		ck_assert_uint_eq(nv, 1);
		free(s);
		free(sigs);
	}
	{
		char *sigs = repeat(PETER_SIG, 101);

		s = cat(TEXT "\n", sigs, NULL);
		ck_refused(verify(s, &peter, 1, NULL, NULL), AL_ELIMIT,
		    "note: more than 100 signatures");
		ck_refused(verify(s, NULL, 0, NULL, NULL), AL_ELIMIT,
		    "note: more than 100 signatures");
		free(s);
		free(sigs);
	}

	/* Invalid signature: peterSig[:60] + "ABCD" + peterSig[60:]. */
	{
		char bad[sizeof(PETER_SIG) + 4];

		memcpy(bad, PETER_SIG, 60);
		memcpy(bad + 60, "ABCD", 4);
		memcpy(bad + 64, PETER_SIG + 60, sizeof(PETER_SIG) - 60);
		s = cat(TEXT "\n", bad, NULL);
		ck_refused(verify(s, &peter, 1, NULL, NULL), AL_EINVAL,
		    "note: line 4: signature by PeterNeumann (key id c74f20a3) "
		    "does not verify");
		free(s);
	}

	/* Duplicated verified and unverified signatures. */
	{
		char bad[sizeof(ENOCH_SIG) + 4];

		memcpy(bad, ENOCH_SIG, 60);
		memcpy(bad + 60, "ABCD", 4);
		memcpy(bad + 64, ENOCH_SIG + 60, sizeof(ENOCH_SIG) - 60);
		s = cat(TEXT "\n", PETER_SIG, PETER_SIG, ENOCH_SIG, ENOCH_SIG, bad,
		    NULL);
		ck_assert_int_eq(verify(s, &peter, 1, &tl, &nv), 0);
		ck_assert_uint_eq(tl, strlen(TEXT));
		ck_assert_uint_eq(nv, 1);
		/* With Enoch known, his bad signature is a repeat of his good
		 * one: dropped unread, as the reference does. */
		ck_assert_int_eq(verify(s, dup, 2, &tl, &nv), 0);
		ck_assert_uint_eq(nv, 2);
		free(s);
	}

	/* Invalid encoded message syntax (the reference's badMsgs). */
	ck_refused(verify(TEXT, &peter, 1, NULL, NULL), AL_EINVAL,
	    "note: no blank line between the text and the signatures");
	ck_refused(verify(TEXT "\n", &peter, 1, NULL, NULL), AL_EINVAL,
	    "note: no signature line after the blank line");
	s = cat(TEXT "\n", PETER_SIG, NULL);
	s[strlen(s) - 1] = '\0';
	ck_refused(verify(s, &peter, 1, NULL, NULL), AL_EINVAL,
	    "note: the last signature line does not end with a newline");
	free(s);
	ck_refused(verify("\x01" TEXT "\n" PETER_SIG, &peter, 1, NULL, NULL),
	    AL_EINVAL, "note: line 1: control character 0x01 at byte 0");
	ck_refused(verify("\xff" TEXT "\n" PETER_SIG, &peter, 1, NULL, NULL),
	    AL_EINVAL, "note: line 1: not UTF-8 at byte 0");
	ck_refused(verify(TEXT "\n" EM " Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiF"
	    "upLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=",
	    &peter, 1, NULL, NULL), AL_EINVAL,
	    "note: the last signature line does not end with a newline");
	ck_refused(verify(TEXT "\n" EM " Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiF"
	    "upLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n",
	    &peter, 1, NULL, NULL), AL_EINVAL,
	    "note: line 4: a space in the signature (a key name has none)");
	ck_refused(verify(TEXT "\n" PETER_SIG "Unexpected line.\n", &peter, 1,
	    NULL, NULL), AL_EINVAL, "note: line 5: not a signature line");

	note_verifier_clear(&peter);
	note_verifier_clear(&enoch);
	note_verifier_clear(&dup[0]);
	note_verifier_clear(&dup[1]);
	note_verifier_clear(&dup[2]);
}
END_TEST

/* The gate's own key loading (attest.c) gives note.c its keys: the
 * reference's key as DATA/keys/signing.key signs the reference's
 * signature, and its public half read from PEM is the reference's
 * verifier key. */
START_TEST(t_attest_keys)
{
	char *dir = tu_mkdtemp(), path[4200], *s;
	EVP_PKEY *k = peter_key(), *loaded = NULL, *pub = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/keys", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/keys/signing.key", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_eq(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL),
	    1);
	ck_assert_int_eq(fclose(f), 0);
	/* Refused while others may read it, and without the public half
	 * that names it the data directory's current key. */
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(attest_key_load(dir, &loaded), AL_EINVAL);
	ck_assert_ptr_null(loaded);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "(mode 0644): chmod 600"));
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_ne(attest_key_load(dir, &loaded), 0);
	ck_assert_ptr_null(loaded);
	snprintf(path, sizeof(path), "%s/keys/signing.pub", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_eq(PEM_write_PUBKEY(f, k), 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(attest_key_load(dir, &loaded), 0);
	s = sign1(TEXT, "PeterNeumann", loaded);
	ck_assert_str_eq(s, TEXT "\n" PETER_SIG);
	free(s);
	snprintf(path, sizeof(path), "%s/pub.pem", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_eq(PEM_write_PUBKEY(f, k), 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(attest_pub_load(path, &pub), 0);
	ck_assert_int_eq(note_vkey_format(&s, "PeterNeumann", pub), 0);
	ck_assert_str_eq(s, PETER_VKEY);
	free(s);
	/* A public key cannot sign. */
	{
		struct note_signer sg = { "PeterNeumann", pub };
		size_t len;

		ck_refused(note_sign(&s, &len, TEXT, strlen(TEXT), &sg, 1),
		    AL_EENGINE, "note: libcrypto cannot sign as PeterNeumann");
		ck_assert_ptr_null(s);
	}
	EVP_PKEY_free(pub);
	EVP_PKEY_free(loaded);
	EVP_PKEY_free(k);
	tu_rmrf(dir);
}
END_TEST

/* The C2SP example notes are well-formed: signed by keys we do not know,
 * they are refused as such, not as malformed. The signed-note example's
 * text has an empty line: the last blank line separates. */
START_TEST(t_c2sp_examples)
{
	struct note_verifier peter;

	vkey(&peter, PETER_VKEY);
	ck_refused(verify(C2SP_NOTE, &peter, 1, NULL, NULL), AL_ENOTFOUND,
	    "note: no signature by a known key (signatures: 1, known keys: 1)");
	ck_refused(verify(C2SP_CP, &peter, 1, NULL, NULL), AL_ENOTFOUND,
	    "note: no signature by a known key");
	note_verifier_clear(&peter);
}
END_TEST

/* --- our own keys -------------------------------------------------------- */

/* Signing then verifying; the text returned is the text signed, and a
 * text with empty lines (or ending in one) survives. */
START_TEST(t_sign_verify)
{
	static const char *const texts[] = {
		"a\n", "\n", "one\n\ntwo\n", "ends in a blank line\n\n",
		"\xc3\xa8 \xe2\x80\x94 \xf0\x9f\x94\x91 UTF-8\n",
	};
	EVP_PKEY *k = new_key();
	struct note_verifier v;
	size_t i, tl, nv;

	verifier(&v, "example.com/log", k);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *s = sign1(texts[i], "example.com/log", k);

		ck_assert_int_eq(strncmp(s, texts[i], strlen(texts[i])), 0);
		ck_assert_int_eq(verify(s, &v, 1, &tl, &nv), 0);
		ck_assert_uint_eq(tl, strlen(texts[i]));
		ck_assert_uint_eq(nv, 1);
		free(s);
	}
	note_verifier_clear(&v);
	EVP_PKEY_free(k);
}
END_TEST

/* Any one byte of the text, or of the signature line, changed: refused
 * (malformed, unknown, or not verifying; never accepted). */
START_TEST(t_tampered)
{
	EVP_PKEY *k = new_key();
	struct note_verifier v;
	char *s;
	size_t i, n, tl, nv;

	verifier(&v, "example.com/log", k);
	s = sign1(TEXT, "example.com/log", k);
	n = strlen(s);
	for (i = 0; i < n; i++) {
		char was = s[i];

		s[i] = was == 'x' ? 'y' : 'x';
		ck_assert_msg(note_verify(&tl, &nv, s, n, &v, 1) < 0,
		    "byte %zu changed, still verifies", i);
		s[i] = was;
	}
	/* A changed text byte reads as a bad signature. */
	s[0] = 'i';
	ck_refused(note_verify(&tl, &nv, s, n, &v, 1), AL_EINVAL,
	    "note: line 4: signature by example.com/log (key id ");
	ck_assert_msg(strstr(al_err_msg(), ") does not verify") != NULL, "%s",
	    al_err_msg());
	s[0] = 'I';
	/* A changed signature byte (past the key id) too. */
	s[n - 10] = s[n - 10] == 'A' ? 'B' : 'A';
	ck_refused(note_verify(&tl, &nv, s, n, &v, 1), AL_EINVAL,
	    "does not verify");
	free(s);
	note_verifier_clear(&v);
	EVP_PKEY_free(k);
}
END_TEST

/* The wrong name, the wrong key id: the signature is someone else's and
 * ignored, so nothing known signed. The right name and id with another
 * public key (a colliding id is easy to make): it does not verify. */
START_TEST(t_wrong_name_or_id)
{
	EVP_PKEY *k = new_key(), *other = new_key();
	struct note_verifier v;
	char *s = sign1(TEXT, "example.com/log", k);

	verifier(&v, "example.com/log2", k);
	ck_refused(verify(s, &v, 1, NULL, NULL), AL_ENOTFOUND,
	    "note: no signature by a known key (signatures: 1, known keys: 1)");
	note_verifier_clear(&v);
	verifier(&v, "example.com/log", other);
	ck_refused(verify(s, &v, 1, NULL, NULL), AL_ENOTFOUND,
	    "note: no signature by a known key");
	/* The id of k, the key of other. */
	ck_assert_int_eq(note_keyid(&v.id, "example.com/log", k), 0);
	ck_refused(verify(s, &v, 1, NULL, NULL), AL_EINVAL,
	    "note: line 4: signature by example.com/log (key id ");
	note_verifier_clear(&v);
	free(s);
	EVP_PKEY_free(k);
	EVP_PKEY_free(other);
}
END_TEST

/* Signature lines that are not: no em dash (a hyphen, an en dash), no
 * space after it, no name, no signature, bad base64, too short. */
START_TEST(t_malformed_sig_lines)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "- PeterNeumann x08go/ZJku\n", "line 4: not a signature line" },
		{ "\xe2\x80\x93 PeterNeumann x08go/ZJku\n",
		  "line 4: not a signature line" },
		{ EM "PeterNeumann x08go/ZJku\n", "line 4: not a signature line" },
		{ EM "\n", "line 4: not a signature line" },
		{ EM " PeterNeumann\n", "line 4: no space between the key name "
		  "and the signature" },
		{ EM " PeterNeumann \n", "line 4: no signature after the key "
		  "name" },
		{ EM "  x08go/ZJku\n", "line 4: the key name is empty" },
		{ EM " Peter+Neumann x08go/ZJku\n", "line 4: the key name holds "
		  "a '+'" },
		{ EM " Peter\xc2\xa0Neumann x08go/ZJku\n", "line 4: the key name "
		  "holds a space" },
		{ EM " Peter\xe3\x80\x80Neumann x08go/ZJku\n", "line 4: the key "
		  "name holds a space" },
		{ EM " PeterNeumann x08go/ZJk\n", "line 4: the signature is not "
		  "canonical standard base64" },
		{ EM " PeterNeumann x08go/ZJku=\n", "line 4: the signature is not "
		  "canonical standard base64" },
		{ EM " PeterNeumann x08g-_ZJkuBS\n", "line 4: the signature is not "
		  "canonical standard base64" },
		/* "x08go/ZJkuB=" would be canonical with "x08go/ZJkuA="... */
		{ EM " PeterNeumann x08go/ZJkuB=\n", "line 4: the signature is "
		  "not canonical standard base64" },
		{ EM " PeterNeumann x08goA==\n", "line 4: a signature of 4 bytes "
		  "(a 4-byte key id, then the signature)" },
	};
	struct note_verifier peter;
	size_t i;

	vkey(&peter, PETER_VKEY);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = cat(TEXT "\n", cases[i].line, NULL);

		ck_refused(verify(s, &peter, 1, NULL, NULL), AL_EINVAL,
		    cases[i].msg);
		free(s);
	}
	/* A good signature after a bad line does not save the note. */
	{
		char *s = cat(TEXT "\n", PETER_SIG, "- x\n", NULL);

		ck_refused(verify(s, &peter, 1, NULL, NULL), AL_EINVAL,
		    "line 5: not a signature line");
		free(s);
	}
	note_verifier_clear(&peter);
}
END_TEST

/* No blank line between the text and the signatures; the text's own
 * faults (control characters, broken UTF-8, no final newline) refused by
 * both verify and sign. */
START_TEST(t_text_faults)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "a\tb\n", "line 1: control character 0x09 at byte 1" },
		{ "ok\nca\rrot\n", "line 2: control character 0x0d at byte 5" },
		{ "a\x7f ok? no: \x1b[2J\n", "line 1: control character 0x1b at "
		  "byte 11" },
		{ "\xc0\xaf overlong\n", "line 1: not UTF-8 at byte 0" },
		{ "x\xed\xa0\x80 surrogate\n", "line 1: not UTF-8 at byte 1" },
		{ "x\xf4\x90\x80\x80 past U+10FFFF\n", "line 1: not UTF-8 at byte "
		  "1" },
		{ "cut \xe2\x80\n", "line 1: not UTF-8 at byte 4" },
	};
	EVP_PKEY *k = new_key();
	struct note_signer sg = { "example.com/log", k };
	struct note_verifier v;
	size_t i, len;
	char *s;

	verifier(&v, "example.com/log", k);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *note = cat(cases[i].text, "\n", EM " example.com/log "
		    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXg"
		    "KvqfqdngotpRZb6KE6RyyBwJnAM=\n", NULL);

		ck_refused(verify(note, &v, 1, NULL, NULL), AL_EINVAL,
		    cases[i].msg);
		ck_refused(note_sign(&s, &len, cases[i].text,
		    strlen(cases[i].text), &sg, 1), AL_EINVAL, cases[i].msg);
		ck_assert_ptr_null(s);
		free(note);
	}
	/* A NUL is a control character (the length is what counts). */
	{
		static const char nul[] = "a\0b\n\n" EM " x AAAAAAAA\n";
		size_t tl, nv;

		ck_refused(note_verify(&tl, &nv, nul, sizeof(nul) - 1, &v, 1),
		    AL_EINVAL, "note: line 1: control character 0x00 at byte 1");
	}
	/* The signature lines are held to it too. */
	ck_refused(verify(TEXT "\n" EM " a\tb AAAAAAAA\n", &v, 1, NULL, NULL),
	    AL_EINVAL, "note: line 4: control character 0x09 at byte 105");
	/* No blank line. */
	ck_refused(verify(TEXT PETER_SIG, &v, 1, NULL, NULL), AL_EINVAL,
	    "note: no blank line between the text and the signatures");
	/* Sign: no final newline, nothing. */
	ck_refused(note_sign(&s, &len, "abc", 3, &sg, 1), AL_EINVAL,
	    "note: the text does not end with a newline");
	ck_refused(note_sign(&s, &len, "", 0, &sg, 1), AL_EINVAL,
	    "note: the text is empty");
	ck_refused(note_sign(&s, &len, "a\n", 2, &sg, 0), AL_EINVAL,
	    "note: 0 signers (1 to 100)");
	note_verifier_clear(&v);
	EVP_PKEY_free(k);
}
END_TEST

/* Key names: what the spec allows, and our length bound. */
START_TEST(t_names)
{
	EVP_PKEY *k = new_key();
	struct note_signer sg = { NULL, k };
	char name[NOTE_NAME_MAX + 2], *s;
	uint32_t id;
	size_t len;

	ck_assert_int_eq(note_name_ok("example.com/log", 15), 1);
	ck_assert_int_eq(note_name_ok("\xc3\xa8", 2), 1);
	ck_assert_int_eq(note_name_ok("", 0), 0);
	ck_assert_int_eq(note_name_ok("a b", 3), 0);
	ck_assert_int_eq(note_name_ok("a+b", 3), 0);
	ck_assert_int_eq(note_name_ok("a\nb", 3), 0);
	ck_assert_int_eq(note_name_ok("a\x01" "b", 3), 0);
	ck_assert_int_eq(note_name_ok("a\xe2\x80\x8a" "b", 5), 0); /* U+200A */
	ck_assert_int_eq(note_name_ok("a\xe2\x80\x8b" "b", 5), 1); /* U+200B */
	ck_assert_int_eq(note_name_ok("a\xc2\x85" "b", 4), 0);     /* U+0085 */
	ck_assert_int_eq(note_name_ok("a\xe2\x80\xa8" "b", 5), 0); /* U+2028 */
	ck_assert_int_eq(note_name_ok("\xff", 1), 0);
	memset(name, 'n', sizeof(name));
	name[NOTE_NAME_MAX] = '\0';
	ck_assert_int_eq(note_name_ok(name, NOTE_NAME_MAX), 1);
	ck_assert_int_eq(note_keyid(&id, name, k), 0);
	ck_assert_int_eq(note_name_ok(name, NOTE_NAME_MAX + 1), 0);
	name[NOTE_NAME_MAX] = 'n';
	name[NOTE_NAME_MAX + 1] = '\0';
	ck_refused(note_keyid(&id, name, k), AL_EINVAL,
	    "note key: the key name is longer than 255 bytes");
	sg.name = "a b";
	ck_refused(note_sign(&s, &len, "a\n", 2, &sg, 1), AL_EINVAL,
	    "note signer: the key name holds a space");
	ck_refused(note_keyid(&id, "ok", NULL), AL_EINVAL,
	    "note key: not an Ed25519 key");
	/* A signature line naming a longer key is no known key's: ignored. */
	{
		struct note_verifier v;
		char *line = cat(EM " ", name + 1, "n x08go/ZJkuBS\n", NULL);
		char *note = sign1(TEXT, "ok", k);

		s = cat(TEXT "\n", line, note + strlen(TEXT) + 1, NULL);
		verifier(&v, "ok", k);
		ck_assert_int_eq(verify(s, &v, 1, NULL, &len), 0);
		ck_assert_uint_eq(len, 1);
		note_verifier_clear(&v);
		free(s);
		free(note);
		free(line);
	}
	EVP_PKEY_free(k);
}
END_TEST

/* Two keys sign; either, both or neither is known. */
START_TEST(t_two_keys)
{
	const char *names[2] = { "example.com/log", "witness.example/w1" };
	EVP_PKEY *keys[2] = { new_key(), new_key() };
	struct note_verifier v[2];
	char *s = sign_n(TEXT, names, keys, 2);
	size_t tl, nv, len;
	struct note_signer same[2] = { { names[0], keys[0] },
	    { names[0], keys[0] } };

	verifier(&v[0], names[0], keys[0]);
	verifier(&v[1], names[1], keys[1]);
	ck_assert_int_eq(verify(s, v, 2, &tl, &nv), 0);
	ck_assert_uint_eq(nv, 2);
	ck_assert_uint_eq(tl, strlen(TEXT));
	ck_assert_int_eq(verify(s, v, 1, &tl, &nv), 0);
	ck_assert_uint_eq(nv, 1);
	ck_assert_int_eq(verify(s, v + 1, 1, &tl, &nv), 0);
	ck_assert_uint_eq(nv, 1);
	ck_refused(verify(s, NULL, 0, NULL, NULL), AL_ENOTFOUND,
	    "(signatures: 2, known keys: 0)");
	/* One key twice is refused at signing. */
	{
		char *o = NULL;

		ck_refused(note_sign(&o, &len, TEXT, strlen(TEXT), same, 2),
		    AL_EINVAL, "note: signers 1 and 2 are the same key "
		    "(example.com/log+");
		ck_assert_ptr_null(o);
	}
	free(s);
	note_verifier_clear(&v[0]);
	note_verifier_clear(&v[1]);
	EVP_PKEY_free(keys[0]);
	EVP_PKEY_free(keys[1]);
}
END_TEST

/* Key rotation: a note signed by the retired key verifies while the
 * verifier set still holds it beside the new one, and not after; a note
 * signed by both during the change verifies with either set. */
START_TEST(t_rotation)
{
	EVP_PKEY *old = new_key(), *cur = new_key();
	struct note_verifier v[2];
	char *by_old = sign1(TEXT, "example.com/log", old);
	char *by_cur = sign1(TEXT, "example.com/log", cur);
	const char *names[2] = { "example.com/log", "example.com/log" };
	EVP_PKEY *both_keys[2] = { cur, old };
	char *both = sign_n(TEXT, names, both_keys, 2);
	size_t nv;

	verifier(&v[0], "example.com/log", cur);
	verifier(&v[1], "example.com/log", old);
	ck_assert_uint_ne(v[0].id, v[1].id);
	ck_assert_int_eq(verify(by_old, v, 2, NULL, &nv), 0);
	ck_assert_uint_eq(nv, 1);
	ck_assert_int_eq(verify(by_cur, v, 2, NULL, &nv), 0);
	ck_assert_uint_eq(nv, 1);
	ck_refused(verify(by_old, v, 1, NULL, NULL), AL_ENOTFOUND,
	    "note: no signature by a known key");
	ck_assert_int_eq(verify(both, v, 1, NULL, &nv), 0);
	ck_assert_int_eq(verify(both, v + 1, 1, NULL, &nv), 0);
	ck_assert_int_eq(verify(both, v, 2, NULL, &nv), 0);
	ck_assert_uint_eq(nv, 2);
	free(by_old);
	free(by_cur);
	free(both);
	note_verifier_clear(&v[0]);
	note_verifier_clear(&v[1]);
	EVP_PKEY_free(old);
	EVP_PKEY_free(cur);
}
END_TEST

/* A key's second signature is dropped unread, as the reference does: good
 * then bad verifies, bad then good does not. */
START_TEST(t_repeat_by_one_key)
{
	EVP_PKEY *k = new_key();
	struct note_verifier v;
	char *good = sign1(TEXT, "example.com/log", k), *line, *bad, *s;
	size_t nv;

	line = good + strlen(TEXT) + 1;
	bad = strdup(line);
	bad[strlen(bad) - 10] = bad[strlen(bad) - 10] == 'A' ? 'B' : 'A';
	verifier(&v, "example.com/log", k);
	s = cat(TEXT "\n", line, bad, NULL);
	ck_assert_int_eq(verify(s, &v, 1, NULL, &nv), 0);
	ck_assert_uint_eq(nv, 1);
	free(s);
	s = cat(TEXT "\n", bad, line, NULL);
	ck_refused(verify(s, &v, 1, NULL, NULL), AL_EINVAL,
	    "note: line 4: signature by example.com/log");
	free(s);
	free(bad);
	free(good);
	note_verifier_clear(&v);
	EVP_PKEY_free(k);
}
END_TEST

/* The limits: the whole note, one signature line. */
START_TEST(t_note_limits)
{
	struct note_verifier peter;
	char *big, *s;
	size_t n;

	vkey(&peter, PETER_VKEY);
	n = NOTE_MAX_BYTES + 1;
	big = malloc(n);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', n);
	ck_refused(note_verify(&n, &n, big, NOTE_MAX_BYTES + 1, &peter, 1),
	    AL_ELIMIT, "note: longer than 1048576 bytes");
	free(big);
	/* A signature line of 8,192 bytes (an unknown key's) is read, one of
	 * 8,193 is not. */
	big = repeat("A", NOTE_MAX_SIG_LINE - 4 - 3 - 1);
	s = cat(TEXT "\n", PETER_SIG, EM " xyz ", big, "\n", NULL);
	ck_assert_int_eq(verify(s, &peter, 1, NULL, NULL), 0);
	free(s);
	s = cat(TEXT "\n", PETER_SIG, EM " xyzw ", big, "\n", NULL);
	ck_refused(verify(s, &peter, 1, NULL, NULL), AL_ELIMIT,
	    "note: line 5: a signature line of more than 8192 bytes");
	free(s);
	free(big);
	note_verifier_clear(&peter);
}
END_TEST

/* The parsers read nothing past the length given: the input's last byte
 * is the last readable byte of a page. */
START_TEST(t_no_read_past_end)
{
	static const char *const inputs[] = {
		TEXT "\n" PETER_SIG, TEXT "\n" PETER_SIG "x", TEXT,
		TEXT "\n" EM, C2SP_CP_TEXT, "example.com/x\n5\nCsUYapGGPo4dkMgI",
		"a", "\xe2",
	};
	struct note_verifier peter, vk;
	struct checkpoint c;
	size_t i, tl, nv, maplen;

	vkey(&peter, PETER_VKEY);
	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		char *map, *p = tu_at_page_end(inputs[i], strlen(inputs[i]), &map,
		    &maplen);

		(void)note_verify(&tl, &nv, p, strlen(inputs[i]), &peter, 1);
		if (checkpoint_parse(&c, p, strlen(inputs[i])) == 0)
			checkpoint_clear(&c);
		if (note_vkey_parse(&vk, p, strlen(inputs[i])) == 0)
			note_verifier_clear(&vk);
		munmap(map, maplen);
	}
	/* The first one verified where it lay. */
	{
		char *map, *p = tu_at_page_end(inputs[0], strlen(inputs[0]), &map,
		    &maplen);

		ck_assert_int_eq(note_verify(&tl, &nv, p, strlen(inputs[0]),
		    &peter, 1), 0);
		munmap(map, maplen);
	}
	note_verifier_clear(&peter);
}
END_TEST

/* --- checkpoints --------------------------------------------------------- */

/* tlog-checkpoint.md's example parses into what it says, and formats back
 * byte for byte. */
START_TEST(t_c2sp_checkpoint)
{
	unsigned char want[33];
	struct checkpoint c;
	char *s;
	size_t len;

	ck_assert_int_eq(EVP_DecodeBlock(want, (const unsigned char *)
	    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=", 44), 33);
	ck_assert_int_eq(checkpoint_parse(&c, C2SP_CP_TEXT,
	    strlen(C2SP_CP_TEXT)), 0);
	ck_assert_str_eq(c.origin, "example.com/behind-the-sofa");
	ck_assert_uint_eq(c.size, 20852163);
	ck_assert_mem_eq(c.root, want, 32);
	ck_assert_ptr_null(c.extensions);
	ck_assert_int_eq(checkpoint_format(&s, &len, &c), 0);
	ck_assert_str_eq(s, C2SP_CP_TEXT);
	ck_assert_uint_eq(len, strlen(C2SP_CP_TEXT));
	free(s);
	checkpoint_clear(&c);
	checkpoint_clear(&c);
	/* The whole note is not a checkpoint text: its blank line is an
	 * empty extension line. */
	ck_refused(checkpoint_parse(&c, C2SP_CP, strlen(C2SP_CP)), AL_EINVAL,
	    "checkpoint: line 4: an empty extension line");
	ck_assert_ptr_null(c.origin);
}
END_TEST

/* Build, sign, verify, parse the signed text: the same checkpoint, for the
 * empty tree, the largest size, and with extension lines. */
START_TEST(t_checkpoint_roundtrip)
{
	static const struct {
		const char *origin;
		uint64_t size;
		const char *ext;
	} cases[] = {
		{ "airlock.example/audit", 0, NULL },
		{ "airlock.example/audit", 1, NULL },
		{ "airlock.example/audit", INT64_MAX, NULL },
		{ "an origin with spaces + pluses \xc3\xa8", 1234567, NULL },
		{ "airlock.example/audit", 42, "ext one\n\xe2\x80\x94 two\n" },
	};
	EVP_PKEY *k = new_key();
	struct note_verifier v;
	size_t i, j;

	verifier(&v, "airlock.example/audit", k);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct checkpoint c = {0}, back;
		char *text, *note;
		size_t len, tl, nv;

		c.origin = (char *)cases[i].origin;
		c.size = cases[i].size;
		c.extensions = (char *)cases[i].ext;
		for (j = 0; j < 32; j++)
			c.root[j] = (uint8_t)(i * 32 + j * 7);
		ck_assert_msg(checkpoint_format(&text, &len, &c) == 0, "%s",
		    al_err_msg());
		note = sign1(text, "airlock.example/audit", k);
		ck_assert_int_eq(verify(note, &v, 1, &tl, &nv), 0);
		ck_assert_uint_eq(tl, len);
		ck_assert_int_eq(checkpoint_parse(&back, note, tl), 0);
		ck_assert_str_eq(back.origin, c.origin);
		ck_assert_uint_eq(back.size, c.size);
		ck_assert_mem_eq(back.root, c.root, 32);
		if (c.extensions == NULL)
			ck_assert_ptr_null(back.extensions);
		else
			ck_assert_str_eq(back.extensions, c.extensions);
		checkpoint_clear(&back);
		free(note);
		free(text);
	}
	note_verifier_clear(&v);
	EVP_PKEY_free(k);
}
END_TEST

/* The tree size line, strictly: decimal digits, no sign, no leading zero,
 * at most 2^63-1. */
START_TEST(t_checkpoint_numbers)
{
	static const struct {
		const char *size, *msg;
	} bad[] = {
		{ "+5", "line 2: the tree size is not decimal digits only" },
		{ "-1", "line 2: the tree size is not decimal digits only" },
		{ " 5", "line 2: the tree size is not decimal digits only" },
		{ "5 ", "line 2: the tree size is not decimal digits only" },
		{ "0x10", "line 2: the tree size is not decimal digits only" },
		{ "1e3", "line 2: the tree size is not decimal digits only" },
		{ "\xd9\xa5", "line 2: the tree size is not decimal digits only" },
		{ "", "line 2: the tree size is empty" },
		{ "05", "line 2: the tree size has a leading zero" },
		{ "00", "line 2: the tree size has a leading zero" },
		{ "9223372036854775808", "line 2: the tree size is larger than "
		  "2^63-1" },
		{ "18446744073709551616", "line 2: the tree size is larger than "
		  "2^63-1" },
		{ "99999999999999999999999", "line 2: the tree size is larger "
		  "than 2^63-1" },
	};
	static const struct {
		const char *size;
		uint64_t v;
	} good[] = {
		{ "0", 0 }, { "1", 1 }, { "10", 10 },
		{ "9223372036854775807", 9223372036854775807ull },
	};
	struct checkpoint c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = cat("o\n", bad[i].size, "\n"
		    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", NULL);

		ck_refused(checkpoint_parse(&c, t, strlen(t)), AL_EINVAL,
		    bad[i].msg);
		free(t);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *t = cat("o\n", good[i].size, "\n"
		    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", NULL);

		ck_assert_int_eq(checkpoint_parse(&c, t, strlen(t)), 0);
		ck_assert_uint_eq(c.size, good[i].v);
		checkpoint_clear(&c);
		free(t);
	}
	/* Formatting refuses what parsing would. */
	{
		struct checkpoint f = { (char *)"o", (uint64_t)INT64_MAX + 1, {0},
		    NULL };
		char *s;
		size_t len;

		ck_refused(checkpoint_format(&s, &len, &f), AL_EINVAL,
		    "checkpoint: a tree size larger than 2^63-1");
		ck_assert_ptr_null(s);
	}
}
END_TEST

/* The root hash line: canonical base64 of exactly 32 bytes. */
START_TEST(t_checkpoint_root)
{
	static const struct {
		const char *root, *msg;
	} bad[] = {
		{ "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I", "line 3: the root "
		  "hash is 43 characters, not the 44 of base64 of 32 bytes" },
		{ "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I==", "line 3: the "
		  "root hash is 45 characters" },
		{ "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2J=", "line 3: the "
		  "root hash is not canonical standard base64" },
		{ "CsUYapGGPo4dkMgIAUqom_Xajj7h2fB2MPA3j2jxq2I=", "line 3: the "
		  "root hash is not canonical standard base64" },
		{ "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jx q2I", "line 3: the "
		  "root hash is not canonical standard base64" },
		{ "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxqw==", "line 3: the "
		  "root hash is 31 bytes, not 32" },
		{ "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2Iz", "line 3: the "
		  "root hash is 33 bytes, not 32" },
		{ "", "line 3: the root hash is 0 characters" },
	};
	struct checkpoint c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = cat("o\n7\n", bad[i].root, "\n", NULL);

		ck_refused(checkpoint_parse(&c, t, strlen(t)), AL_EINVAL,
		    bad[i].msg);
		free(t);
	}
}
END_TEST

/* The rest of the structure: the final newline, three lines, a non-empty
 * origin without control characters, non-empty extension lines. */
START_TEST(t_checkpoint_structure)
{
	static const struct {
		const char *text, *msg;
		int code;
	} bad[] = {
		{ "", "checkpoint: empty", AL_EINVAL },
		{ C2SP_CP_TEXT "ext", "checkpoint: the text does not end with a "
		  "newline", AL_EINVAL },
		{ "o\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=",
		  "checkpoint: the text does not end with a newline", AL_EINVAL },
		{ "o\n7\n", "checkpoint: no line 3 (the root hash)", AL_EINVAL },
		{ "o\n", "checkpoint: no line 2 (the tree size)", AL_EINVAL },
		{ "\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
		  "checkpoint: line 1: the origin is empty", AL_EINVAL },
		{ "o\x7fk\x01\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
		  "checkpoint: line 1: control character 0x01 at byte 3",
		  AL_EINVAL },
		{ "o\xff\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
		  "checkpoint: line 1: not UTF-8 at byte 1", AL_EINVAL },
		{ C2SP_CP_TEXT "\n", "checkpoint: line 4: an empty extension line",
		  AL_EINVAL },
		{ C2SP_CP_TEXT "a\nb\n\nc\n", "checkpoint: line 6: an empty "
		  "extension line", AL_EINVAL },
		{ C2SP_CP_TEXT "a\tb\n", "checkpoint: line 4: control character "
		  "0x09", AL_EINVAL },
	};
	struct checkpoint c;
	char *origin, *t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_refused(checkpoint_parse(&c, bad[i].text, strlen(bad[i].text)),
		    bad[i].code, bad[i].msg);
	/* The origin's bound: 1,024 bytes are read, 1,025 are not. */
	origin = repeat("o", CHECKPOINT_ORIGIN_MAX);
	t = cat(origin, "\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
	    NULL);
	ck_assert_int_eq(checkpoint_parse(&c, t, strlen(t)), 0);
	checkpoint_clear(&c);
	free(t);
	t = cat(origin, "o\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
	    NULL);
	ck_refused(checkpoint_parse(&c, t, strlen(t)), AL_ELIMIT,
	    "checkpoint: line 1: an origin of more than 1024 bytes");
	free(t);
	free(origin);
	/* Extension lines are kept as they are. */
	t = C2SP_CP_TEXT "one\n two \n";
	ck_assert_int_eq(checkpoint_parse(&c, t, strlen(t)), 0);
	ck_assert_str_eq(c.extensions, "one\n two \n");
	checkpoint_clear(&c);
	/* Formatting: an origin of two lines would smuggle in fields. */
	{
		struct checkpoint f = { (char *)"o\n5", 7, {0}, NULL };
		char *s;
		size_t len;

		ck_refused(checkpoint_format(&s, &len, &f), AL_EINVAL,
		    "checkpoint: the origin is more than one line");
		f.origin = (char *)"";
		ck_refused(checkpoint_format(&s, &len, &f), AL_EINVAL,
		    "checkpoint: line 1: the origin is empty");
		f.origin = NULL;
		ck_refused(checkpoint_format(&s, &len, &f), AL_EINVAL,
		    "checkpoint: the origin is missing");
		f.origin = (char *)"o";
		f.extensions = (char *)"no newline";
		ck_refused(checkpoint_format(&s, &len, &f), AL_EINVAL,
		    "checkpoint: the text does not end with a newline");
		f.extensions = (char *)"a\n\nb\n";
		ck_refused(checkpoint_format(&s, &len, &f), AL_EINVAL,
		    "checkpoint: line 5: an empty extension line");
		ck_assert_ptr_null(s);
		f.extensions = (char *)"";
		ck_assert_int_eq(checkpoint_format(&s, &len, &f), 0);
		ck_assert_str_eq(s, "o\n7\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
		free(s);
	}
}
END_TEST

static Suite *
note_suite(void)
{
	Suite *s = suite_create("note");
	TCase *ref = tcase_create("reference");
	TCase *own = tcase_create("note");
	TCase *cp = tcase_create("checkpoint");

	tcase_add_test(ref, t_vkey_vectors);
	tcase_add_test(ref, t_skey_vector);
	tcase_add_test(ref, t_sign_vector);
	tcase_add_test(ref, t_open_vector);
	tcase_add_test(ref, t_vkey_manglings);
	tcase_add_test(ref, t_open_reference_cases);
	tcase_add_test(ref, t_attest_keys);
	tcase_add_test(ref, t_c2sp_examples);
	suite_add_tcase(s, ref);
	tcase_set_timeout(own, 60);
	tcase_add_test(own, t_sign_verify);
	tcase_add_test(own, t_tampered);
	tcase_add_test(own, t_wrong_name_or_id);
	tcase_add_test(own, t_malformed_sig_lines);
	tcase_add_test(own, t_text_faults);
	tcase_add_test(own, t_names);
	tcase_add_test(own, t_two_keys);
	tcase_add_test(own, t_rotation);
	tcase_add_test(own, t_repeat_by_one_key);
	tcase_add_test(own, t_note_limits);
	tcase_add_test(own, t_no_read_past_end);
	suite_add_tcase(s, own);
	tcase_add_test(cp, t_c2sp_checkpoint);
	tcase_add_test(cp, t_checkpoint_roundtrip);
	tcase_add_test(cp, t_checkpoint_numbers);
	tcase_add_test(cp, t_checkpoint_root);
	tcase_add_test(cp, t_checkpoint_structure);
	suite_add_tcase(s, cp);
	return s;
}

int
main(void)
{
	return tu_run(note_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
