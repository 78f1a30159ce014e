// audit.js - the review UI's audit view (#/audit): the event timeline of
// GET /v1/events a page at a time, filtered by action, actor and submission;
// the newest signed checkpoint (GET /v1/audit/checkpoint) as its text;
// whether the log verifies, checked here (verify.js); and the provenance of
// one artifact by sha256, id or path (GET /v1/provenance). docs/review-ui.md.
//
// Trust: for auditors and admins; the gate decides (a reviewer is shown
// its 403 message). Actors, actions, names, paths and details may come
// from agents and persons: all of it goes in as text nodes (dom.js). What
// was drawn for one token is cleared when another opens the view.

import { el, vis, clear } from './dom.js';
import { call, token } from './api.js';
import { verifyLog, toHex, sha256 } from './verify.js';

const PAGE = 100;
const $ = (id) => document.getElementById(id);
// The `after` of each page before the one shown, for "previous page".
let back = [];
let lastKey = null;

// auditOpts(HASH): {action, actor, submission, after} of #/audit?…; a
// submission not a positive integer, an after not a non-negative one, are
// left out.
export function auditOpts(hash) {
	const i = hash.indexOf('?');
	const q = new URLSearchParams(i >= 0 ? hash.slice(i + 1) : '');
	const o = { action: q.get('action') || '', actor: q.get('actor') || '', submission: '', after: 0 };
	if (/^[1-9][0-9]{0,15}$/.test(q.get('submission') || ''))
		o.submission = q.get('submission');
	if (/^[0-9]{1,16}$/.test(q.get('after') || ''))
		o.after = Number(q.get('after'));
	return o;
}

export function auditHash(o) {
	const q = new URLSearchParams();
	for (const k of ['action', 'actor', 'submission'])
		if (o[k])
			q.set(k, o[k]);
	if (o.after)
		q.set('after', String(o.after));
	const t = q.toString();
	return t ? `#/audit?${t}` : '#/audit';
}

export function readAuditFilters() {
	return { action: $('a-action').value.trim(), actor: $('a-actor').value.trim(),
		submission: $('a-submission').value.trim(), after: 0 };
}

function eventRow(e) {
	return el('tr', { 'data-id': e.id },
		el('td', {}, String(e.id)),
		el('td', {}, vis('span', {}, e.at)),
		vis('td', { class: 'actor' }, e.actor ?? '(the gate)'),
		vis('td', { class: 'action' }, e.action),
		el('td', {}, e.submission ? el('a', { href: `#/s/${e.submission}` }, `#${e.submission}`) : '\u2013'),
		vis('td', { class: 'detail' }, e.detail ?? ''));
}

// The events asked for: one submission's whole timeline (GET
// /v1/submissions/ID/events, not paged), else a page of every event (GET
// /v1/events?after=&limit=&action=); actor, and action for a submission,
// filtered here, on the events fetched.
async function fetchEvents(o) {
	if (o.submission) {
		const j = await call('GET', `/v1/submissions/${o.submission}/events`);
		const ev = (j.events || []).map((e) => ({ ...e, submission: Number(o.submission) }));
		return { events: ev.filter((e) => !o.action || e.action === o.action), more: false, count: ev.length };
	}
	let q = `after=${o.after}&limit=${PAGE}`;
	if (o.action)
		q += `&action=${encodeURIComponent(o.action)}`;
	const j = await call('GET', `/v1/events?${q}`);
	const ev = j.events || [];
	return { events: ev, more: ev.length === PAGE, count: ev.length, last: ev.length ? ev[ev.length - 1].id : o.after };
}

// The checkpoint's note: origin, size and root hash are its first three
// lines (docs/audit.md); the whole note shown as well.
async function showCheckpoint() {
	const box = clear($('checkpoint'));
	let note;
	try {
		note = await call('GET', '/v1/audit/checkpoint', { text: true });
	} catch (e) {
		box.append(el('p', { class: 'error', role: 'alert' }, `the checkpoint: ${e.message}`));
		return;
	}
	const [origin, size, root] = note.split('\n');
	box.append(el('dl', { class: 'summary' },
		el('dt', {}, 'origin'), vis('dd', { id: 'cp-origin' }, origin),
		el('dt', {}, 'size'), vis('dd', { id: 'cp-size' }, size),
		el('dt', {}, 'root'), vis('dd', { id: 'cp-root' }, root)),
	vis('pre', { class: 'note-text' }, note));
}

// showAudit(HASH): the view drawn for #/audit?…
export async function showAudit(hash) {
	if (drawnFor !== token()) {
		forget();
		drawnFor = token();
	}
	const o = auditOpts(hash);
	const key = JSON.stringify({ ...o, after: 0 });
	if (key !== lastKey || !o.after)
		back = [];
	lastKey = key;
	$('a-action').value = o.action;
	$('a-actor').value = o.actor;
	$('a-submission').value = o.submission;
	const err = $('audit-error');
	err.textContent = '';
	const rows = clear($('audit-rows'));
	$('audit-page').textContent = '';
	$('audit-prev').disabled = $('audit-next').disabled = true;
	let r;
	try {
		r = await fetchEvents(o);
	} catch (e) {
		err.textContent = e.message;
		clear($('checkpoint'));
		return;
	}
	const shown = r.events.filter((e) => !o.actor || e.actor === o.actor);
	shown.forEach((e) => rows.append(eventRow(e)));
	$('audit-empty').hidden = shown.length > 0;
	$('audit-page').textContent = o.submission ?
		`submission #${o.submission}: ${shown.length} of its ${r.count} events` :
		`events after #${o.after}: ${shown.length} shown of the ${r.count} of this page${r.more ? '' : ' (the last page)'}`;
	$('audit-next').disabled = !r.more;
	$('audit-prev').disabled = !o.after;
	$('audit-next').onclick = () => {
		back.push(o.after);
		location.hash = auditHash({ ...o, after: r.last });
	};
	$('audit-prev').onclick = () => {
		location.hash = auditHash({ ...o, after: back.length ? back.pop() : 0 });
	};
	showCheckpoint();
}

// ---- the token the verification and provenance shown are of -----------------

let drawnFor = null;

function forget() {
	clear($('verify-result'));
	$('verify-progress').textContent = '';
	clear($('prov-result'));
	$('prov-error').textContent = '';
}

// still(TOK): the view is still the one TOK asked for (not signed out or
// in as someone else meanwhile).
const still = (tok) => token() === tok && drawnFor === tok;

const dl = (...pairs) => el('dl', { class: 'summary' },
	...pairs.flatMap(([k, v, id]) => [el('dt', {}, k), vis('dd', id ? { id } : {}, v)]));

// ---- whether the log verifies (verify.js) -----------------------------------

function drawVerify(rep) {
	const box = clear($('verify-result'));
	const f = rep.failures[0];
	box.append(rep.ok ?
		el('p', { class: 'verify-ok', id: 'verify-verdict' }, `verifies: ${rep.size} entries, root ${rep.root}${rep.signed < rep.size ?
			`; the ${rep.size - rep.signed} after the newest checkpoint (of ${rep.signed}) are signed by none yet` : ''}`) :
		vis('p', { class: 'verify-bad', id: 'verify-verdict' },
			`DOES NOT VERIFY: ${f.entry !== null ? `at entry ${f.entry}: ` : ''}${f.what}`));
	const l = rep.latest;
	const pairs = [['log', `${rep.origin}: ${rep.size} entries, root ${rep.root}`, 'verify-log']];
	if (l)
		pairs.push(['latest checkpoint', `${l.name}: ${l.size ?? '?'} entries${l.root ? `, root ${l.root}` : ''}: ${l.result}${l.why ? ` (${l.why})` : ''}`, 'verify-latest'],
			['signed by', l.keyLine ? `${l.keyLine} (key id ${l.keyId})` : 'no trusted key', 'verify-signer']);
	pairs.push(['keys', rep.pinned ? `${rep.keys.length} pinned here` :
		'as served by the gate: compare their key ids with the ones you keep', 'verify-keys-from'],
	['entries matched to their events', String(rep.events), 'verify-events'],
	['checked at', rep.checkedAt, 'verify-at']);
	box.append(dl(...pairs));
	box.append(el('ul', { id: 'verify-key-list', class: 'mono' }, ...rep.keys.map((k) =>
		vis('li', {}, `${k.line}  key id ${k.keyId}${rep.pinned && !k.served ? '  (not among the keys the gate serves)' : ''}`))));
	if (rep.failures.length)
		box.append(el('ul', { id: 'verify-failures' }, ...rep.failures.map((x) =>
			vis('li', {}, `${x.entry !== null ? `entry ${x.entry}: ` : ''}${x.what}`))));
	box.append(el('table', { id: 'verify-checkpoints' },
		el('thead', {}, el('tr', {}, el('th', {}, 'checkpoint'), el('th', {}, 'entries'), el('th', {}, 'result'))),
		el('tbody', {}, ...rep.checkpoints.map((c) => el('tr', {},
			el('td', {}, c.name), el('td', {}, c.size === null ? '?' : String(c.size)),
			vis('td', { class: c.result === 'matches' ? '' : 'proof-bad' }, `${c.result}${c.why ? `: ${c.why}` : ''}`))))));
}

async function runVerify() {
	const tok = token();
	const btn = $('verify-run');
	const prog = $('verify-progress');
	btn.disabled = true;
	clear($('verify-result'));
	prog.textContent = 'reading the log…';
	try {
		const rep = await verifyLog({
			pinned: $('verify-keys').value, kept: $('verify-kept').value,
			progress: (n, total) => { if (still(tok)) prog.textContent = `entries read: ${n} of ${total}`; },
		});
		if (still(tok)) {
			prog.textContent = '';
			drawVerify(rep);
		}
	} catch (e) {
		if (still(tok)) {
			prog.textContent = '';
			$('verify-result').append(vis('p', { class: 'error', id: 'verify-verdict' }, `could not verify: ${e.message}`));
		}
	} finally {
		btn.disabled = false;
	}
}

// ---- provenance (GET /v1/provenance) --------------------------------------

// The query for what was typed: auto reads 64 hex digits as a sha256,
// a decimal from 1 as an id, anything else as a path.
export function provQuery(by, q) {
	let v = String(q).trim();
	if (by === 'auto') {
		if (/^[0-9a-fA-F]{64}$/.test(v)) {
			by = 'sha256';
			v = v.toLowerCase();
		} else {
			by = /^[1-9][0-9]{0,17}$/.test(v) ? 'id' : 'path';
		}
	}
	return `${by}=${encodeURIComponent(by === 'path' ? String(q) : v)}`;
}

// A detail's KEY=VALUE (up to the next space), or null.
const token1 = (d, key) => {
	const m = new RegExp(`(?:^| )${key}=([^ ]*)`).exec(d || '');
	return m ? m[1] : null;
};

function timelineRow(e) {
	const bad = e.proof === 'DOES NOT VERIFY';
	return el('tr', { 'data-index': e.index, class: bad ? 'proof-bad' : null },
		el('td', {}, String(e.index)),
		vis('td', {}, e.at),
		vis('td', { class: 'action' }, e.action),
		vis('td', { class: 'actor' }, `${e.actor}${e.person ? ` (${e.person})` : ''}${e.role ? ` [${e.role}]` : ''}`),
		vis('td', { class: 'detail' }, `${e.detail}${e.detail_hex !== undefined ? ' (not UTF-8 text: its bytes in detail_hex)' : ''}`),
		vis('td', { class: 'proof' }, bad ? `${e.proof}: ${e.why || ''}` : e.proof));
}

function logLine(log) {
	if (log && log.verified)
		return el('p', { class: 'verify-ok prov-log' }, `verified: every entry above up to checkpoint #${log.checkpoint} (${log.size} entries, key ${String(log.key_id).slice(0, 16)}) is in the signed log`);
	const why = !log ? 'no answer about the log' : log.error ? log.error :
		log.failures ? `entry ${log.failures.first} does not verify: ${log.failures.why}${log.failures.count > 1 ? ` (and ${log.failures.count - 1} more)` : ''}` :
			'an entry does not verify';
	return vis('p', { class: 'verify-bad prov-log' }, `NOT VERIFIED: ${why}`);
}

function drawSubmission(s) {
	const w = s.witnessed || {}, a = s.asserted || {}, ls = s.latest_scan;
	const labels = Object.entries(a.labels || {}).filter(([k]) => !k.endsWith('_hex'))
		.map(([k, v]) => `, ${k}=${v}`).join('');
	const peer = w.peer_uid >= 0 ? ` (peer uid ${w.peer_uid} pid ${w.peer_pid})` : '';
	const tl = s.timeline || [];
	const rel = tl.filter((e) => e.action === 'release');
	const pulls = tl.filter((e) => e.action === 'pull' || e.action === 'pull.item');
	const pairs = [
		['witnessed by the gate', `sha256 ${w.sha256}, ${w.size} bytes, received ${w.received_at} over ${w.via}${peer}, token ${w.submitter} for ${w.launched_for || 'nobody'}`],
		['asserted by the agent', `name '${a.name}', kind ${a.kind}${labels}`],
		['read as', s.read_as],
		['latest scan', ls ? `#${ls.id}: rules ${ls.ruleset}, engine ${ls.engine}; findings ${Object.entries(ls.findings || {}).map(([k, v]) => `${k} ${v}`).join(', ')}` : 'none yet'],
		['release', rel.length ? rel.map((e) => `at ${e.at} by ${e.actor} (entry ${e.index}, ${e.proof}): attestation sha256 ${token1(e.detail, 'attestation_sha256') || 'not named'}`).join('; ') : 'not released'],
		['pulls', pulls.length ? pulls.map((e) => `${e.at} by ${e.actor}`).join('; ') : 'none'],
	];
	return el('article', { class: 'prov', 'data-id': s.id },
		el('h4', {}, el('a', { href: `#/s/${s.id}` }, `submission #${s.id}`), vis('span', {}, `: ${s.state}, verdict ${s.verdict}`)),
		dl(...pairs),
		el('p', { class: 'note' }, 'Above: the facts from the submission\'s row. Below: its timeline, read from the audit log\'s entries, each proved against the newest signed checkpoint.'),
		el('table', { class: 'timeline' },
			el('thead', {}, el('tr', {}, ...['entry', 'at', 'action', 'actor', 'detail', 'proof'].map((h) => el('th', {}, h)))),
			el('tbody', {}, ...tl.map(timelineRow))),
		s.timeline_not_shown ? el('p', { class: 'note' }, `${s.timeline_not_shown} later entries are not shown (airlock provenance ${s.id} on the gate's host shows them all).`) : null,
		logLine(s.log));
}

function drawProvenance(doc) {
	const box = clear($('prov-result'));
	const subs = doc.submissions || [];
	box.append(el('p', { id: 'prov-summary' }, doc.truncated ?
		`${doc.matched} submissions match; the newest ${subs.length} are shown.` :
		`${doc.matched} submission${doc.matched === 1 ? '' : 's'} match${doc.matched === 1 ? 'es' : ''}.`));
	if (doc.not_shown && doc.not_shown.length)
		box.append(el('p', { class: 'note', id: 'prov-others' }, 'The others, newest first: ',
			...doc.not_shown.flatMap((id) => [el('button', { type: 'button', class: 'prov-id', 'data-id': id }, `#${id}`), ' '])));
	subs.forEach((s) => box.append(drawSubmission(s)));
}

async function runProvenance(query) {
	const tok = token();
	$('prov-error').textContent = '';
	clear($('prov-result'));
	try {
		const doc = await call('GET', `/v1/provenance?${query}`);
		if (still(tok))
			drawProvenance(doc);
	} catch (e) {
		if (still(tok))
			$('prov-error').textContent = e.message;
	}
}

// A file chosen: hashed here (WebCrypto), its sha256 asked for, as
// `airlock provenance PATH` hashes a file.
async function hashFile(file) {
	if (file.size > 2 ** 30) {
		$('prov-error').textContent = `${file.name}: larger than 1 GiB: hash it with sha256sum and give the digest`;
		return;
	}
	const hex = toHex(await sha256(new Uint8Array(await file.arrayBuffer())));
	$('prov-by').value = 'sha256';
	$('prov-q').value = hex;
	runProvenance(`sha256=${hex}`);
}

$('verify-run').addEventListener('click', runVerify);
$('prov-form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	runProvenance(provQuery($('prov-by').value, $('prov-q').value));
});
$('prov-file').addEventListener('change', () => {
	const f = $('prov-file').files[0];
	if (f)
		hashFile(f).catch((e) => { $('prov-error').textContent = e.message; });
});
$('prov-result').addEventListener('click', (ev) => {
	const b = ev.target.closest('button.prov-id');
	if (b) {
		$('prov-by').value = 'id';
		$('prov-q').value = b.dataset.id;
		runProvenance(`id=${b.dataset.id}`);
	}
});
