// api.js - the review UI's calls to the gate's API (docs/api.md).
//
// Trust: the token is the reviewer's; it is kept in sessionStorage only
// (this tab, gone when it closes) and sent only as Authorization: Bearer
// to the page's own origin.

const KEY = 'airlock.token';

export const token = () => sessionStorage.getItem(KEY);
export const setToken = (t) => sessionStorage.setItem(KEY, t);
export const dropToken = () => sessionStorage.removeItem(KEY);

export class ApiError extends Error {
	constructor(status, message) {
		super(message);
		this.status = status;
	}
}

// call(METHOD, PATH, {body, tok, raw}): the JSON answer (raw: the bytes as
// an ArrayBuffer); any other status than 2xx throws ApiError with the
// gate's {"error"} message.
export async function call(method, path, opts = {}) {
	const headers = { Authorization: `Bearer ${opts.tok || token()}` };
	let body;
	if (opts.body !== undefined) {
		headers['Content-Type'] = 'application/json';
		body = JSON.stringify(opts.body);
	}
	const r = await fetch(path, { method, headers, body, cache: 'no-store',
		credentials: 'omit', redirect: 'error' });
	if (!r.ok) {
		let msg = `HTTP ${r.status}`;
		try {
			const j = await r.json();
			if (j && typeof j.error === 'string')
				msg = j.error;
		} catch { /* not JSON */ }
		throw new ApiError(r.status, msg);
	}
	return opts.raw ? r.arrayBuffer() : r.json();
}
