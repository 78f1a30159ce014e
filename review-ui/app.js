// app.js - the review UI: sign in, the queue of held submissions (kept
// live while shown: live.js), the keyboard, and the route to a
// submission's view (docs/review-ui.md).
//
// Trust: runs beside the reviewer's token under the gate's CSP (its own
// scripts only, requests to the gate only). Everything it shows of a
// submission is inserted as text (dom.js).

import { el, vis, clear, age } from './dom.js';
import { call, token, setToken, dropToken, whoami, ApiError } from './api.js';
import { showSubmission, stepFinding, toggleSplit, decisionKey } from './view.js';
import { showAudit, auditHash, readAuditFilters } from './audit.js';
import { startLive, stopLive } from './live.js';

const $ = (id) => document.getElementById(id);
// gen counts the queues shown, rev the loads of one's list: an answer for
// an older one is dropped.
const state = { rows: [], sel: 0, hash: null, back: '#/', next: null, opts: null, gen: 0, rev: 0, more: false };

function show(id) {
	for (const s of ['signin', 'queue', 'view', 'audit'])
		$(s).hidden = s !== id;
}

// ---- sign in ---------------------------------------------------------------

async function signIn(ev) {
	ev.preventDefault();
	const t = $('token').value.trim();
	const err = $('signin-error');
	err.textContent = '';
	let who;
	try {
		who = await call('GET', '/v1/whoami', { tok: t });
	} catch (e) {
		err.textContent = e instanceof ApiError ? e.message : `the gate did not answer: ${e.message}`;
		return;
	}
	setToken(t, who);
	$('token').value = '';
	route();
}

function signOut() {
	stopLive();
	dropToken();
	location.hash = '';
	route();
}

// The holder of the token as the gate names them: "person (role)", the
// token's name for one bound to no person. null: not known (the gate did
// not answer); the header then says so, and decisions are left to the gate.
function showWho(who) {
	const t = token();
	$('who').hidden = !t;
	$('who-name').textContent = !t ? '' : who ?
		`${who.person ?? who.name} (${who.role})` : 'a token the gate did not name';
}

// ---- the queue -------------------------------------------------------------------

function queueRow(s, i) {
	const w = s.witnessed || {};
	const r = s.review;
	const tr = el('tr', { 'data-id': s.id, class: i === state.sel ? 'sel' : null },
		el('td', {}, String(s.id)),
		el('td', { class: 'name' }, vis('a', { href: `#/s/${s.id}` }, s.name)),
		el('td', {}, vis('span', { class: `verdict v-${s.verdict}` }, s.verdict)),
		el('td', {}, s.worst ? vis('span', { class: `sev sev-${s.worst}` }, s.worst) : '\u2013'),
		vis('td', {}, s.kind || '\u2013'),
		vis('td', {}, w.submitter),
		vis('td', {}, w.launched_by),
		el('td', { title: w.received_at || '' }, age(w.received_at)),
		el('td', { class: 'state' }, vis('span', {}, s.state)),
		el('td', { class: 'approvals', title: r ? `${r.approvals} of ${r.needed} approvals counted now` : null },
			r ? `${r.approvals}/${r.needed}` : '\u2013'));
	tr.addEventListener('click', () => { location.hash = `#/s/${s.id}`; });
	return tr;
}

// scroll: bring the selected row into view (not when a live update draws
// the list again: the reviewer may be scrolling).
function drawQueue(scroll = true) {
	const body = clear($('queue-rows'));
	state.rows.forEach((s, i) => body.append(queueRow(s, i)));
	$('queue-empty').hidden = state.rows.length > 0;
	$('queue-more').hidden = !state.next;
	const sel = body.children[state.sel];
	if (sel && scroll)
		sel.scrollIntoView({ block: 'nearest' });
}

// The queue's filters and sort, kept in the hash (#/?state=…&sev=…&kind=…&agent=…
// &person=…&sort=…) so that a reload or a link keeps them; a value the page
// does not know is its default. The gate filters, sorts and pages
// (GET /v1/submissions: docs/api.md), QPAGE rows at a time.
const STATES = ['held', 'approved', 'rejected', 'released', 'all'];
const SEVS = ['critical', 'high', 'medium', 'low', 'info'];
const SORTS = { new: 'newest', old: 'oldest', sev: 'severity' };
const KINDS = ['file', 'archive', 'patch', 'mbox', 'bundle'];
const QDEFAULT = { state: 'held', sev: '', kind: '', agent: '', person: '', sort: 'new' };
const QPAGE = 100;
const QMAX = 1000;          // the gate's most a page

function queueOpts(hash) {
	const q = new URLSearchParams(hash.startsWith('#/?') ? hash.slice(3) : '');
	const o = { ...QDEFAULT };
	const pick = (k, ok) => {
		const v = q.get(k);
		if (v !== null && ok(v))
			o[k] = v;
	};
	pick('state', (v) => STATES.includes(v));
	pick('sev', (v) => SEVS.includes(v));
	pick('kind', (v) => KINDS.includes(v));
	pick('sort', (v) => Object.hasOwn(SORTS, v));
	pick('agent', () => true);
	pick('person', () => true);
	return o;
}

function queueHash(o) {
	const q = new URLSearchParams();
	for (const k of Object.keys(QDEFAULT))
		if (o[k] && o[k] !== QDEFAULT[k])
			q.set(k, o[k]);
	const t = q.toString();
	return t ? `#/?${t}` : '#/';
}

function readFilters() {
	return { state: $('f-state').value, sev: $('f-sev').value, kind: $('f-kind').value, agent: $('f-agent').value.trim(),
		person: $('f-person').value.trim(), sort: $('f-sort').value };
}

function showFilters(o) {
	$('f-state').value = o.state;
	$('f-sev').value = o.sev;
	$('f-kind').value = o.kind;
	$('f-agent').value = o.agent;
	$('f-person').value = o.person;
	$('f-sort').value = o.sort;
}

// What the gate is asked for the filters o (and the page after cursor, of
// limit rows, QPAGE by default): every value escaped; the gate compares the
// agent's token name exactly and the person as it compares names (NFKC,
// case folded, trimmed).
function queuePath(o, cursor, limit = QPAGE) {
	const q = [];
	const add = (k, v) => {
		if (v)
			q.push(`${k}=${encodeURIComponent(v)}`);
	};
	add('state', o.state === 'all' ? '' : o.state);
	add('severity', o.sev);
	add('kind', o.kind);
	add('agent', o.agent);
	add('person', o.person);
	add('sort', SORTS[o.sort]);
	add('limit', String(limit));
	add('cursor', cursor);
	return `/v1/submissions?${q.join('&')}`;
}

// The list for the filters o, drawn unless another queue was shown since
// (gen) or the list was asked again meanwhile (rev): the first page, or,
// again after a live update, as many rows as were shown (More), so that
// nothing goes away but what left the list. The selection stays on the
// submission it was on, wherever the update moved it (Enter opens what is
// highlighted). first: the queue's first load, which scrolls to it; an
// error then empties the list, an error after keeps what is shown.
async function fetchQueue(o, gen, first) {
	const selId = first ? null : state.rows[state.sel]?.id;
	const limit = first ? QPAGE : Math.min(QMAX, Math.max(QPAGE,
		Math.ceil(state.rows.length / QPAGE) * QPAGE));
	const rev = ++state.rev;
	let rows = [], next = null, err = '';
	try {
		const j = await call('GET', queuePath(o, null, limit));
		rows = j.submissions || [];
		next = j.next || null;
	} catch (e) {
		err = e.message;
	}
	if (gen !== state.gen || rev !== state.rev)
		return;
	$('queue-error').textContent = err;
	if (err && !first)
		return;
	state.rows = rows;
	state.next = next;
	const at = selId == null ? -1 : rows.findIndex((s) => s.id === selId);
	if (at >= 0)
		state.sel = at;
	state.sel = Math.min(state.sel, Math.max(0, state.rows.length - 1));
	drawQueue(first);
}

// The queue for the hash's filters: its list, kept live while it is shown
// (live.js); a tab in the background loads it once, and live again when
// it is shown.
function loadQueue() {
	show('queue');
	const o = queueOpts(location.hash);
	showFilters(o);
	const h = queueHash(o);
	if (h !== state.hash)
		state.sel = 0;
	state.hash = state.back = h;
	state.opts = o;
	const gen = ++state.gen;
	let first = true;
	const reload = async () => {
		const f = first;
		first = false;
		await fetchQueue(o, gen, f);
	};
	$('queue-live').textContent = '';
	if (document.hidden) {
		stopLive();
		reload();
		return;
	}
	startLive({
		reload,
		unauthorized: (e) => {
			// Revoked or expired while the queue was open: sign in again.
			dropToken();
			$('signin-error').textContent = e.message;
			route();
		},
		status: (t) => {
			if (gen === state.gen)
				$('queue-live').textContent = t;
		},
	});
}

// The next page (the "more" button, or j past the last row): appended, the
// selection kept; 1 when rows were added.
async function moreQueue() {
	if (!state.next || state.more)
		return 0;
	const gen = state.gen, rev = state.rev;
	state.more = true;
	$('queue-more').disabled = true;
	let added = 0;
	try {
		const j = await call('GET', queuePath(state.opts, state.next));
		// A live update meanwhile: this page follows a list no more shown.
		if (gen === state.gen && rev === state.rev) {
			const have = new Set(state.rows.map((s) => s.id));
			const rows = (j.submissions || []).filter((s) => !have.has(s.id));
			state.rows = state.rows.concat(rows);
			state.next = j.next || null;
			added = rows.length > 0 ? 1 : 0;
			$('queue-error').textContent = '';
		}
	} catch (e) {
		if (gen === state.gen)
			$('queue-error').textContent = e.message;
	} finally {
		state.more = false;
		$('queue-more').disabled = false;
	}
	if (gen === state.gen)
		drawQueue();
	return added;
}

// ---- the keyboard ----------------------------------------------------------------

function move(d) {
	if (!state.rows.length)
		return;
	if (d > 0 && state.sel === state.rows.length - 1 && state.next) {
		moreQueue().then((added) => {
			if (added)
				move(d);
		});
		return;
	}
	state.sel = Math.max(0, Math.min(state.rows.length - 1, state.sel + d));
	drawQueue();
}

function onKey(ev) {
	const tag = ev.target && ev.target.tagName;
	if (ev.ctrlKey || ev.metaKey || ev.altKey)
		return;
	if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') {
		// Escape leaves a field (its value kept), back to the keys.
		if (ev.key === 'Escape') {
			ev.target.blur();
			ev.preventDefault();
		}
		return;
	}
	const inQueue = !$('queue').hidden;
	const inView = !$('view').hidden;
	if (inView && ['a', 'c', 'r', 'o', 'Escape'].includes(ev.key) && $('help').hidden && decisionKey(ev.key)) {
		// The decision's keys (view.js).
	} else if (ev.key === '?') {
		$('help').hidden = !$('help').hidden;
	} else if (ev.key === 'Escape') {
		if (!$('help').hidden)
			$('help').hidden = true;
		else if (!$('view').hidden || !$('audit').hidden)
			location.hash = state.back;
	} else if (inQueue && ev.key === 'j') {
		move(1);
	} else if (inQueue && ev.key === 'k') {
		move(-1);
	} else if (ev.key === 't' && $('audit').hidden && token()) {
		location.hash = '#/audit';
	} else if (inQueue && ev.key === 'f') {
		$('f-state').focus();
	} else if (inQueue && ev.key === 'Enter' && state.rows[state.sel]) {
		location.hash = `#/s/${state.rows[state.sel].id}`;
	} else if (!inQueue && (ev.key === 'n' || ev.key === 'p')) {
		stepFinding(ev.key === 'n' ? 1 : -1);
	} else if (!inQueue && ev.key === 's') {
		if (!toggleSplit())
			return;
	} else if (!inQueue && ev.key === 'u') {
		location.hash = state.back;
	} else {
		return;
	}
	ev.preventDefault();
}

// ---- routes ------------------------------------------------------------------------

async function route() {
	let who = null;
	// Live updates only while the queue is shown: loadQueue starts them
	// again.
	stopLive();
	if (token()) {
		try {
			who = await whoami();
		} catch (e) {
			if (e instanceof ApiError && e.status === 401) {
				// Revoked or expired since it was given: sign in again.
				dropToken();
				$('signin-error').textContent = e.message;
			}
		}
	}
	showWho(who);
	if (!token()) {
		show('signin');
		$('token').focus();
		return;
	}
	const m = /^#\/s\/([1-9][0-9]*)$/.exec(location.hash);
	if (/^#\/audit(\?|$)/.test(location.hash)) {
		show('audit');
		showAudit(location.hash);
	} else if (m) {
		show('view');
		showSubmission(Number(m[1]), $('view'), who, state.back);
	} else {
		loadQueue();
	}
}

$('signin-form').addEventListener('submit', signIn);
$('signout').addEventListener('click', signOut);
$('filters').addEventListener('change', () => { location.hash = queueHash(readFilters()); });
$('filters').addEventListener('submit', (ev) => {
	ev.preventDefault();
	location.hash = queueHash(readFilters());
});
$('audit-filters').addEventListener('submit', (ev) => {
	ev.preventDefault();
	location.hash = auditHash(readAuditFilters());
});
$('queue-more').addEventListener('click', () => { moreQueue(); });
$('nav-queue').addEventListener('click', () => { location.hash = state.back; });
$('nav-audit').addEventListener('click', () => { location.hash = '#/audit'; });
$('help-close').addEventListener('click', () => { $('help').hidden = true; });
document.addEventListener('keydown', onKey);
window.addEventListener('hashchange', route);
// A tab in the background keeps no request open; shown again, the queue
// loads afresh and is live again.
document.addEventListener('visibilitychange', () => {
	if (document.hidden)
		stopLive();
	else if (!$('queue').hidden && token())
		loadQueue();
});
route();
