// audit.js - the review UI's audit view (#/audit): the event timeline of
// GET /v1/events a page at a time, filtered by action, actor and submission,
// and the newest signed checkpoint (GET /v1/audit/checkpoint) as its text.
// docs/review-ui.md.
//
// Trust: for auditors and admins; the gate decides (a reviewer is shown
// its 403 message). Actors, actions and details may come from agents and
// persons: all of it goes in as text nodes (dom.js).

import { el, vis, clear } from './dom.js';
import { call } from './api.js';

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
