// live.js - the queue's live updates (docs/review-ui.md, "Live updates"):
// while the queue is shown, and only then, one request to GET /v1/changes
// is open. The gate answers it when a submission changed after the cursor
// it names (else after 25 s, the cursor unchanged); when the cursor moved,
// the page loads the list again. Bounded whatever the gate answers: a
// request and a load of the list at most once a second each, and after a
// failure the next try waits 1, 2, 4 ... 30 s (longer if the gate's
// Retry-After says so). A 401 ends it (the page goes to sign in), so does
// a 403 (the role may not follow changes); stopLive ends it at once,
// cancelling the request open.
//
// Trust: the cursor is the gate's number, sent back as it came; nothing
// of it is shown.

import { call, ApiError } from './api.js';

const GAP = 1000;           // ms: a request, a load, at most once in this
const BACKOFF_FIRST = 1000; // ms
const BACKOFF_MAX = 30000;  // ms

let run = null;

// A pause of ms that stopLive cuts short.
function pause(r, ms) {
	return new Promise((ok) => {
		if (ms <= 0 || r.stopped) {
			ok();
			return;
		}
		const t = setTimeout(() => {
			r.wake = null;
			ok();
		}, ms);
		r.wake = () => {
			clearTimeout(t);
			ok();
		};
	});
}

// startLive({reload, unauthorized, status}): reload() loads and draws the
// list (a promise; its own errors its own); unauthorized(error) on a 401;
// status(text) says how live updates stand ('' while they work). The list
// is loaded first, whether or not the gate answers the first request.
export function startLive(hooks) {
	stopLive();
	const r = { stopped: false, ctl: new AbortController(), wake: null, ...hooks };
	run = r;
	loop(r);
}

export function stopLive() {
	if (!run)
		return;
	run.stopped = true;
	run.ctl.abort();
	if (run.wake)
		run.wake();
	run = null;
}

async function loop(r) {
	let cursor = null, loaded = false, lastLoad = 0, lastAsk = 0;
	let backoff = BACKOFF_FIRST;
	const load = async () => {
		await pause(r, lastLoad + GAP - Date.now());
		if (r.stopped)
			return;
		lastLoad = Date.now();
		loaded = true;
		await r.reload();
	};
	while (!r.stopped) {
		await pause(r, lastAsk + GAP - Date.now());
		if (r.stopped)
			break;
		lastAsk = Date.now();
		try {
			const q = cursor === null ? '' : `?after=${cursor}`;
			const j = await call('GET', `/v1/changes${q}`, { signal: r.ctl.signal });
			if (r.stopped)
				break;
			if (!j || !Number.isSafeInteger(j.cursor) || j.cursor < 0)
				throw new Error('the gate sent no cursor');
			backoff = BACKOFF_FIRST;
			r.status('');
			if (j.cursor !== cursor || !loaded) {
				// The list from here on is at least as new as the
				// cursor: what changes after it wakes the next request.
				cursor = j.cursor;
				await load();
			}
		} catch (e) {
			if (r.stopped)
				break;
			if (e instanceof ApiError && e.status === 401) {
				if (run === r)
					stopLive();
				r.unauthorized(e);
				break;
			}
			if (!loaded)
				await load(); // the list, live or not
			if (e instanceof ApiError && e.status === 403) {
				r.status(`no live updates: ${e.message}`);
				break;
			}
			let wait = backoff;
			if (e instanceof ApiError && e.retryAfter)
				wait = Math.max(wait, Math.min(e.retryAfter * 1000, BACKOFF_MAX));
			backoff = Math.min(backoff * 2, BACKOFF_MAX);
			r.status(`live updates paused (${e.message}); trying again in ${Math.ceil(wait / 1000)} s`);
			await pause(r, wait);
		}
	}
}
