// verify.js - whether the gate's audit log verifies, checked by the page
// itself (docs/audit.md, "Verifying in the review UI"): the keys of GET
// /v1/audit/keys, every checkpoint of GET /v1/audit/checkpoints (its C2SP
// signed note verified with Ed25519), every entry of GET /v1/audit/entries
// a page at a time (its form, its place, its leaf hash recomputed, the
// RFC 6962 tree rebuilt from those hashes and its root compared with each
// signed root), and each entry against the event GET /v1/events serves
// for it. The checks and their messages are those of `airlock audit
// verify --server` (gate/cli/audit_remote.c, cmd_audit.c), plus the last
// one, which the CLI makes only on the gate's host.
//
// WebCrypto only (crypto.subtle.digest for SHA-256, crypto.subtle.verify
// for Ed25519); no third-party code.
//
// Trust: every byte the gate serves is hostile until a signature covers
// it; numbers are checked for type and range, base64 is decoded strictly
// (one spelling), entries are read as bytes. But this code is itself
// served by the gate it checks, and by default so are the keys: what it
// proves, and what it does not, is said beside its result (audit.js).

import { call } from './api.js';

const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: false });

// Limits, as the gate's (gate/note.h, db/db.h).
const NOTE_MAX_BYTES = 1 << 20;
const NOTE_MAX_SIGS = 100;
const NOTE_NAME_MAX = 255;
const ENTRY_MAX = 1 << 20;
const INT64_MAX = (1n << 63n) - 1n;
// Failures listed at most (the first is the one that counts).
const MAX_FAILURES = 50;

// ---- bytes ------------------------------------------------------------------------

export const toHex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

export function b64encode(b) {
	let s = '';
	for (let i = 0; i < b.length; i += 0x8000)
		s += String.fromCharCode(...b.subarray(i, i + 0x8000));
	return btoa(s);
}

// b64decode(S): the bytes of canonical standard base64 (padded, no
// blank, no stray bits: the spelling the gate writes), else null.
export function b64decode(s) {
	if (typeof s !== 'string' || s.length === 0 || s.length % 4 !== 0 ||
	    !/^[A-Za-z0-9+/]*={0,2}$/.test(s))
		return null;
	let bin;
	try {
		bin = atob(s);
	} catch {
		return null;
	}
	const b = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++)
		b[i] = bin.charCodeAt(i);
	return b64encode(b) === s ? b : null;
}

function concat(...parts) {
	const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
	let at = 0;
	for (const p of parts) {
		out.set(p, at);
		at += p.length;
	}
	return out;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

export async function sha256(...parts) {
	return new Uint8Array(await crypto.subtle.digest('SHA-256', concat(...parts)));
}

// RFC 6962 / 9162: a leaf is SHA-256(0x00 || entry), a node SHA-256(0x01
// || left || right), the empty tree SHA-256("").
export const leafHash = (entry) => sha256(Uint8Array.of(0), entry);
const nodeHash = (l, r) => sha256(Uint8Array.of(1), l, r);

// The tree of the leaves pushed so far, in O(log n) memory: a stack of
// complete subtrees, largest first (common/merkle.c's merkle_stream).
export class MerkleStream {
	constructor() {
		this.stack = [];
		this.size = 0;
	}

	async push(leaf) {
		let h = leaf, level = 0;
		while (this.stack.length && this.stack[this.stack.length - 1].level === level) {
			h = await nodeHash(this.stack.pop().hash, h);
			level++;
		}
		this.stack.push({ level, hash: h });
		this.size++;
	}

	async root() {
		if (!this.stack.length)
			return sha256();
		let r = this.stack[this.stack.length - 1].hash;
		for (let k = this.stack.length - 2; k >= 0; k--)
			r = await nodeHash(this.stack[k].hash, r);
		return r;
	}
}

// ---- keys and signed notes (gate/note.c) ------------------------------------------

// What is wrong with a key name (C2SP signed-note), or null.
function nameFlaw(name) {
	if (name.length === 0)
		return 'the key name is empty';
	if (te.encode(name).length > NOTE_NAME_MAX)
		return `the key name is longer than ${NOTE_NAME_MAX} bytes`;
	if (/[\u0000-\u001f]/.test(name))
		return 'the key name holds a control character';
	if (/[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name))
		return 'the key name holds a space';
	if (name.includes('+'))
		return "the key name holds a '+'";
	return null;
}

// The C2SP key id: SHA-256(name || 0x0A || 0x01 || public key)[:4].
async function noteKeyId(name, enc) {
	const h = await sha256(te.encode(name), Uint8Array.of(0x0a), enc);
	return ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;
}

const id8 = (id) => id.toString(16).padStart(8, '0');

// Whether this browser's WebCrypto verifies Ed25519 (Chromium 137 on).
export async function ed25519Supported() {
	try {
		await crypto.subtle.importKey('raw', new Uint8Array(32).fill(1), { name: 'Ed25519' }, false, ['verify']);
		return true;
	} catch {
		return false;
	}
}

// ed25519Verify(PUB, SIG, MSG): true when SIG (64 bytes) is PUB's (32
// bytes) Ed25519 signature of MSG.
export async function ed25519Verify(pub, sig, msg) {
	const k = await crypto.subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']);
	return crypto.subtle.verify({ name: 'Ed25519' }, k, sig, msg);
}

// parseVkey(LINE, ORIGIN): a verifier key NAME+ID+KEY (note_vkey_parse),
// named for the log ORIGIN: {name, id, pub, line, keyId}, where keyId is
// the SHA-256 of its SubjectPublicKeyInfo in hex, the key id `airlock key
// show` prints. Throws Error saying what is wrong.
export async function parseVkey(line, origin) {
	const p1 = line.indexOf('+');
	if (p1 < 0)
		throw new Error("verifier key: not NAME+ID+KEY (no '+')");
	const name = line.slice(0, p1);
	const flaw = nameFlaw(name);
	if (flaw)
		throw new Error(`verifier key: ${flaw}`);
	const p2 = line.indexOf('+', p1 + 1);
	if (p2 < 0)
		throw new Error("verifier key: not NAME+ID+KEY (no '+' after the key id)");
	const idText = line.slice(p1 + 1, p2);
	if (!/^[0-9a-fA-F]{8}$/.test(idText))
		throw new Error('verifier key: the key id is not 8 hex digits');
	const enc = b64decode(line.slice(p2 + 1));
	if (!enc)
		throw new Error('verifier key: the key is not canonical standard base64');
	const id = parseInt(idText, 16) >>> 0;
	const want = await noteKeyId(name, enc);
	if (want !== id)
		throw new Error(`verifier key: key id ${id8(id)} is not the name's and key's (${id8(want)})`);
	if (enc[0] !== 0x01)
		throw new Error(`verifier key: unknown signature type 0x${enc[0].toString(16).padStart(2, '0')} (only Ed25519, 0x01)`);
	if (enc.length !== 33)
		throw new Error(`verifier key: an Ed25519 key is 32 bytes, not ${enc.length - 1}`);
	if (origin !== undefined && name !== origin)
		throw new Error(`the verifier key is of the log '${name}', not of this gate's ('${origin}')`);
	const pub = enc.slice(1);
	const k = await crypto.subtle.importKey('raw', pub, { name: 'Ed25519' }, true, ['verify']);
	const spki = new Uint8Array(await crypto.subtle.exportKey('spki', k));
	return { name, id, pub, line, keyId: toHex(await sha256(spki)) };
}

// openNote(NOTE, KEYS, ORIGIN): a signed checkpoint (gate_checkpoint_open:
// note_verify, then checkpoint_parse) verified with KEYS (parseVkey's):
// {size (BigInt), root (32 bytes), key (the one that signed)}. Throws
// Error saying what is wrong, as the gate says it.
export async function openNote(note, keys, origin) {
	if (typeof note !== 'string')
		throw new Error('note: not text');
	if (te.encode(note).length > NOTE_MAX_BYTES)
		throw new Error(`note: longer than ${NOTE_MAX_BYTES} bytes`);
	const lines = note.split('\n');
	const bad = lines.findIndex((l) => /[\u0000-\u001f]/.test(l));
	if (bad >= 0)
		throw new Error(`note: line ${bad + 1}: a control character`);
	const first = lines[0];
	if (first !== origin)
		throw new Error(`the checkpoint is of the log '${first}', not of this gate's ('${origin}')`);
	const split = note.lastIndexOf('\n\n');
	if (split < 0)
		throw new Error('note: no blank line between the text and the signatures');
	if (split + 2 === note.length)
		throw new Error('note: no signature line after the blank line');
	if (!note.endsWith('\n'))
		throw new Error('note: the last signature line does not end with a newline');
	const text = note.slice(0, split + 1);
	const sigs = note.slice(split + 2, -1).split('\n');
	if (sigs.length > NOTE_MAX_SIGS)
		throw new Error(`note: more than ${NOTE_MAX_SIGS} signatures`);
	let lineno = text.split('\n').length + 1;
	let signer = null;
	const seen = new Set(), by = [];
	for (const s of sigs) {
		lineno++;
		if (!s.startsWith('\u2014 '))
			throw new Error(`note: line ${lineno}: not a signature line (an em dash U+2014 and a space, the key name, a space, the base64 signature)`);
		const rest = s.slice(2);
		const sp = rest.indexOf(' ');
		if (sp < 0)
			throw new Error(`note: line ${lineno}: no space between the key name and the signature`);
		const name = rest.slice(0, sp);
		const flaw = nameFlaw(name);
		if (flaw && !flaw.startsWith('the key name is longer'))
			throw new Error(`note: line ${lineno}: ${flaw}`);
		const raw = b64decode(rest.slice(sp + 1));
		if (!raw)
			throw new Error(`note: line ${lineno}: the signature is not canonical standard base64`);
		if (raw.length < 5)
			throw new Error(`note: line ${lineno}: a signature of ${raw.length} bytes (a 4-byte key id, then the signature)`);
		const id = ((raw[0] << 24) | (raw[1] << 16) | (raw[2] << 8) | raw[3]) >>> 0;
		by.push(`${name}+${id8(id)}`);
		const ks = keys.filter((k) => k.name === name && k.id === id);
		if (ks.length > 1)
			throw new Error(`note: line ${lineno}: the verifier set holds key ${name}+${id8(id)} more than once`);
		if (!ks.length || seen.has(ks[0]))
			continue; // unknown, or a repeat: ignored
		seen.add(ks[0]);
		if (!await ed25519Verify(ks[0].pub, raw.slice(4), te.encode(text)))
			throw new Error(`note: line ${lineno}: signature by ${name} (key id ${id8(id)}) does not verify`);
		signer = signer || ks[0];
	}
	if (!signer)
		throw new Error(`note: no signature by a known key (signatures: ${sigs.length}, by ${by.join(', ')}; known keys: ${keys.length}${keys.length ? `, ${keys.map((k) => `${k.name}+${id8(k.id)}`).join(', ')}` : ''})`);
	return { ...parseCheckpoint(text), key: signer };
}

// The body of a checkpoint (checkpoint_parse): origin, size, root, and
// non-empty extension lines.
function parseCheckpoint(text) {
	const l = text.slice(0, -1).split('\n');
	if (l.length < 2)
		throw new Error('checkpoint: no line 2 (the tree size)');
	if (!/^[0-9]+$/.test(l[1]))
		throw new Error(l[1] === '' ? 'checkpoint: line 2: the tree size is empty' :
			'checkpoint: line 2: the tree size is not decimal digits only');
	if (l[1].length > 1 && l[1][0] === '0')
		throw new Error('checkpoint: line 2: the tree size has a leading zero');
	const size = BigInt(l[1]);
	if (size > INT64_MAX)
		throw new Error('checkpoint: line 2: the tree size is larger than 2^63-1');
	if (l.length < 3)
		throw new Error('checkpoint: no line 3 (the root hash)');
	if (l[2].length !== 44)
		throw new Error(`checkpoint: line 3: the root hash is ${l[2].length} characters, not the 44 of base64 of 32 bytes`);
	const root = b64decode(l[2]);
	if (!root || root.length !== 32)
		throw new Error('checkpoint: line 3: the root hash is not canonical standard base64 of 32 bytes');
	const empty = l.slice(3).findIndex((x) => x === '');
	if (empty >= 0)
		throw new Error(`checkpoint: line ${empty + 4}: an empty extension line`);
	return { origin: l[0], size, root };
}

// ---- entries (gate/audit.c, gate_entry_check) -----------------------------------

const HEAD = te.encode('airlock audit entry v1\n');
const LINES = [['index', 1], ['event', 1], ['at', 1], ['action', 0], ['actor', 1],
	['actor-name', 0], ['actor-role', 0], ['person', 1], ['person-name', 0],
	['submission', 1], ['sha256', 0], ['detail', 0]];

const hexUpper = (c) => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x41 + 10 : -1);

// A text value as the gate escapes it: every byte below 0x20, DEL and
// '%' as %XX (uppercase), and only those.
function textOk(v) {
	for (let i = 0; i < v.length; i++) {
		const c = v[i];
		if (c < 0x20 || c === 0x7f)
			return false;
		if (c !== 0x25)
			continue;
		const hi = i + 2 < v.length ? hexUpper(v[i + 1]) : -1;
		const lo = i + 2 < v.length ? hexUpper(v[i + 2]) : -1;
		if (hi < 0 || lo < 0)
			return false;
		const d = (hi << 4) | lo;
		if (d >= 0x20 && d !== 0x7f && d !== 0x25)
			return false;
		i += 2;
	}
	return true;
}

// A text value's bytes, %XX undone.
export function unescapeValue(v) {
	const out = [];
	for (let i = 0; i < v.length; i++) {
		if (v[i] === 0x25 && i + 2 < v.length && hexUpper(v[i + 1]) >= 0 && hexUpper(v[i + 2]) >= 0) {
			out.push((hexUpper(v[i + 1]) << 4) | hexUpper(v[i + 2]));
			i += 2;
		} else {
			out.push(v[i]);
		}
	}
	return Uint8Array.from(out);
}

// A decimal with no sign, no leading zero, below 2^63: a BigInt, or null.
function decimal(v) {
	if (v.length === 0 || v.length > 19 || (v.length > 1 && v[0] === 0x30))
		return null;
	let x = 0n;
	for (const c of v) {
		if (c < 0x30 || c > 0x39)
			return null;
		x = x * 10n + BigInt(c - 0x30);
	}
	return x > INT64_MAX ? null : x;
}

// checkEntry(BYTES, IDX): a well-formed version 1 entry of leaf IDX (its
// 13 lines in order, each value spelled as the gate spells it): its
// fields, {key: bytes as stored} and the decimals as BigInt in .num.
// Throws Error naming the line.
export function checkEntry(e, idx) {
	if (e.length < HEAD.length || !same(e.subarray(0, HEAD.length), HEAD))
		throw new Error("line 1: not 'airlock audit entry v1' (a version this airlock does not know, or not an entry)");
	const f = { num: {} };
	let p = HEAD.length;
	LINES.forEach(([key, dec], k) => {
		const line = k + 2;
		const nl = e.indexOf(0x0a, p);
		if (nl < 0)
			throw new Error(`line ${line}: the entry ends before its ${key} line`);
		const kb = te.encode(`${key} `);
		if (nl - p < kb.length || !same(e.subarray(p, p + kb.length), kb))
			throw new Error(`line ${line}: not its ${key} line`);
		const v = e.subarray(p + kb.length, nl);
		if (dec) {
			const x = decimal(v);
			if (x === null)
				throw new Error(`line ${line}: its ${key} is not a decimal`);
			f.num[key] = x;
		} else if (!textOk(v)) {
			throw new Error(`line ${line}: its ${key} holds a control byte or an escape the gate does not write`);
		}
		if (key === 'sha256' && v.length !== 0 && (v.length !== 64 || !/^[0-9a-f]{64}$/.test(td.decode(v))))
			throw new Error(`line ${line}: its sha256 is neither empty nor 64 lowercase hex digits`);
		if (key === 'index' && f.num.index !== BigInt(idx))
			throw new Error(`line ${line}: it says index ${f.num.index}; it is at ${idx}`);
		f[key] = v;
		p = nl + 1;
	});
	if (p !== e.length)
		throw new Error(`line ${LINES.length + 2}: bytes after the detail line`);
	return f;
}

// ---- the events, against the entries -------------------------------------------

// A text member of an API document as its bytes: its <member>_hex when
// there is one (docs/api.md, "Text that is not UTF-8"), else the string.
function memberBytes(o, key) {
	const h = o[`${key}_hex`];
	if (typeof h === 'string' && /^([0-9a-f]{2})*$/.test(h))
		return Uint8Array.from(h.match(/../g) || [], (x) => parseInt(x, 16));
	return o[key] === null || o[key] === undefined ? new Uint8Array(0) : te.encode(String(o[key]));
}

const shown = (b) => {
	const s = td.decode(b);
	return s.length > 120 ? `${s.slice(0, 120)}…` : s;
};

// GET /v1/events, all of it, one event at a time (pages of 1000).
class Events {
	constructor(get) {
		this.get = get;
		this.buf = [];
		this.i = 0;
		this.after = 0;
		this.done = false;
	}

	async peek() {
		if (this.i < this.buf.length)
			return this.buf[this.i];
		if (this.done)
			return null;
		const j = await this.get(`/v1/events?after=${this.after}&limit=1000`);
		if (!j || !Array.isArray(j.events))
			throw new Error('GET /v1/events: no "events" list');
		for (const e of j.events)
			if (!e || !Number.isSafeInteger(e.id) || e.id <= this.after)
				throw new Error(`GET /v1/events?after=${this.after}: an event that is not after ${this.after}, in order`);
			else
				this.after = e.id;
		this.buf = j.events;
		this.i = 0;
		this.done = j.events.length < 1000;
		return this.buf.length ? this.buf[0] : null;
	}

	take() {
		this.i++;
	}
}

// ---- the walk ------------------------------------------------------------------------

// verifyLog({get, pinned, kept, pageSize, progress}): the whole check.
// get(PATH) is the API's JSON answer (api.js's call by default); pinned:
// verifier key lines to trust instead of the gate's (text, may be empty);
// kept: a checkpoint kept elsewhere (text, may be empty); progress(done,
// total) is told as entries are read. Resolves to a report:
//   {ok, failures: [{entry, what}], size, root, signed, origin, keys,
//    pinned, checkpoints: [{name, id, size, result, why, keyId, keyLine}],
//    latest, events, checkedAt}
// where signed is the size of the largest checkpoint that matches: the
// entries after it are covered by no signature yet.
// ok is true only when every check passed; failures[0] is the first
// divergence (an entry index, or null for the log as a whole). Rejects
// with an Error when the log cannot be read at all (an HTTP error, an
// answer that is not what docs/api.md says, a browser without Ed25519).
export async function verifyLog(opts = {}) {
	const get = opts.get || ((p) => call('GET', p));
	const page = opts.pageSize || 1000;
	const progress = opts.progress || (() => {});
	const rep = { ok: false, failures: [], size: 0, root: null, origin: null, keys: [],
		pinned: false, checkpoints: [], latest: null, events: 0, checkedAt: null };
	const fail = (entry, what) => {
		if (rep.failures.length < MAX_FAILURES)
			rep.failures.push({ entry, what });
	};
	if (!globalThis.crypto || !crypto.subtle)
		throw new Error('this page has no WebCrypto (it is not a secure context: open the gate on 127.0.0.1, localhost or over HTTPS), so it cannot verify: use airlock audit verify --server');
	if (!await ed25519Supported())
		throw new Error("this browser's WebCrypto has no Ed25519, so the page cannot verify signatures: use airlock audit verify --server");

	// 1. The keys: pinned ones, else the gate's (and the report says so).
	const kj = await get('/v1/audit/keys');
	if (!kj || typeof kj.origin !== 'string' || !kj.origin.startsWith('airlock/') ||
	    nameFlaw(kj.origin) || !Array.isArray(kj.keys) || !kj.keys.length)
		throw new Error('GET /v1/audit/keys: not {"origin": "airlock/...", "keys": [at least one]}');
	rep.origin = kj.origin;
	const served = [];
	for (const [i, k] of kj.keys.entries()) {
		if (typeof k !== 'string')
			throw new Error(`GET /v1/audit/keys: key ${i} is not a string`);
		try {
			served.push(await parseVkey(k, rep.origin));
		} catch (e) {
			throw new Error(`GET /v1/audit/keys: key ${i}: ${e.message}`);
		}
	}
	let keys = served;
	const pinnedLines = String(opts.pinned || '').split('\n').map((l) => l.replace(/\r$/, '').trim())
		.filter((l) => l && !l.startsWith('#'));
	if (pinnedLines.length) {
		keys = [];
		for (const [i, l] of pinnedLines.entries()) {
			try {
				keys.push(await parseVkey(l, rep.origin));
			} catch (e) {
				throw new Error(`pinned key ${i + 1}: ${e.message}`);
			}
		}
		rep.pinned = true;
	}
	rep.keys = keys.map((k) => ({ line: k.line, keyId: k.keyId, noteId: id8(k.id),
		served: served.some((s) => s.line === k.line) }));

	// 2. The checkpoints: each signed, its row's size the one it signs.
	const cj = await get('/v1/audit/checkpoints');
	if (!cj || !Array.isArray(cj.checkpoints))
		throw new Error('GET /v1/audit/checkpoints: no "checkpoints" list');
	const checks = [];
	let bad = false;
	const open = async (name, note, rowSize, id) => {
		const c = { name, id, size: null, result: null, why: null, keyId: null, root: null };
		rep.checkpoints.push(c);
		try {
			const o = await openNote(note, keys, rep.origin);
			c.size = Number(o.size);
			c.root = b64encode(o.root);
			c.keyId = o.key.keyId;
			c.keyLine = o.key.line;
			if (rowSize !== null && BigInt(rowSize) !== o.size) {
				c.result = 'FAILED';
				c.why = "its row's size is not what its note signs";
				bad = true;
			}
			checks.push({ c, size: o.size, root: o.root });
		} catch (e) {
			c.result = 'FAILED';
			c.why = e.message;
			bad = true;
		}
	};
	for (const [i, o] of cj.checkpoints.entries()) {
		if (!o || !Number.isSafeInteger(o.id) || !Number.isSafeInteger(o.size) || o.size < 0 || typeof o.note !== 'string')
			throw new Error(`GET /v1/audit/checkpoints: checkpoint ${i} is not {"id", "size", "note"}`);
		await open(`#${o.id} (served)`, o.note, o.size, o.id);
	}
	if (String(opts.kept || '').trim())
		await open('kept elsewhere (pasted)', String(opts.kept).replace(/\r\n/g, '\n'), null, null);
	checks.sort((a, b) => (a.size < b.size ? -1 : a.size > b.size ? 1 : 0));

	// 3. The entries, a page at a time, up to the log's size when the
	// first page came; each leaf hash recomputed, the tree from those.
	const tree = new MerkleStream();
	const events = new Events(get);
	let next = 0, matched = 0n;
	const rootChecks = async () => {
		while (next < checks.length && checks[next].size === BigInt(tree.size)) {
			const k = checks[next++];
			const r = await tree.root();
			if (same(r, k.root)) {
				k.c.result = 'matches';
				matched = k.size;
			} else {
				k.c.result = 'DIFFERS from the log';
				fail(tree.size > 0 ? tree.size - 1 : null, `the root of the first ${k.size} entries differs from checkpoint ${k.c.name}: an entry from ${matched} to ${k.size > 0n ? k.size - 1n : 0n} is not what it signed`);
			}
		}
	};
	await rootChecks();
	let from = 0, size = 0, seen = 0, lastEvent = 0n, first = true, stop = false;
	do {
		const path = `/v1/audit/entries?from=${from}&limit=${page}`;
		const j = await get(path);
		if (!j || !Number.isSafeInteger(j.size) || j.size < 0 || j.from !== from || !Array.isArray(j.entries))
			throw new Error(`GET ${path}: not {"size", "from": ${from}, "entries": [...]}`);
		if (!first && j.size < seen) {
			fail(j.size, `the log shrank from ${seen} to ${j.size} entries while it was read (cut short?)`);
			break;
		}
		if (j.entries.length === 0 && from < (first ? j.size : size)) {
			fail(from, `the gate served no entry from ${from}, though it says its log has ${j.size}`);
			break;
		}
		if (first)
			size = j.size;
		seen = j.size;
		first = false;
		// Leaf hashes of the page at once; the tree one by one.
		const rows = [];
		for (const [i, o] of j.entries.entries()) {
			const idx = from + rows.length;
			if (idx >= size)
				break; // appended since the walk began
			if (!o || !Number.isSafeInteger(o.index))
				throw new Error(`GET /v1/audit/entries: entry ${i} of the page has no index`);
			if (o.index !== idx) {
				fail(idx, `entry ${idx} is ${o.index > idx ? 'missing' : 'out of order'}: asked for it, the gate served entry ${o.index} in its place`);
				stop = true;
				break;
			}
			const bytes = b64decode(o.entry);
			if (!bytes || bytes.length > ENTRY_MAX)
				throw new Error(`GET /v1/audit/entries: entry ${idx} is not base64 of at most ${ENTRY_MAX} bytes`);
			const stored = b64decode(o.hash);
			if (!stored || stored.length !== 32)
				throw new Error(`GET /v1/audit/entries: the hash of entry ${idx} is not base64 of 32 bytes`);
			rows.push({ idx, bytes, stored });
		}
		const leaves = await Promise.all(rows.map((r) => leafHash(r.bytes)));
		for (const [k, r] of rows.entries()) {
			let f = null;
			try {
				f = checkEntry(r.bytes, r.idx);
			} catch (e) {
				fail(r.idx, `entry ${r.idx} is not a well-formed version 1 entry of its place: ${e.message}`);
			}
			if (f) {
				const ev = f.num.event;
				if (ev <= lastEvent)
					fail(r.idx, `entry ${r.idx} records event ${ev} after event ${lastEvent} (reordered?)`);
				if (ev > lastEvent)
					lastEvent = ev;
			}
			if (!same(leaves[k], r.stored))
				fail(r.idx, `entry ${r.idx} does not hash to the leaf hash the gate stores for it (the entry or the hash was edited)`);
			await tree.push(leaves[k]);
			await rootChecks();
			if (f)
				await matchEvent(events, r.idx, f, fail) && rep.events++;
		}
		from += rows.length;
		progress(from, size);
	} while (!stop && from < size);
	for (const k of checks.slice(next))
		if (k.c.result === null) {
			k.c.result = 'BEYOND the log';
			fail(tree.size, `checkpoint ${k.c.name} is of ${k.size} entries; the log has ${tree.size} (truncated?)`);
		}
	rep.size = tree.size;
	rep.root = b64encode(await tree.root());
	rep.signed = Number(matched); // the entries a matching checkpoint signs
	// The newest the gate serves (they come oldest first), verified or not.
	const servedCk = rep.checkpoints.filter((c) => c.id !== null);
	rep.latest = servedCk.length ? servedCk[servedCk.length - 1] : null;
	if (!checks.length && !bad)
		fail(null, 'no checkpoint verifies: nothing the gate served is signed');
	if (bad)
		fail(null, 'a checkpoint does not verify (see the checkpoints)');
	rep.ok = rep.failures.length === 0;
	rep.checkedAt = new Date().toISOString();
	return rep;
}

// The event an entry records, as GET /v1/events serves it: its id, time,
// action, actor, submission and detail the entry's. The CLI checks this
// only on the gate's host (against the tables); here it finds an events
// row edited, added or deleted behind the gate's back, its entry left.
async function matchEvent(events, idx, f, fail) {
	const ev = f.num.event;
	for (;;) {
		const e = await events.peek();
		if (!e || BigInt(e.id) > ev) {
			fail(idx, `entry ${idx} records event ${ev}, which GET /v1/events does not serve (the event row was deleted?)`);
			return false;
		}
		events.take();
		if (BigInt(e.id) < ev) {
			fail(idx, `event ${e.id} is not in the audit log (added to the events table behind the gate's back?)`);
			continue;
		}
		const at = Date.parse(e.at);
		const diffs = [];
		if (!Number.isFinite(at) || BigInt(at) !== f.num.at)
			diffs.push(`at is ${f.num.at} ms in the entry, ${e.at} in the event`);
		const cmp = [['action', memberBytes(e, 'action')], ['actor-name', memberBytes(e, 'actor')],
			['detail', memberBytes(e, 'detail')]];
		for (const [key, got] of cmp) {
			const want = unescapeValue(f[key]);
			if (!same(want, got))
				diffs.push(`${key} is '${shown(want)}' in the entry, '${shown(got)}' in the event`);
		}
		if (!(e.submission === null || Number.isSafeInteger(e.submission)) || typeof e.at !== 'string')
			throw new Error(`GET /v1/events: event ${e.id} is not {"id", "at", "action", "actor", "detail", "submission"}`);
		const sub = e.submission === null ? 0n : BigInt(e.submission);
		if (sub !== f.num.submission)
			diffs.push(`submission is ${f.num.submission} in the entry, ${sub} in the event`);
		if (diffs.length)
			fail(idx, `event ${ev} is not what entry ${idx} records (the event row was edited?): ${diffs.join('; ')}`);
		return diffs.length === 0;
	}
}
