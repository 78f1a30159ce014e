/*
 * scan_alias.c - the alias view: names a file gives to watched modules,
 * functions and commands, written out where it uses them (scan_alias.h).
 *
 * The reader is line based and the same for every language: a line is
 * tried as each form of definition in turn (import, from-import, Go's
 * import block, require, destructuring, assignment of a dotted name, of
 * getattr/__import__/method(:x), of a string or a command, shell and
 * PowerShell aliases); what does not parse as one is no definition. A
 * definition is kept only if its target is watched (the lists below),
 * after its first name is replaced by that name's own target if it is an
 * alias already.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bytes16.h"
#include "scan_alias.h"

enum { AK_NAME = 1, AK_VAR, AK_CMD };

struct alias {
	char name[ALIAS_NAME_MAX + 1];
	unsigned char nlen, kind, nalt;
	char target[ALIAS_ALTS][ALIAS_TARGET_MAX + 1];
	unsigned char tlen[ALIAS_ALTS];
};

#define ALIAS_SLOTS 512u /* open addressing, a power of two above MAX */

struct alias_set {
	struct alias *v;
	size_t n, cap;
	unsigned maxalt;
	int slot[ALIAS_SLOTS];
	/* What the names start with (a bit per kind) and how long they are
	 * (bit l - 1 for length l): most words of a line are no name, and
	 * are told so without hashing them (may_be_name). */
	unsigned char first[256];
	uint64_t lens;
};

/* ---- what is watched ------------------------------------------------------ */

/* Modules and objects whose members the rules watch (the first name of a
 * dotted target): Python, JavaScript, Go, Ruby, Java, Rust. In strcmp
 * order (searched by halves; check_alias checks the order). */
static const char *const roots[] = {
	"Base64", "Buffer", "Dir", "ENV", "Etc", "File", "Function", "IO",
	"Kernel", "Marshal", "Net", "ObjectSpace", "Open3", "Process",
	"ProcessBuilder", "Resolv", "Runtime", "Socket", "System",
	"TCPSocket", "URI", "WebSocket", "XMLHttpRequest", "Zlib",
	"__builtin__", "__builtins__", "_pickle", "_winreg", "aiohttp",
	"asyncio", "atob", "axios", "base64", "binascii", "builtins",
	"bz2", "cPickle", "child_process", "code", "codecs", "codeop",
	"commands", "ctypes", "dgram", "dill", "dns", "document", "exec",
	"execa", "fetch", "fs", "ftplib", "getpass", "global",
	"globalThis", "got", "gzip", "hex", "http", "http2", "httplib",
	"httplib2", "https", "httpx", "imp", "importlib", "io", "ioutil",
	"localStorage", "lzma", "marshal", "mmap", "multiprocessing",
	"navigator", "needle", "net", "node-fetch", "nt", "os", "paramiko",
	"pexpect", "pickle", "platform", "plumbum", "popen2", "posix",
	"process", "pty", "pycurl", "request", "requests", "require",
	"runpy", "runtime", "sh", "shelljs", "shelve", "shutil", "smtplib",
	"socket", "ssl", "std", "subprocess", "superagent", "syscall",
	"telnetlib",
	"tempfile", "tls", "undici", "urllib", "urllib2", "urllib3", "user",
	"vm", "webbrowser", "win32api", "win32com", "window", "winreg",
	"zipfile", "zlib",
};

/* Functions watched by their own name (a whole target). */
static const char *const builtins[] = {
	"Function", "__import__", "assert", "atob", "base64_decode",
	"call_user_func", "chmod", "compile", "create_function",
	"curl_exec", "curl_init", "eval", "exec", "execSync", "execfile",
	"file_get_contents", "file_put_contents", "fopen", "fsockopen",
	"fwrite", "getattr", "getenv", "globals", "gzinflate",
	"gzuncompress", "import_module", "locals", "open", "passthru",
	"pcntl_exec", "popen", "proc_open", "require", "setTimeout",
	"shell_exec", "spawn", "str_rot13", "system", "vars",
};

/* Commands (shell, PowerShell, Windows), compared without case; in lower
 * case and strcmp order (searched by halves; check_alias checks). */
static const char *const commands[] = {
	"add-type", "base32", "base64", "bash", "bitsadmin", "busybox",
	"certutil", "chmod", "cmd", "crontab", "csh", "curl", "dash", "dd",
	"dig", "env", "eval", "exec", "fish", "ftp", "gcm", "gpg", "host",
	"icm", "iex", "invoke-command", "invoke-expression", "invoke-item",
	"invoke-restmethod", "invoke-webrequest", "irm", "iwr", "ksh",
	"launchctl", "mkfifo", "mshta", "nc", "ncat", "netcat",
	"new-object", "node", "nohup", "nslookup", "openssl", "osascript",
	"perl", "php", "powershell", "printenv", "pwsh", "python",
	"python2", "python3", "regsvr32", "ruby", "rundll32", "saps",
	"schtasks", "scp", "setsid", "sftp", "sh", "socat", "source",
	"ssh", "start-bitstransfer", "start-process", "sudo", "systemctl",
	"tcsh", "telnet", "tftp", "wget", "wmic", "xargs", "xxd", "zsh",
};

/* Targets under a watched root that nothing watches. */
static const char *const dull[] = {
	"os.path", "process.argv", "process.cwd", "process.exit",
	"process.nextTick", "process.platform", "process.stdout",
	"process.stderr", "window.location", "document.getElementById",
	"document.querySelector", "document.createElement",
};

/*
 * Is the n bytes at s one of the nv words of v, which are in strcmp order
 * (with icase, in lower case too, and s's ASCII case is ignored)? s may
 * hold any byte, NUL too: lengths, not terminators.
 */
static int
in_sorted(const char *const *v, size_t nv, const char *s, size_t n,
    int icase)
{
	size_t lo = 0, hi = nv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i;
		int c;

		/* v[mid] against s, byte by byte, a prefix first (no strlen:
		 * most words differ at their first byte) */
		for (i = 0;; i++) {
			unsigned char x = (unsigned char)v[mid][i], y;

			if (x == '\0') {
				c = i < n ? -1 : 0;
				break;
			}
			if (i == n) {
				c = 1;
				break;
			}
			y = (unsigned char)s[i];
			if (icase && y >= 'A' && y <= 'Z')
				y = (unsigned char)(y + ('a' - 'A'));
			if (x != y) {
				c = x > y ? 1 : -1;
				break;
			}
		}
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Which (length, first letter) and (length, last letter) pairs the watched
 * words of all three lists have, letters without case, lengths and
 * letters taken modulo 32: most words a line offers are none of them and
 * are told so before a search by halves (in_sorted). Made once, before
 * main (and so before any worker thread or the sandbox).
 */
static uint32_t wfirst[32], wlast[32];

/* Bit 1: a byte that starts a name (ASCII letter, `_`, `$`); bit 2: one
 * that continues it (those and digits). Made with the tables above. */
static unsigned char idbyte[256];

static void
wbloom_add(const char *const *v, size_t nv)
{
	size_t i, n;

	for (i = 0; i < nv; i++) {
		n = strlen(v[i]);
		wfirst[n & 31] |= 1u << (((unsigned char)v[i][0] | 0x20) & 31);
		wlast[n & 31] |= 1u << (((unsigned char)v[i][n - 1] | 0x20) & 31);
	}
}

__attribute__((constructor)) static void
wbloom_init(void)
{
	unsigned c;

	for (c = 0; c < 256; c++) {
		int start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    c == '_' || c == '$';

		idbyte[c] = (unsigned char)((start ? 3 : 0) |
		    (c >= '0' && c <= '9' ? 2 : 0));
	}
	wbloom_add(roots, NELEM(roots));
	wbloom_add(builtins, NELEM(builtins));
	wbloom_add(commands, NELEM(commands));
}

/* Can the n bytes at s (n > 0) be a word of one of the lists? */
static inline int
may_be_watched(const char *s, size_t n)
{
	return (wfirst[n & 31] >> (((unsigned char)s[0] | 0x20) & 31) & 1) &&
	    (wlast[n & 31] >> (((unsigned char)s[n - 1] | 0x20) & 31) & 1);
}

/* in_sorted of one of the three lists, after may_be_watched. */
static int
listed(const char *const *v, size_t nv, const char *s, size_t n, int icase)
{
	return n > 0 && may_be_watched(s, n) && in_sorted(v, nv, s, n, icase);
}

/* A dotted target (a.b.c, a::b) whose first name is watched. */
static int
watched_target(const char *t, size_t n)
{
	size_t r = 0, i;

	while (r < n && t[r] != '.' && t[r] != ':')
		r++;
	if (r == n)
		return listed(builtins, NELEM(builtins), t, n, 0) ||
		    listed(roots, NELEM(roots), t, n, 0);
	if (!listed(roots, NELEM(roots), t, r, 0))
		return 0;
	for (i = 0; i < NELEM(dull); i++) {
		size_t l = strlen(dull[i]);

		if (n >= l && memcmp(t, dull[i], l) == 0 &&
		    (n == l || t[l] == '.'))
			return 0;
	}
	return 1;
}

/* A command line whose first word (its file name, for a path) is one. */
static int
watched_command(const char *t, size_t n)
{
	size_t e = 0, s;

	while (e < n && t[e] != ' ' && t[e] != '\t')
		e++;
	for (s = e; s > 0 && t[s - 1] != '/' && t[s - 1] != '\\'; s--)
		;
	if (e - s > 4 && strncasecmp(t + e - 4, ".exe", 4) == 0)
		e -= 4;
	return e > s && listed(commands, NELEM(commands), t + s, e - s, 1);
}

int
scan_alias_lists_ok(void)
{
	size_t i;

	for (i = 1; i < NELEM(roots); i++)
		if (strcmp(roots[i - 1], roots[i]) >= 0)
			return 0;
	for (i = 1; i < NELEM(builtins); i++)
		if (strcmp(builtins[i - 1], builtins[i]) >= 0)
			return 0;
	for (i = 0; i < NELEM(commands); i++) {
		char up[32];
		size_t k, n = strlen(commands[i]);

		if (i > 0 && strcmp(commands[i - 1], commands[i]) >= 0)
			return 0;
		if (n >= sizeof(up))
			return 0;
		for (k = 0; k <= n; k++) {
			char c = commands[i][k];

			if (c >= 'A' && c <= 'Z')
				return 0;
			up[k] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
		}
		if (!watched_command(commands[i], n) || !watched_command(up, n))
			return 0;
	}
	for (i = 0; i < NELEM(roots); i++)
		if (!listed(roots, NELEM(roots), roots[i], strlen(roots[i]), 0))
			return 0;
	for (i = 0; i < NELEM(builtins); i++)
		if (!listed(builtins, NELEM(builtins), builtins[i],
		    strlen(builtins[i]), 0))
			return 0;
	return 1;
}

/* ---- the set ---------------------------------------------------------------- */

static uint32_t
hash(const char *s, size_t n, unsigned kind)
{
	uint32_t h = 2166136261u ^ kind;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Can the n bytes at s be a name of one of the kinds (a bit each)? */
static int
may_be_name(const struct alias_set *as, const char *s, size_t n,
    unsigned kinds)
{
	return n > 0 && n <= ALIAS_NAME_MAX &&
	    (as->first[(unsigned char)s[0]] & kinds) != 0 &&
	    ((as->lens >> (n - 1)) & 1) != 0;
}

static struct alias *
find(const struct alias_set *as, const char *s, size_t n, unsigned kind)
{
	uint32_t h = hash(s, n, kind) & (ALIAS_SLOTS - 1);
	unsigned probe;

	if (n == 0 || n > ALIAS_NAME_MAX)
		return NULL;
	for (probe = 0; probe < ALIAS_SLOTS; probe++) {
		int k = as->slot[(h + probe) & (ALIAS_SLOTS - 1)];
		struct alias *a;

		if (k < 0)
			return NULL;
		a = &as->v[k];
		if (a->kind == kind && a->nlen == n &&
		    memcmp(a->name, s, n) == 0)
			return a;
	}
	return NULL;
}

/* Adds target t to name s; -1 only when out of memory. */
static int
add(struct alias_set *as, unsigned kind, const char *s, size_t n,
    const char *t, size_t tn)
{
	struct alias *a;
	uint32_t h;
	unsigned i;

	if (n == 0 || n > ALIAS_NAME_MAX || tn == 0 || tn > ALIAS_TARGET_MAX ||
	    (n == tn && memcmp(s, t, n) == 0) || memchr(s, '\0', n) != NULL ||
	    memchr(t, '\0', tn) != NULL)
		return 0; /* names and targets are C strings (messages) */
	if ((a = find(as, s, n, kind)) == NULL) {
		if (as->n == ALIAS_MAX)
			return 0;
		if (as->n == as->cap) {
			size_t ncap = as->cap ? as->cap * 2 : 8;
			struct alias *nv = realloc(as->v, ncap * sizeof(*nv));

			if (nv == NULL)
				return -1;
			as->v = nv;
			as->cap = ncap;
		}
		a = &as->v[as->n];
		memset(a, 0, sizeof(*a));
		memcpy(a->name, s, n);
		a->nlen = (unsigned char)n;
		a->kind = (unsigned char)kind;
		as->first[(unsigned char)s[0]] |= (unsigned char)(1u << kind);
		as->lens |= (uint64_t)1 << (n - 1);
		for (h = hash(s, n, kind) & (ALIAS_SLOTS - 1); as->slot[h] >= 0;
		    h = (h + 1) & (ALIAS_SLOTS - 1))
			;
		as->slot[h] = (int)as->n++;
	}
	for (i = 0; i < a->nalt; i++)
		if (a->tlen[i] == tn && memcmp(a->target[i], t, tn) == 0)
			return 0;
	if (a->nalt == ALIAS_ALTS)
		return 0;
	memcpy(a->target[a->nalt], t, tn);
	a->target[a->nalt][tn] = '\0';
	a->tlen[a->nalt++] = (unsigned char)tn;
	if (a->nalt > as->maxalt)
		as->maxalt = a->nalt;
	return 0;
}

/* A dotted target: its first name replaced by that name's first target
 * if it is an alias, then kept if watched. */
static int
add_name(struct alias_set *as, const char *s, size_t n, const char *t,
    size_t tn)
{
	char buf[ALIAS_TARGET_MAX + 1];
	size_t r = 0;
	const struct alias *a;

	while (r < tn && t[r] != '.' && t[r] != ':')
		r++;
	if (as->n > 0 && (a = find(as, t, r, AK_NAME)) != NULL) {
		if (a->tlen[0] + (tn - r) > ALIAS_TARGET_MAX)
			return 0;
		memcpy(buf, a->target[0], a->tlen[0]);
		memcpy(buf + a->tlen[0], t + r, tn - r);
		t = buf;
		tn = a->tlen[0] + (tn - r);
	}
	if (!watched_target(t, tn))
		return 0;
	return add(as, AK_NAME, s, n, t, tn);
}

/* ---- reading a line ----------------------------------------------------------- */

struct cur {
	const char *p;
	size_t i, n;
};

static inline int
is_id0(unsigned char c)
{
	return idbyte[c] & 1;
}

static inline int
is_id(unsigned char c)
{
	return idbyte[c] & 2;
}

static void
ws(struct cur *c)
{
	while (c->i < c->n && (c->p[c->i] == ' ' || c->p[c->i] == '\t' ||
	    c->p[c->i] == '\r'))
		c->i++;
}

/* The word w of l bytes (and not the start of a longer name) at the
 * cursor; word() for a string constant. */
static int
word_n(struct cur *c, const char *w, size_t l)
{
	if (c->i >= c->n || c->p[c->i] != w[0])
		return 0; /* most statements start with none of the words */
	if (c->i + l > c->n || memcmp(c->p + c->i, w, l) != 0 ||
	    (c->i + l < c->n && is_id((unsigned char)c->p[c->i + l]) &&
	    is_id((unsigned char)w[l - 1])))
		return 0;
	c->i += l;
	ws(c);
	return 1;
}

#define word(c, w) word_n((c), "" w, sizeof(w) - 1)

static int
lit(struct cur *c, char ch)
{
	if (c->i < c->n && c->p[c->i] == ch) {
		c->i++;
		ws(c);
		return 1;
	}
	return 0;
}

/* An identifier: its start and length (0: none). */
static size_t
ident(struct cur *c, size_t *at)
{
	size_t s = c->i;

	if (s >= c->n || !is_id0((unsigned char)c->p[s]))
		return 0;
	while (c->i < c->n && is_id((unsigned char)c->p[c->i]))
		c->i++;
	*at = s;
	return c->i - s;
}

/* A dotted name (a.b.c, a::b, a?.b, a['b'], a["b"]) written as a.b.c into
 * out (room ALIAS_TARGET_MAX); its length, 0 if none or too long. */
static size_t
dotted(struct cur *c, char *out)
{
	size_t k = 0, s, l;

	for (;;) {
		if ((l = ident(c, &s)) == 0 || k + l > ALIAS_TARGET_MAX)
			return 0;
		memcpy(out + k, c->p + s, l);
		k += l;
		if (c->i + 1 < c->n && c->p[c->i] == ':' &&
		    c->p[c->i + 1] == ':' && c->i + 2 < c->n &&
		    is_id0((unsigned char)c->p[c->i + 2])) {
			if (k + 2 > ALIAS_TARGET_MAX)
				return 0;
			memcpy(out + k, "::", 2);
			k += 2;
			c->i += 2;
			continue;
		}
		if (c->i + 2 < c->n && c->p[c->i] == '?' &&
		    c->p[c->i + 1] == '.')
			c->i++;
		if (c->i + 1 < c->n && c->p[c->i] == '.' &&
		    is_id0((unsigned char)c->p[c->i + 1])) {
			if (k + 1 > ALIAS_TARGET_MAX)
				return 0;
			out[k++] = '.';
			c->i++;
			continue;
		}
		/* obj['name'] */
		if (c->i + 3 < c->n && c->p[c->i] == '[' &&
		    (c->p[c->i + 1] == '\'' || c->p[c->i + 1] == '"')) {
			char q = c->p[c->i + 1];
			size_t e = c->i + 2;

			while (e < c->n && is_id((unsigned char)c->p[e]))
				e++;
			if (e + 1 < c->n && c->p[e] == q && c->p[e + 1] == ']' &&
			    e > c->i + 2 && k + 1 + (e - c->i - 2) <=
			    ALIAS_TARGET_MAX) {
				out[k++] = '.';
				memcpy(out + k, c->p + c->i + 2, e - c->i - 2);
				k += e - c->i - 2;
				c->i = e + 2;
				if (c->i < c->n && c->p[c->i] == '.' &&
				    c->i + 1 < c->n &&
				    is_id0((unsigned char)c->p[c->i + 1])) {
					out[k++] = '.';
					c->i++;
					continue;
				}
			}
		}
		ws(c);
		return k;
	}
}

/* A quoted string without escapes or interpolation: its bytes. */
static size_t
quoted(struct cur *c, size_t *at)
{
	char q;
	size_t s;

	if (c->i >= c->n || (c->p[c->i] != '\'' && c->p[c->i] != '"' &&
	    c->p[c->i] != '`'))
		return 0;
	q = c->p[c->i];
	s = c->i + 1;
	for (c->i = s; c->i < c->n && c->p[c->i] != q; c->i++)
		if (c->p[c->i] == '\\' || (q != '\'' && c->p[c->i] == '$'))
			return 0;
	if (c->i >= c->n)
		return 0;
	*at = s;
	c->i++;
	ws(c);
	return c->i - 1 - s;
}

/* The statement ends here: nothing but `;` and a comment follow. */
static int
ends(struct cur *c)
{
	ws(c);
	if (c->i < c->n && c->p[c->i] == ';') {
		c->i++;
		ws(c);
	}
	return c->i == c->n || c->p[c->i] == '#' ||
	    (c->i + 1 < c->n && c->p[c->i] == '/' && c->p[c->i + 1] == '/');
}

/* A module string: 'node:child_process' -> child_process; a path's last
 * element (Go's package name, 'os/exec' -> exec). */
static void
module_name(const char **s, size_t *n)
{
	size_t i;

	if (*n > 5 && memcmp(*s, "node:", 5) == 0) {
		*s += 5;
		*n -= 5;
	}
	for (i = *n; i > 0; i--)
		if ((*s)[i - 1] == '/') {
			*s += i;
			*n -= i;
			break;
		}
}

/* A shell word (quotes joined, backslashes and NUL bytes dropped: dash,
 * Debian's sh, reads `c=cu<NUL>rl` as c=curl), or $(which x),
 * `command -v x`: its text in out (room ALIAS_TARGET_MAX). */
static size_t
shell_word(struct cur *c, char *out)
{
	size_t k = 0;

	if (c->i + 1 < c->n && ((c->p[c->i] == '$' && c->p[c->i + 1] == '(') ||
	    c->p[c->i] == '`')) {
		struct cur d;
		size_t s, l;

		d = *c;
		d.i += c->p[c->i] == '`' ? 1 : 2;
		ws(&d);
		if (!(word(&d, "which") || (word(&d, "command") &&
		    word(&d, "-v")) || (word(&d, "type") && word(&d, "-p"))))
			return 0;
		s = d.i;
		while (d.i < d.n && d.p[d.i] != ')' && d.p[d.i] != '`' &&
		    d.p[d.i] != ' ')
			d.i++;
		l = d.i - s;
		if (l == 0 || l > ALIAS_TARGET_MAX)
			return 0;
		memcpy(out, d.p + s, l);
		c->i = d.i < d.n ? d.i + 1 : d.i;
		return l;
	}
	while (c->i < c->n) {
		char ch = c->p[c->i];

		if (ch == '\'' || ch == '"') {
			size_t e = c->i + 1;

			while (e < c->n && c->p[e] != ch)
				e++;
			if (e >= c->n)
				return 0;
			for (c->i++; c->i < e; c->i++) {
				if (c->p[c->i] == '$' && ch == '"')
					return 0;
				if (c->p[c->i] == '\0')
					continue; /* dash drops NUL bytes */
				if (k == ALIAS_TARGET_MAX)
					return 0;
				out[k++] = c->p[c->i];
			}
			c->i = e + 1;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == ';' || ch == '&' ||
		    ch == '|' || ch == '\r' || ch == '$' || ch == '`' ||
		    ch == '(' || ch == ')')
			break;
		if (ch == '\\' || ch == '\0') {
			c->i++;
			continue;
		}
		if (k == ALIAS_TARGET_MAX)
			return 0;
		out[k++] = ch;
		c->i++;
	}
	return k;
}

/* ---- the definitions ---------------------------------------------------------- */

struct reader {
	struct alias_set *as;
	int go_block;      /* inside Go's import ( ... ) */
	int from_block;    /* inside from X import ( ... ) */
	char from[ALIAS_TARGET_MAX + 1]; /* that X */
	size_t from_len;
	int nomem;
	int quick;         /* skip values that cannot be targets (rhs_may_be) */
};

/* "a as b, c" after `from X import` (X in r->from): until ')' or the end. */
static void
from_names(struct reader *r, struct cur *c)
{
	char t[ALIAS_TARGET_MAX + 1];

	for (;;) {
		size_t s, l, ns, nl;

		ws(c);
		if (lit(c, ')')) {
			r->from_block = 0;
			return;
		}
		if ((l = ident(c, &s)) == 0)
			return;
		ws(c);
		ns = s;
		nl = l;
		if (word(c, "as") && (nl = ident(c, &ns)) == 0)
			return;
		if (r->from_len + 1 + l <= ALIAS_TARGET_MAX) {
			memcpy(t, r->from, r->from_len);
			t[r->from_len] = '.';
			memcpy(t + r->from_len + 1, c->p + s, l);
			if (add_name(r->as, c->p + ns, nl, t,
			    r->from_len + 1 + l) < 0)
				r->nomem = 1;
		}
		ws(c);
		if (!lit(c, ','))
			break;
	}
	ws(c);
	if (lit(c, ')'))
		r->from_block = 0;
}

/* A name an import binds: at [s, s+l), for member [ms, ms+ml) of the
 * module (ml 0: the module itself). */
struct imported {
	size_t s, l, ms, ml;
};

/* import ...: Python's `import a.b as c`, JavaScript's `import x, {a as
 * b} from 'm'` and `import * as x from 'm'`, Go's `import x "p"`. */
static void
def_import(struct reader *r, struct cur *c)
{
	char t[ALIAS_TARGET_MAX + 1];
	size_t s, l, ms, ml;
	struct cur d;

	/* Go: import ( ... ) and import x "path" */
	if (lit(c, '(')) {
		r->go_block = 1;
		return;
	}
	d = *c;
	if ((l = ident(&d, &s)) > 0) {
		ws(&d);
		if ((ml = quoted(&d, &ms)) > 0) {
			const char *m = d.p + ms;

			module_name(&m, &ml);
			if (add_name(r->as, c->p + s, l, m, ml) < 0)
				r->nomem = 1;
			return;
		}
	}
	/* JavaScript: the names, then `from 'm'` */
	{
		struct imported nm[16];
		size_t k = 0, i;
		const char *m;

		for (;;) {
			if (lit(c, '*')) {
				if (!word(c, "as") || (l = ident(c, &s)) == 0)
					return;
				if (k < 16)
					nm[k++] = (struct imported){s, l, 0, 0};
			} else if (lit(c, '{')) {
				while (!lit(c, '}')) {
					size_t s0, l0;

					ws(c);
					if ((l0 = ident(c, &s0)) == 0)
						return;
					ws(c);
					s = s0;
					l = l0;
					if (word(c, "as") &&
					    (l = ident(c, &s)) == 0)
						return;
					if (k < 16)
						nm[k++] = (struct imported){s,
						    l, s0, l0};
					ws(c);
					(void)lit(c, ',');
				}
			} else if ((l = ident(c, &s)) > 0) {
				ws(c);
				if (l == 4 && memcmp(c->p + s, "from", 4) == 0)
					break;
				if (l == 2 && memcmp(c->p + s, "as", 2) == 0)
					return;
				/* Python: import a.b.c as d */
				if (c->i < c->n && c->p[c->i] == '.') {
					c->i = s;
					if ((l = dotted(c, t)) == 0 ||
					    !word(c, "as") ||
					    (ml = ident(c, &ms)) == 0)
						return;
					if (add_name(r->as, c->p + ms, ml, t, l) <
					    0)
						r->nomem = 1;
					return;
				}
				if (word(c, "as")) {
					/* Python: import a as b */
					if ((ml = ident(c, &ms)) == 0)
						return;
					if (add_name(r->as, c->p + ms, ml,
					    c->p + s, l) < 0)
						r->nomem = 1;
					ws(c);
					if (lit(c, ','))
						continue;
					return;
				}
				if (k < 16)
					nm[k++] = (struct imported){s, l, 0, 0};
			} else {
				return;
			}
			ws(c);
			if (!lit(c, ','))
				break;
		}
		if (!word(c, "from") || (ml = quoted(c, &ms)) == 0)
			return;
		m = c->p + ms;
		module_name(&m, &ml);
		for (i = 0; i < k; i++) {
			size_t tl = ml;

			if (tl > ALIAS_TARGET_MAX)
				return;
			memcpy(t, m, ml);
			if (nm[i].ml > 0) {
				if (tl + 1 + nm[i].ml > ALIAS_TARGET_MAX)
					continue;
				t[tl++] = '.';
				memcpy(t + tl, c->p + nm[i].ms, nm[i].ml);
				tl += nm[i].ml;
			}
			if (add_name(r->as, c->p + nm[i].s, nm[i].l, t, tl) < 0)
				r->nomem = 1;
		}
	}
}

/* At the cursor, an alias of an import function (__import__, require,
 * import_module): moves past it. */
static int
importer(const struct alias_set *as, struct cur *c)
{
	static const char *const fns[] = {"__import__", "require",
		"importlib.import_module", "import_module"};
	char t[ALIAS_TARGET_MAX + 1];
	struct cur d = *c;
	const struct alias *a;
	size_t k, i, j;

	/* Most statements are read before the file has any alias. */
	if (as->n == 0 || (k = dotted(&d, t)) == 0 ||
	    (a = find(as, t, k, AK_NAME)) == NULL)
		return 0;
	for (i = 0; i < a->nalt; i++)
		for (j = 0; j < NELEM(fns); j++)
			if (strcmp(a->target[i], fns[j]) == 0) {
				*c = d;
				return 1;
			}
	return 0;
}

/* The value of an assignment: a target for a name (*kind AK_NAME) or a
 * string/command (AK_VAR) in out; its length, or 0. */
static size_t
rhs(const struct alias_set *as, struct cur *c, char *out, unsigned *kind,
    int shell)
{
	size_t s, l, ms, ml, k;
	struct cur d = *c;

	*kind = AK_NAME;
	(void)word(c, "await");
	/* require('m'), import('m'), __import__('m', ...), import_module('m'),
	 * and the same through an alias (imp = __import__; imp('m')) */
	d = *c;
	if ((word(c, "require") || word(c, "import") || word(c, "__import__") ||
	    word(c, "importlib.import_module") || word(c, "import_module") ||
	    importer(as, c)) && c->i < c->n && c->p[c->i] == '(') {
		const char *m;

		if (!lit(c, '(') || (ml = quoted(c, &ms)) == 0)
			return 0;
		/* further arguments: fromlist=[...], globals() */
		if (lit(c, ',')) {
			int depth = 1;

			for (; c->i < c->n && depth > 0; c->i++)
				depth += c->p[c->i] == '(' ? 1 :
				    c->p[c->i] == ')' ? -1 : 0;
			if (depth != 0)
				return 0;
			ws(c);
		} else if (!lit(c, ')')) {
			return 0;
		}
		m = c->p + ms;
		module_name(&m, &ml);
		if (ml > ALIAS_TARGET_MAX)
			return 0;
		memcpy(out, m, ml);
		/* require('m').exec */
		if (c->i + 1 < c->n && c->p[c->i] == '.') {
			char t[ALIAS_TARGET_MAX + 1];

			c->i++;
			if ((l = dotted(c, t)) == 0 || ml + 1 + l >
			    ALIAS_TARGET_MAX)
				return 0;
			out[ml] = '.';
			memcpy(out + ml + 1, t, l);
			ml += 1 + l;
		}
		return ends(c) ? ml : 0;
	}
	*c = d;
	/* getattr(x, 'n') */
	if (word(c, "getattr")) {
		if (!lit(c, '(') || (k = dotted(c, out)) == 0 || !lit(c, ',') ||
		    (l = quoted(c, &s)) == 0 || !lit(c, ')') ||
		    k + 1 + l > ALIAS_TARGET_MAX)
			return 0;
		out[k] = '.';
		memcpy(out + k + 1, c->p + s, l);
		return ends(c) ? k + 1 + l : 0;
	}
	/* Ruby: method(:n), X.method(:n) */
	if (word(c, "method")) {
		if (!lit(c, '(') || !lit(c, ':') || (l = ident(c, &s)) == 0 ||
		    !lit(c, ')') || l > ALIAS_TARGET_MAX)
			return 0;
		memcpy(out, c->p + s, l);
		return ends(c) ? l : 0;
	}
	/* PowerShell: Get-Command x, gcm x */
	if (c->i < c->n && c->p[c->i] == '(')
		(void)lit(c, '(');
	if ((c->n - c->i >= 11 && strncasecmp(c->p + c->i, "Get-Command", 11) ==
	    0) || (c->n - c->i >= 4 && strncasecmp(c->p + c->i, "gcm ", 4) ==
	    0)) {
		c->i += strncasecmp(c->p + c->i, "gcm ", 4) == 0 ? 3 : 11;
		ws(c);
		if (c->n - c->i >= 5 && strncasecmp(c->p + c->i, "-Name", 5) ==
		    0) {
			c->i += 5;
			ws(c);
		}
		s = c->i;
		if ((l = quoted(c, &ms)) > 0) {
			s = ms;
		} else {
			while (c->i < c->n && (is_id((unsigned char)c->p[c->i]) ||
			    c->p[c->i] == '-'))
				c->i++;
			l = c->i - s;
		}
		(void)lit(c, ')');
		if (l == 0 || l > ALIAS_TARGET_MAX)
			return 0;
		memcpy(out, c->p + s, l);
		*kind = AK_VAR;
		return ends(c) ? l : 0;
	}
	*c = d;
	/* a string: a command or a function's name (one holding a NUL byte
	 * is read as a shell word below, as dash reads it) */
	if ((l = quoted(c, &s)) > 0 && l <= ALIAS_TARGET_MAX &&
	    memchr(c->p + s, '\0', l) == NULL && ends(c)) {
		memcpy(out, c->p + s, l);
		*kind = AK_VAR;
		return l;
	}
	*c = d;
	/* a dotted name, X.method(:n) */
	if ((k = dotted(c, out)) > 0) {
		if (k > 7 && memcmp(out + k - 7, ".method", 7) == 0 &&
		    lit(c, '(')) {
			if (!lit(c, ':') || (l = ident(c, &s)) == 0 ||
			    !lit(c, ')') || k - 7 + 1 + l > ALIAS_TARGET_MAX)
				return 0;
			memcpy(out + k - 6, c->p + s, l);
			return ends(c) ? k - 6 + l : 0;
		}
		if (ends(c))
			return k;
	}
	/* a shell word */
	*c = d;
	if (shell && (k = shell_word(c, out)) > 0 && ends(c)) {
		*kind = AK_VAR;
		return k;
	}
	return 0;
}

/*
 * Can the value at the cursor (not a shell word: N=word is read whole) be
 * one rhs() gives a target for that def_assign keeps? Only a quote (kept
 * after a sigil), `(` (PowerShell's (Get-Command x)), or a name that
 * starts one of rhs's forms: a watched root or builtin, an alias, await,
 * require, import, getattr, method, Get-Command, gcm. Every other value
 * gives nothing kept (its target's first name is not watched, and
 * add_name would drop it), so most assignments (`x = _messages.Field(1)`)
 * are not read further. fuzz_alias checks the set is that of reading
 * every value.
 */
static int
rhs_may_be(const struct alias_set *as, const struct cur *c, int sigil)
{
	const char *p = c->p + c->i;
	size_t n = c->n - c->i, l = 0;

	if (n == 0)
		return 0;
	if (p[0] == '\'' || p[0] == '"' || p[0] == '`')
		return sigil;
	if (p[0] == '(')
		return 1;
	if (!is_id0((unsigned char)p[0]))
		return 0;
	while (l < n && is_id((unsigned char)p[l]))
		l++;
	return watched_target(p, l) || (as->n > 0 && find(as, p, l, AK_NAME) != NULL) ||
	    (l == 5 && memcmp(p, "await", 5) == 0) ||
	    (l == 6 && (memcmp(p, "import", 6) == 0 ||
	    memcmp(p, "method", 6) == 0)) ||
	    (l == 3 && (strncasecmp(p, "get", 3) == 0 ||
	    strncasecmp(p, "gcm", 3) == 0));
}

/* NAME = value, const NAME = ..., $NAME = ..., {a, b: c} = ..., N=word. */
static void
def_assign(struct reader *r, struct cur *c)
{
#define DECL(w) {w, sizeof(w) - 1}
	static const struct {
		const char *w;
		size_t l;
	} decl[] = {DECL("const"), DECL("let"), DECL("var"), DECL("local"),
		DECL("my"), DECL("our"), DECL("export"), DECL("readonly"),
		DECL("declare"), DECL("static"), DECL("final"), DECL("val"),
		DECL("auto"), DECL("typeset"), DECL("set"), DECL("then"),
		DECL("do"), DECL("else")};
#undef DECL
	char t[ALIAS_TARGET_MAX + 1];
	size_t s = 0, l = 0, i, tl, start;
	unsigned kind;
	int sigil = 0, destr = 0, shell;
	struct cur d;

	/* const, export readonly, ...: any number of them (a statement
	 * starting with none of their first letters is not tried) */
	while (c->i < c->n && memchr("clvmoerdsfat", c->p[c->i], 12) != NULL) {
		for (i = 0; i < NELEM(decl) && (decl[i].w[0] != c->p[c->i] ||
		    !word_n(c, decl[i].w, decl[i].l)); i++)
			;
		if (i == NELEM(decl))
			break;
	}
	start = c->i;
	if (c->i < c->n && c->p[c->i] == '{') {
		destr = 1;
		while (c->i < c->n && c->p[c->i] != '}')
			c->i++;
		if (c->i == c->n)
			return;
		c->i++;
		ws(c);
	} else {
		if (c->i < c->n && (c->p[c->i] == '$' || c->p[c->i] == '@')) {
			sigil = 1;
			c->i++;
		}
		if ((l = ident(c, &s)) == 0)
			return;
		if (sigil && l > 0 && c->p[s] == '$')
			return;
	}
	shell = !sigil && !destr && c->i < c->n && c->p[c->i] == '=' &&
	    c->i + 1 < c->n && c->p[c->i + 1] != ' ' && c->p[c->i + 1] != '=';
	ws(c);
	if (c->i + 1 < c->n && c->p[c->i] == ':' && c->p[c->i + 1] == '=')
		c->i++;
	if (c->i >= c->n || c->p[c->i] != '=' ||
	    (c->i + 1 < c->n && (c->p[c->i + 1] == '=' ||
	    c->p[c->i + 1] == '>' || c->p[c->i + 1] == '~')))
		return;
	c->i++;
	if (!shell)
		ws(c);
	if (r->quick && !shell && !rhs_may_be(r->as, c, sigil))
		return;
	if ((tl = rhs(r->as, c, t, &kind, shell)) == 0)
		return;
	if (destr) {
		/* {a, b: c, d = x} = target: each name is target.member */
		d = *c;
		d.i = start + 1;
		for (;;) {
			size_t ms, ml, ns, nl;

			ws(&d);
			if ((ml = ident(&d, &ms)) == 0)
				return;
			ws(&d);
			ns = ms;
			nl = ml;
			if (lit(&d, ':') && (nl = ident(&d, &ns)) == 0)
				return;
			while (d.i < d.n && d.p[d.i] != ',' && d.p[d.i] != '}')
				d.i++;
			if (kind == AK_NAME && tl + 1 + ml <= ALIAS_TARGET_MAX) {
				char u[ALIAS_TARGET_MAX + 1];

				memcpy(u, t, tl);
				u[tl] = '.';
				memcpy(u + tl + 1, d.p + ms, ml);
				if (add_name(r->as, d.p + ns, nl, u,
				    tl + 1 + ml) < 0)
					r->nomem = 1;
			}
			if (!lit(&d, ','))
				return;
		}
	}
	if (kind == AK_VAR) {
		/* $f = 'system' (PHP), $c = 'iex' (PowerShell), c=curl */
		if ((sigil || shell) && (watched_command(t, tl) ||
		    listed(builtins, NELEM(builtins), t, tl, 0)) &&
		    add(r->as, AK_VAR, c->p + s, l, t, tl) < 0)
			r->nomem = 1;
		return;
	}
	if (sigil) {
		/* $x = os.system is a variable too: $x(...) */
		if (watched_target(t, tl) && add(r->as, AK_VAR, c->p + s, l, t,
		    tl) < 0)
			r->nomem = 1;
		return;
	}
	if (add_name(r->as, c->p + s, l, t, tl) < 0)
		r->nomem = 1;
	/* c=curl: also $c */
	if (shell && watched_command(t, tl) &&
	    add(r->as, AK_VAR, c->p + s, l, t, tl) < 0)
		r->nomem = 1;
}

/* alias n='curl -s' (shell); Set-Alias [-Name] n [-Value] v (PowerShell). */
static int
def_command_alias(struct reader *r, struct cur *c)
{
	char t[ALIAS_TARGET_MAX + 1];
	size_t s, l, tl, vs;
	struct cur d = *c;

	if (c->i < c->n && c->p[c->i] == 'a' && word(c, "alias")) {
		if ((l = ident(c, &s)) == 0 || !lit(c, '=') ||
		    (tl = shell_word(c, t)) == 0)
			return 1;
		if (watched_command(t, tl) &&
		    add(r->as, AK_CMD, c->p + s, l, t, tl) < 0)
			r->nomem = 1;
		return 1;
	}
	/* Set-Alias, New-Alias, sal, nal: most statements start otherwise */
	if (c->i >= c->n || ((c->p[c->i] | 0x20) != 's' &&
	    (c->p[c->i] | 0x20) != 'n')) {
		*c = d;
		return 0;
	}
	if (!((c->n - c->i >= 10 && (strncasecmp(c->p + c->i, "Set-Alias ", 10) ==
	    0 || strncasecmp(c->p + c->i, "New-Alias ", 10) == 0)) ||
	    (c->n - c->i >= 4 && (strncasecmp(c->p + c->i, "sal ", 4) == 0 ||
	    strncasecmp(c->p + c->i, "nal ", 4) == 0)))) {
		*c = d;
		return 0;
	}
	c->i += (c->p[c->i + 3] == ' ') ? 4 : 10;
	ws(c);
	if (c->n - c->i >= 5 && strncasecmp(c->p + c->i, "-Name", 5) == 0) {
		c->i += 5;
		ws(c);
	}
	if ((l = quoted(c, &s)) == 0 && (l = ident(c, &s)) == 0)
		return 1;
	ws(c);
	if (c->n - c->i >= 6 && strncasecmp(c->p + c->i, "-Value", 6) == 0) {
		c->i += 6;
		ws(c);
	}
	if ((tl = quoted(c, &vs)) == 0) {
		vs = c->i;
		while (c->i < c->n && (is_id((unsigned char)c->p[c->i]) ||
		    c->p[c->i] == '-' || c->p[c->i] == '.'))
			c->i++;
		tl = c->i - vs;
	}
	if (tl == 0 || tl > ALIAS_TARGET_MAX)
		return 1;
	memcpy(t, c->p + vs, tl);
	if (watched_command(t, tl) &&
	    add(r->as, AK_CMD, c->p + s, l, t, tl) < 0)
		r->nomem = 1;
	return 1;
}

/*
 * Is the statement at d nothing but entries of a `from X import (` block:
 * names (`a`, `a as b`) separated by commas, the closing `)`, a comment,
 * or nothing? Anything else ends the block: text that only looks like its
 * opening (a comment, a string) must not make the rest of a file its
 * entries, where no definition would be read.
 */
static int
from_entries(struct cur d)
{
	size_t s;

	for (;;) {
		ws(&d);
		if (lit(&d, ')') || ident(&d, &s) == 0)
			return ends(&d);
		ws(&d);
		if (word(&d, "as") && ident(&d, &s) == 0)
			return 0;
		ws(&d);
		if (!lit(&d, ',')) {
			(void)lit(&d, ')');
			return ends(&d);
		}
	}
}

/*
 * Is the statement at d an entry of Go's `import ( ... )` block (`"path"`,
 * `name "path"`, `_ "path"`, `. "path"`), a comment or nothing? The name,
 * if any, is at *s (length *l, 0 for none), the path at *ms (*ml). As for
 * from_entries, anything else ends the block.
 */
static int
go_entry(struct cur d, size_t *s, size_t *l, size_t *ms, size_t *ml)
{
	struct cur e = d;

	*l = *ml = 0;
	if (ends(&e))
		return 1;
	if ((*l = ident(&d, s)) == 0)
		(void)lit(&d, '.');
	ws(&d);
	return (*ml = quoted(&d, ms)) > 0 && ends(&d);
}

static void
def_line(struct reader *r, const char *p, size_t n)
{
	struct cur c = {p, 0, n};
	size_t s, l, ms, ml;
	char ch;

	ws(&c);
	/* word() is tried only where its first letter is: most statements
	 * start with none of them */
	ch = c.i < c.n ? c.p[c.i] : '\0';
	if (r->from_block) {
		if (from_entries(c)) {
			from_names(r, &c);
			return;
		}
		r->from_block = 0; /* no block: read the statement as any */
	}
	if (r->go_block) {
		struct cur d = c;

		if (lit(&d, ')') && ends(&d)) {
			r->go_block = 0;
			return;
		}
		if (go_entry(c, &s, &l, &ms, &ml)) {
			if (l > 0 && ml > 0) {
				const char *m = p + ms;

				module_name(&m, &ml);
				if (add_name(r->as, p + s, l, m, ml) < 0)
					r->nomem = 1;
			}
			return;
		}
		r->go_block = 0;
	}
	if (ch == 'f' && word(&c, "from")) {
		/* from X import a as b, (c, d) */
		if ((r->from_len = dotted(&c, r->from)) == 0 ||
		    !word(&c, "import"))
			return;
		if (lit(&c, '('))
			r->from_block = 1;
		from_names(r, &c);
		return;
	}
	if (ch == 'i' && word(&c, "import")) {
		def_import(r, &c);
		return;
	}
	/* use std::process::Command as C; (Rust) */
	if (ch == 'u' && word(&c, "use")) {
		char t[ALIAS_TARGET_MAX + 1];

		if ((l = dotted(&c, t)) > 0 && word(&c, "as") &&
		    (ml = ident(&c, &ms)) > 0 &&
		    add_name(r->as, p + ms, ml, t, l) < 0)
			r->nomem = 1;
		return;
	}
	if (def_command_alias(r, &c))
		return;
	/* Every assignment has an `=`: most statements are none. */
	if (memchr(c.p + c.i, '=', c.n - c.i) == NULL)
		return;
	def_assign(r, &c);
}

/* The bytes the statement splitter looks at: most bytes are none. */
static const char stmt_bytes[] = "\\'\"`;";

/* A line's statements: split at each `;` outside quotes. The bytes that
 * matter are found 16 at a time (bytes16.h); next is the first byte not
 * looked at yet (one after a backslash in quotes is skipped). */
static void
defs(struct reader *r, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t s = 0, i = 0, j, next = 0;
	unsigned m;
	char q = 0;

	for (;;) {
		if (i + 16 <= n)
			m = al_bytes16(u + i, stmt_bytes, 5);
		else if (i < n)
			m = al_bytes_tail(u + i, (unsigned)(n - i), stmt_bytes, 5);
		else
			break;
		while (m != 0 && !r->nomem) {
			j = i + al_low_bit(m);
			m &= m - 1;
			if (j < next)
				continue;
			next = j + 1;
			if (q != 0) {
				if (p[j] == '\\')
					next = j + 2;
				else if (p[j] == q)
					q = 0;
			} else if (p[j] == '\'' || p[j] == '"' || p[j] == '`') {
				q = p[j];
			} else if (p[j] == ';') {
				def_line(r, p + s, j - s);
				s = j + 1;
			}
		}
		if (r->nomem)
			return;
		i += 16;
	}
	if (s < n)
		def_line(r, p + s, n - s);
}

/* The offset of the first byte of p[0..n) that is not a blank (ws()):
 * 16 bytes at a time, indentation being most of many lines. */
static size_t
past_indent(const char *p, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	for (; i + 16 <= n; i += 16) {
		unsigned m = al_bytes16((const unsigned char *)p + i, " \t\r", 3);

		if (m != 0xffffu)
			return i + al_low_bit(~m & 0xffffu);
	}
#endif
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
		i++;
	return i;
}

/* Does p[0..n) start with the word w (l bytes, not a longer name)? With
 * icase, without ASCII case. */
static int
starts_word(const char *p, size_t n, const char *w, size_t l, int icase)
{
	return n >= l && (icase ? strncasecmp(p, w, l) == 0 :
	    memcmp(p, w, l) == 0) && (n == l || !is_id((unsigned char)p[l]) ||
	    !is_id((unsigned char)w[l - 1]));
}
#define STARTS(p, n, w, icase) starts_word((p), (n), "" w, sizeof(w) - 1, \
	(icase))

/*
 * Can a line (its blanks before the first byte skipped) define anything?
 * Most lines cannot: outside a block, a line with no `;` is one
 * statement, which def_line reads as a definition only if it has an `=`
 * (an assignment) or starts with one of the words it looks for there
 * (from, import, use, alias, and without case Set-Alias, New-Alias, sal,
 * nal, each followed by a blank). Every other line is read. `marked` is
 * nonzero when the line holds an `=` or a `;`.
 */
static int
may_define(const struct reader *r, const char *p, size_t n, unsigned marked)
{
	if (marked || r->from_block || r->go_block)
		return 1;
	if (n == 0)
		return 0;
	switch (p[0]) {
	case 'f':
		return STARTS(p, n, "from", 0);
	case 'i':
		return STARTS(p, n, "import", 0);
	case 'u':
		return STARTS(p, n, "use", 0);
	case 'a':
		return STARTS(p, n, "alias", 0);
	case 's': case 'S': case 'n': case 'N':
		return STARTS(p, n, "Set-Alias ", 1) ||
		    STARTS(p, n, "New-Alias ", 1) || STARTS(p, n, "sal ", 1) ||
		    STARTS(p, n, "nal ", 1);
	default:
		return 0;
	}
}

/* What read_marked_lines saw on a line. */
#define MARK_EQ 1u   /* an `=` */
#define MARK_SEMI 2u /* a `;` */

/* Reads the line [ls, le) if it may define something; `marked` (MARK_*)
 * says what it holds. Its leading blanks are no part of a statement. */
static void
read_line(struct reader *r, const char *text, size_t ls, size_t le,
    unsigned marked)
{
	ls += past_indent(text + ls, le - ls);
	if (!may_define(r, text + ls, le - ls, marked))
		return;
	/* No `;`: the line is one statement, as defs would find it. */
	if (marked & MARK_SEMI)
		defs(r, text + ls, le - ls);
	else
		def_line(r, text + ls, le - ls);
}

/* The text's lines, and whether each holds an `=` or a `;`, found 16
 * bytes at a time (bytes16.h): most lines are then not read again. */
static void
read_marked_lines(struct reader *r, const char *text, size_t n)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t ls = 0, i, j;
	unsigned m, marked = 0;

	for (i = 0; i < n && !r->nomem; i += 16) {
		m = i + 16 <= n ? al_bytes16(u + i, "\n=;", 3) :
		    al_bytes_tail(u + i, (unsigned)(n - i), "\n=;", 3);
		for (; m != 0 && !r->nomem; m &= m - 1) {
			j = i + al_low_bit(m);
			if (u[j] != '\n') {
				marked |= u[j] == ';' ? MARK_SEMI : MARK_EQ;
				continue;
			}
			read_line(r, text, ls, j, marked);
			ls = j + 1;
			marked = 0;
		}
	}
	if (ls < n && !r->nomem)
		read_line(r, text, ls, n, marked);
}

/* Every line, found by memchr: the reading read_marked_lines must equal
 * (fuzz_alias). */
static void
read_every_line(struct reader *r, const char *text, size_t n)
{
	size_t ls = 0;

	while (ls < n && !r->nomem) {
		const char *nl = memchr(text + ls, '\n', n - ls);
		size_t le = nl ? (size_t)(nl - text) : n;

		defs(r, text + ls, le - ls);
		ls = le + 1;
	}
}

static int
read_text(struct alias_set *as, const char *text, size_t n, int every)
{
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.as = as;
	if (every) {
		read_every_line(&r, text, n);
	} else {
		r.quick = 1;
		read_marked_lines(&r, text, n);
	}
	return r.nomem ? -1 : 0;
}

int
scan_alias_read(struct alias_set *as, const char *text, size_t n)
{
	return read_text(as, text, n, 0);
}

int
scan_alias_read_every_line(struct alias_set *as, const char *text, size_t n)
{
	return read_text(as, text, n, 1);
}

struct alias_set *
scan_alias_collect(const char *text, size_t n)
{
	struct alias_set *as;
	size_t i;

	if ((as = calloc(1, sizeof(*as))) == NULL)
		return NULL;
	for (i = 0; i < ALIAS_SLOTS; i++)
		as->slot[i] = -1;
	if (scan_alias_read(as, text, n) < 0) {
		scan_alias_free(as);
		return NULL;
	}
	return as;
}

size_t
scan_alias_count(const struct alias_set *as)
{
	return as ? as->n : 0;
}

unsigned
scan_alias_alts(const struct alias_set *as)
{
	return as ? as->maxalt : 0;
}

void
scan_alias_free(struct alias_set *as)
{
	if (as == NULL)
		return;
	free(as->v);
	free(as);
}

const char *
scan_alias_name(const struct alias_set *as, size_t i)
{
	return i < as->n ? as->v[i].name : NULL;
}

const char *
scan_alias_target(const struct alias_set *as, size_t i, unsigned alt)
{
	if (i >= as->n || as->v[i].nalt == 0)
		return NULL;
	return as->v[i].target[alt < as->v[i].nalt ? alt :
	    as->v[i].nalt - 1u];
}

/* ---- the view ----------------------------------------------------------------- */

struct out {
	char *p;
	size_t k, cap;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - o->k)
		n = o->cap - o->k;
	memcpy(o->p + o->k, s, n);
	o->k += n;
}

static const char *
alt_target(const struct alias *a, unsigned alt, size_t *n)
{
	unsigned k = alt < a->nalt ? alt : a->nalt - 1u;

	*n = a->tlen[k];
	return a->target[k];
}

/* Is the name at [s, e) in a command's place? */
static int
command_place(const char *p, size_t n, size_t s, size_t e)
{
	size_t i = s;

	if (e < n && p[e] != ' ' && p[e] != '\t' && p[e] != ';' &&
	    p[e] != '|' && p[e] != ')' && p[e] != '\r')
		return 0;
	while (i > 0 && (p[i - 1] == ' ' || p[i - 1] == '\t'))
		i--;
	return i == 0 || p[i - 1] == '|' || p[i - 1] == ';' || p[i - 1] == '&' ||
	    p[i - 1] == '(' || p[i - 1] == '{' || p[i - 1] == '`' ||
	    p[i - 1] == '=';
}

size_t
scan_alias_line(const struct alias_set *as, unsigned alt, const char *p,
    size_t n, char *outp, size_t cap)
{
	struct out o = {outp, 0, cap};
	size_t i = 0, copied = 0;
	int changed = 0;

	if (as == NULL || as->n == 0)
		return 0;
	while (i < n) {
		unsigned char ch = (unsigned char)p[i];
		const struct alias *a;
		size_t s, e, tn;
		const char *t;

		/* $NAME, ${NAME} */
		if (ch == '$' && i + 1 < n) {
			int brace = p[i + 1] == '{';

			s = i + 1 + (size_t)brace;
			for (e = s; e < n && is_id((unsigned char)p[e]) &&
			    p[e] != '$'; e++)
				;
			if (e > s && may_be_name(as, p + s, e - s,
			    1u << AK_VAR) &&
			    (a = find(as, p + s, e - s, AK_VAR)) != NULL &&
			    (!brace || (e < n && p[e] == '}'))) {
				put(&o, p + copied, i - copied);
				t = alt_target(a, alt, &tn);
				put(&o, t, tn);
				i = copied = e + (size_t)brace;
				changed = 1;
				continue;
			}
			i = e > i + 1 ? e : i + 1;
			continue;
		}
		if (!is_id0(ch) || ch == '$' || (i > 0 &&
		    (is_id((unsigned char)p[i - 1]) || p[i - 1] == '.' ||
		    p[i - 1] == '@' || p[i - 1] == '-' ||
		    (i > 1 && p[i - 1] == ':' && p[i - 2] == ':')))) {
			i++;
			continue;
		}
		s = i;
		for (e = s; e < n && is_id((unsigned char)p[e]); e++)
			;
		i = e;
		if (!may_be_name(as, p + s, e - s,
		    (1u << AK_CMD) | (1u << AK_NAME)))
			continue;
		if ((a = find(as, p + s, e - s, AK_CMD)) != NULL &&
		    command_place(p, n, s, e)) {
			put(&o, p + copied, s - copied);
			t = alt_target(a, alt, &tn);
			put(&o, t, tn);
			copied = e;
			changed = 1;
			continue;
		}
		if ((a = find(as, p + s, e - s, AK_NAME)) != NULL) {
			/* x.call(, x.apply(, x.( : a call of x */
			static const char *const call[] = {".call(", ".apply(",
				".("};
			size_t j = e, k;

			while (j < n && (p[j] == ' ' || p[j] == '\t'))
				j++;
			/* Not where it is bound: x = ..., x: ..., x => */
			if (j < n && ((p[j] == '=' && (j + 1 == n ||
			    p[j + 1] != '=')) || (p[j] == ':' && (j + 1 == n ||
			    p[j + 1] != ':'))))
				continue;
			put(&o, p + copied, s - copied);
			t = alt_target(a, alt, &tn);
			put(&o, t, tn);
			copied = e;
			changed = 1;
			for (k = 0; k < NELEM(call); k++) {
				size_t l = strlen(call[k]);

				if (n - j >= l && memcmp(p + j, call[k], l) == 0) {
					put(&o, "(", 1);
					copied = i = j + l;
					break;
				}
			}
		}
	}
	if (!changed)
		return 0;
	put(&o, p + copied, n - copied);
	return o.k;
}
