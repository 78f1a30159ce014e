/*
 * util.c - hashing, entropy, UTF-8 and bounded reads; see util.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "err.h"
#include "util.h"

static const EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void
sha256_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (sha256_md == NULL)
		sha256_md = EVP_sha256();
}

const void *
al_sha256_md(void)
{
	AL_ASSERT(pthread_once(&sha256_once, sha256_fetch) == 0 &&
	    sha256_md != NULL);
	return sha256_md;
}

void
al_sha256_hex(char out[AL_SHA256_HEX], const void *p, size_t n)
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	/* libcrypto that cannot hash leaves nothing safe to go on with. */
	AL_ASSERT(EVP_Digest(p, n, md, &mdlen, al_sha256_md(), NULL) == 1 &&
	    mdlen == sizeof(md));
	al_hex(out, md, sizeof(md));
}

void
al_hex(char *out, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[p[i] >> 4];
		out[2 * i + 1] = hex[p[i] & 15];
	}
	out[2 * n] = '\0';
}

void
al_hash_begin(struct al_hash *h)
{
	h->md = EVP_MD_CTX_new();
	AL_ASSERT(h->md != NULL &&
	    EVP_DigestInit_ex(h->md, al_sha256_md(), NULL) == 1);
}

void
al_hash_add(struct al_hash *h, const void *p, size_t n)
{
	AL_ASSERT(EVP_DigestUpdate(h->md, p, n) == 1);
}

void
al_hash_addz(struct al_hash *h, const char *s)
{
	al_hash_add(h, s, strlen(s) + 1);
}

void
al_hash_end(struct al_hash *h, char out[AL_SHA256_HEX])
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	AL_ASSERT(EVP_DigestFinal_ex(h->md, md, &mdlen) == 1 &&
	    mdlen == sizeof(md));
	EVP_MD_CTX_free(h->md);
	h->md = NULL;
	al_hex(out, md, sizeof(md));
}

int
al_sha256_fd(int fd, char out[AL_SHA256_HEX])
{
	unsigned char buf[65536], md[32];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	ssize_t n;

	out[0] = '\0';
	if (ctx == NULL || EVP_DigestInit_ex(ctx, al_sha256_md(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		AL_ASSERT(EVP_DigestUpdate(ctx, buf, (size_t)n) == 1);
	}
	if (n < 0 || EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
		int e = errno;

		EVP_MD_CTX_free(ctx);
		return al_err_set(AL_EIO, "reading to hash: %s", n < 0 ?
		    strerror(e) : "libcrypto failed");
	}
	EVP_MD_CTX_free(ctx);
	al_hex(out, md, sizeof(md));
	return 0;
}

double
al_entropy(const unsigned char *p, size_t n)
{
	size_t counts[256] = {0};
	double h = 0.0;
	size_t i;

	if (n == 0)
		return 0.0;
	for (i = 0; i < n; i++)
		counts[p[i]]++;
	for (i = 0; i < 256; i++) {
		double f;

		if (counts[i] == 0)
			continue;
		f = (double)counts[i] / (double)n;
		h -= f * log2(f);
	}
	return h;
}

size_t
al_utf8_seq(const unsigned char *p, size_t n, uint32_t *cp_out)
{
	uint32_t cp;
	size_t len, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp_out = p[0];
		return 1;
	} else if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*cp_out = cp;
	return len;
}

size_t
al_utf8_count(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, count = 0;
	uint32_t cp;

	while (i < n) {
		size_t len = al_utf8_seq(u + i, n - i, &cp);

		i += len ? len : 1;
		count++;
	}
	return count;
}

int
al_utf8_sanitize(struct dynbuf *out, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, run = 0;
	uint32_t cp;
	int rc;

	while (i + run < n) {
		size_t len = al_utf8_seq(u + i + run, n - i - run, &cp);

		if (len > 0 && cp != 0) {
			run += len;
			continue;
		}
		if ((rc = dynbuf_add(out, p + i, run)) < 0)
			return rc;
		/* NUL is valid UTF-8 but breaks C consumers; replace it too. */
		if ((rc = dynbuf_add(out, "\xef\xbf\xbd", 3)) < 0)
			return rc;
		i += run + 1;
		run = 0;
	}
	return dynbuf_add(out, p + i, run);
}

int
al_is_deceptive_cp(uint32_t cp)
{
	return (cp >= 0x200b && cp <= 0x200f) || /* zero-width, LRM, RLM */
	    (cp >= 0x202a && cp <= 0x202e) ||    /* bidi embeddings, overrides */
	    (cp >= 0x2060 && cp <= 0x2069) ||    /* word joiner, bidi isolates */
	    cp == 0x061c || cp == 0xfeff || cp == 0x00ad ||
	    (cp >= 0xe0000 && cp <= 0xe007f);    /* tag characters */
}

int
al_term_escape(struct dynbuf *out, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0;
	uint32_t cp;
	int rc = 0;

	while (i < n && rc == 0) {
		size_t len = al_utf8_seq(u + i, n - i, &cp);

		if (len == 0) {
			rc = dynbuf_addf(out, "\\x%02x", u[i]);
			len = 1;
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			rc = cp == '\t' ? dynbuf_addc(out, ' ') :
			    dynbuf_addf(out, "\\x%02x", (unsigned)cp);
		} else if (al_is_deceptive_cp(cp)) {
			rc = dynbuf_addf(out, "<U+%04X>", (unsigned)cp);
		} else {
			rc = dynbuf_add(out, p + i, len);
		}
		i += len;
	}
	return rc;
}

int
al_read_file(const char *path, size_t max, char **out, size_t *len_out)
{
	struct dynbuf b;
	char chunk[65536];
	int fd, rc = 0;
	ssize_t n;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	dynbuf_init(&b, max);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (dynbuf_add(&b, chunk, (size_t)n) < 0) {
			rc = al_err_set(AL_ELIMIT, "%s: larger than %zu bytes",
			    path, max);
			break;
		}
	}
	close(fd);
	if (rc < 0) {
		dynbuf_free(&b);
		return rc;
	}
	*out = dynbuf_take(&b, len_out);
	return 0;
}

const char *
al_memcasemem(const char *hay, size_t hn, const char *needle, size_t nn)
{
	size_t i, j;

	if (nn == 0)
		return hay;
	if (hn < nn)
		return NULL;
	for (i = 0; i + nn <= hn; i++) {
		for (j = 0; j < nn; j++)
			if (al_lower((unsigned char)hay[i + j]) !=
			    al_lower((unsigned char)needle[j]))
				break;
		if (j == nn)
			return hay + i;
	}
	return NULL;
}

int
al_parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return AL_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > (unsigned long long)(size_t)-1)
		return AL_EINVAL;
	*out = (size_t)v;
	return 0;
}

int
al_parse_bytes(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return AL_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return AL_EINVAL;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: return AL_EINVAL;
	}
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return AL_EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int
al_is_hex(const char *s, size_t n)
{
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == '\0';
}
