// app.js - the review UI: sign in, the queue of held submissions, the
// keyboard, and the route to a submission's view (docs/review-ui.md).
//
// Trust: runs beside the reviewer's token under the gate's CSP (its own
// scripts only, requests to the gate only). Everything it shows of a
// submission is inserted as text (dom.js).

import { el, vis, clear, age, rank } from './dom.js';
import { call, token, setToken, dropToken, whoami, foldName, ApiError } from './api.js';
import { showSubmission, stepFinding, toggleSplit, decisionKey } from './view.js';
import { showAudit, auditHash, readAuditFilters } from './audit.js';

const $ = (id) => document.getElementById(id);
const state = { rows: [], sel: 0, hash: null, back: '#/' };

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
	const tr = el('tr', { 'data-id': s.id, class: i === state.sel ? 'sel' : null },
		el('td', {}, String(s.id)),
		el('td', { class: 'name' }, vis('a', { href: `#/s/${s.id}` }, s.name)),
		el('td', {}, vis('span', { class: `verdict v-${s.verdict}` }, s.verdict)),
		el('td', {}, s.worst ? vis('span', { class: `sev sev-${s.worst}` }, s.worst) : '\u2013'),
		vis('td', {}, s.kind || '\u2013'),
		vis('td', {}, w.submitter),
		vis('td', {}, w.launched_by),
		el('td', { title: w.received_at || '' }, age(w.received_at)),
		el('td', { class: 'state' }, vis('span', {}, s.state)));
	tr.addEventListener('click', () => { location.hash = `#/s/${s.id}`; });
	return tr;
}

function drawQueue() {
	const body = clear($('queue-rows'));
	state.rows.forEach((s, i) => body.append(queueRow(s, i)));
	$('queue-empty').hidden = state.rows.length > 0;
	const sel = body.children[state.sel];
	if (sel)
		sel.scrollIntoView({ block: 'nearest' });
}

// The queue's filters and sort, kept in the hash (#/?state=…&sev=…&agent=…
// &person=…&sort=…) so that a reload or a link keeps them; a value the page
// does not know is its default.
const STATES = ['held', 'approved', 'rejected', 'released', 'all'];
const SEVS = ['critical', 'high', 'medium', 'low', 'info'];
const SORTS = ['new', 'old', 'sev', 'id'];
const QDEFAULT = { state: 'held', sev: '', agent: '', person: '', sort: 'new' };

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
	pick('sort', (v) => SORTS.includes(v));
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
	return { state: $('f-state').value, sev: $('f-sev').value, agent: $('f-agent').value.trim(),
		person: $('f-person').value.trim(), sort: $('f-sort').value };
}

function showFilters(o) {
	$('f-state').value = o.state;
	$('f-sev').value = o.sev;
	$('f-agent').value = o.agent;
	$('f-person').value = o.person;
	$('f-sort').value = o.sort;
}

// The state asked of the gate (GET /v1/submissions?state=); severity, agent
// and person filtered here (the list endpoint takes only state and limit),
// names as the gate compares them, a part of the name enough.
function filterSort(rows, o) {
	const has = (v, want) => !want || foldName(v ?? '').includes(foldName(want));
	const min = o.sev ? rank(o.sev) : 0;
	const out = rows.filter((s) => rank(s.worst) >= min &&
		has((s.witnessed || {}).submitter, o.agent) && has((s.witnessed || {}).launched_by, o.person));
	const at = (s) => Date.parse((s.witnessed || {}).received_at) || 0;
	const cmp = {
		new: (a, b) => at(b) - at(a) || b.id - a.id,
		old: (a, b) => at(a) - at(b) || a.id - b.id,
		sev: (a, b) => rank(b.worst) - rank(a.worst) || b.id - a.id,
		id: (a, b) => a.id - b.id,
	}[o.sort];
	return out.sort(cmp);
}

async function loadQueue() {
	show('queue');
	const o = queueOpts(location.hash);
	showFilters(o);
	const h = queueHash(o);
	if (h !== state.hash)
		state.sel = 0;
	state.hash = state.back = h;
	$('queue-error').textContent = '';
	try {
		const q = o.state === 'all' ? '' : `state=${o.state}&`;
		const j = await call('GET', `/v1/submissions?${q}limit=1000`);
		state.rows = filterSort(j.submissions || [], o);
	} catch (e) {
		$('queue-error').textContent = e.message;
		state.rows = [];
	}
	state.sel = Math.min(state.sel, Math.max(0, state.rows.length - 1));
	drawQueue();
}

// ---- the keyboard ----------------------------------------------------------------

function move(d) {
	if (!state.rows.length)
		return;
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
$('nav-queue').addEventListener('click', () => { location.hash = state.back; });
$('nav-audit').addEventListener('click', () => { location.hash = '#/audit'; });
$('help-close').addEventListener('click', () => { $('help').hidden = true; });
document.addEventListener('keydown', onKey);
window.addEventListener('hashchange', route);
route();
