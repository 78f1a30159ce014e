// api.js - the review UI's calls to the gate's API (docs/api.md).
//
// Trust: the token is the reviewer's; it is kept in sessionStorage only
// (this tab, gone when it closes) and sent only as Authorization: Bearer
// to the page's own origin.

const KEY = 'airlock.token';

// Who holds the token (GET /v1/whoami), asked once per token and page.
let me = null;

export const token = () => sessionStorage.getItem(KEY);
export const setToken = (t, who) => {
	sessionStorage.setItem(KEY, t);
	me = who || null;
};
export const dropToken = () => {
	sessionStorage.removeItem(KEY);
	me = null;
};

// retryAfter: the answer's Retry-After in seconds (429, 503), else null.
export class ApiError extends Error {
	constructor(status, message, retryAfter = null) {
		super(message);
		this.status = status;
		this.retryAfter = retryAfter;
	}
}

// call(METHOD, PATH, {body, tok, raw, text, signal}): the JSON answer (raw:
// the bytes as an ArrayBuffer; text: the answer as text); any other status
// than 2xx throws ApiError with the gate's {"error"} message. signal (an
// AbortSignal) cancels the request.
export async function call(method, path, opts = {}) {
	const headers = { Authorization: `Bearer ${opts.tok || token()}` };
	let body;
	if (opts.body !== undefined) {
		headers['Content-Type'] = 'application/json';
		body = JSON.stringify(opts.body);
	}
	const r = await fetch(path, { method, headers, body, cache: 'no-store',
		credentials: 'omit', redirect: 'error', signal: opts.signal });
	if (!r.ok) {
		let msg = `HTTP ${r.status}`;
		try {
			const j = await r.json();
			if (j && typeof j.error === 'string')
				msg = j.error;
		} catch { /* not JSON */ }
		const ra = /^[0-9]{1,6}$/.test(r.headers.get('Retry-After') || '') ?
			Number(r.headers.get('Retry-After')) : null;
		throw new ApiError(r.status, msg, ra);
	}
	return opts.raw ? r.arrayBuffer() : opts.text ? r.text() : r.json();
}

// whoami(): {name, role, person, expires_at} of the token held, from the
// gate (asked once; docs/api.md). Throws ApiError as call does.
export async function whoami() {
	if (!me)
		me = await call('GET', '/v1/whoami');
	return me;
}

// A person's name as the gate compares them (NFKC, case folded, trimmed,
// inner white space one space: common/fold.h), near enough to know in
// advance what it would refuse; the gate decides.
export const foldName = (s) => String(s).normalize('NFKC').toLowerCase()
	.trim().replace(/\s+/gu, ' ');
