// app.js - the review UI: sign in, the queue of held submissions, the
// keyboard, and the route to a submission's view (docs/review-ui.md).
//
// Trust: runs beside the reviewer's token under the gate's CSP (its own
// scripts only, requests to the gate only). Everything it shows of a
// submission is inserted as text (dom.js).

import { el, vis, clear, age } from './dom.js';
import { call, token, setToken, dropToken, whoami, ApiError } from './api.js';
import { showSubmission, stepFinding } from './view.js';

const $ = (id) => document.getElementById(id);
const state = { rows: [], sel: 0 };

function show(id) {
	for (const s of ['signin', 'queue', 'view'])
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
		el('td', { title: w.received_at || '' }, age(w.received_at)));
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

async function loadQueue() {
	show('queue');
	$('queue-error').textContent = '';
	try {
		const j = await call('GET', '/v1/submissions?state=held&limit=1000');
		state.rows = j.submissions || [];
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
	if (tag === 'INPUT' || tag === 'TEXTAREA' || ev.ctrlKey || ev.metaKey || ev.altKey)
		return;
	const inQueue = !$('queue').hidden;
	if (ev.key === '?') {
		$('help').hidden = !$('help').hidden;
	} else if (ev.key === 'Escape') {
		if (!$('help').hidden)
			$('help').hidden = true;
		else if (!$('view').hidden)
			location.hash = '#/';
	} else if (inQueue && ev.key === 'j') {
		move(1);
	} else if (inQueue && ev.key === 'k') {
		move(-1);
	} else if (inQueue && ev.key === 'Enter' && state.rows[state.sel]) {
		location.hash = `#/s/${state.rows[state.sel].id}`;
	} else if (!inQueue && (ev.key === 'n' || ev.key === 'p')) {
		stepFinding(ev.key === 'n' ? 1 : -1);
	} else if (!inQueue && ev.key === 'u') {
		location.hash = '#/';
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
	if (m) {
		show('view');
		showSubmission(Number(m[1]), $('view'), who);
	} else {
		loadQueue();
	}
}

$('signin-form').addEventListener('submit', signIn);
$('signout').addEventListener('click', signOut);
$('help-close').addEventListener('click', () => { $('help').hidden = true; });
document.addEventListener('keydown', onKey);
window.addEventListener('hashchange', route);
route();
