// view.js - one submission in the review UI: its findings (most severe
// first), its content as text with each finding marked on its line, and
// the decision (approve, reject). docs/review-ui.md.
//
// Trust: the submission, its findings and its bytes are the agent's and
// hostile: all of it goes in as text nodes (dom.js), binary content is never
// rendered. Fetching the content is the review evidence the gate records.

import { el, vis, visible, clear, rank } from './dom.js';
import { call, foldName, ApiError } from './api.js';

const HIGH = new Set(['high', 'critical']);
const DECIDERS = new Set(['reviewer', 'admin']);
let cur = { marks: [], at: -1, diff: null };

const lineId = (file, n) => `L-${file}-${n}`;

// ---- content --------------------------------------------------------------------

// asText(BYTES): the text, or null when the bytes are not UTF-8 text.
function asText(buf) {
	try {
		const t = new TextDecoder('utf-8', { fatal: true }).decode(buf);
		return t.includes('\u0000') ? null : t;
	} catch {
		return null;
	}
}

async function sha256hex(buf) {
	const d = new Uint8Array(await crypto.subtle.digest('SHA-256', buf));
	return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The findings of one line: key "FILE\nLINE" (FILE the finding's path).
function findingIndex(findings) {
	const m = new Map();
	findings.forEach((f, i) => {
		const k = `${f.path}\n${f.line}`;
		if (!m.has(k))
			m.set(k, []);
		m.get(k).push(i);
	});
	return m;
}

// Secrets in shown lines. The gate redacts a secret rule's secret in every
// excerpt of its line (its first bytes, then "*****"), and keeps no span of
// it; the page finds each masked run by aligning the excerpt with the line
// and masks it there too. It masks only what it can tell for sure, and
// only a run of token characters, so that a mask never hides code: a line
// that holds "*****" itself, an excerpt that aligns at no place or at two,
// or a run with white space, quotes or shell punctuation in it is shown
// as it is (and the line says the secret is shown).
const MASK = '*****';
const TOKENISH = /^[A-Za-z0-9+/=_.~:@%$!^*,#?\-]+$/u;

export function secretRuns(text, excerpts) {
	const runs = [];
	let shown = false;
	for (const ex of excerpts) {
		if (typeof ex !== 'string' || !ex.includes(MASK))
			continue;
		if (text.includes(MASK)) {
			shown = true;
			continue;
		}
		const segs = ex.split(MASK);
		const fits = [];
		for (let p = text.indexOf(segs[0]); p >= 0 && fits.length < 2; p = text.indexOf(segs[0], p + 1)) {
			let at = p + segs[0].length;
			const mine = [];
			let ok = true;
			for (let i = 1; i < segs.length && ok; i++) {
				const last = i === segs.length - 1 && segs[i] === '';
				// The last mask may end the excerpt: its run is the token
				// characters that follow.
				const end = last ? at + (/^[A-Za-z0-9+/=_.~\-]*/u.exec(text.slice(at))[0].length) :
					text.indexOf(segs[i], at + 1);
				if (end <= at || !TOKENISH.test(text.slice(at, end))) {
					ok = false;
					break;
				}
				mine.push([at, end]);
				at = end + segs[i].length;
			}
			if (ok)
				fits.push(mine);
		}
		if (fits.length === 1)
			runs.push(...fits[0]);
		else
			shown = true;
	}
	runs.sort((a, b) => a[0] - b[0]);
	const merged = [];
	for (const r of runs) {
		if (merged.length && r[0] <= merged[merged.length - 1][1])
			merged[merged.length - 1][1] = Math.max(merged[merged.length - 1][1], r[1]);
		else
			merged.push([...r]);
	}
	return { runs: merged, shown };
}

// Key material of a flagged private key block: the lines after a line
// with a finding and a "-----BEGIN … PRIVATE KEY-----" header, while they
// are PEM headers, blank, or base64 only, up to "-----END". ROWS are
// {body, hit}: body the line's text without a diff's marker (null: a line
// that neither ends nor belongs to the block, a removed one). The indexes
// of the lines to mask.
const PEM_BEGIN = /-----BEGIN[ A-Z0-9]{0,24} PRIVATE KEY(?: BLOCK)?-----/;
function pemBodies(rows) {
	const out = new Set();
	for (let i = 0; i < rows.length; i++) {
		if (!rows[i].hit || rows[i].body === null || !PEM_BEGIN.test(rows[i].body))
			continue;
		for (let j = i + 1; j < rows.length; j++) {
			const t = rows[j].body;
			if (t === null || /^\s*$/.test(t) || /^[A-Za-z-]{2,32}:/.test(t))
				continue;
			if (!/^\s*[A-Za-z0-9+/=]{8,}\s*$/.test(t))
				break;
			out.add(j);
		}
	}
	return out;
}

// The code of a line: its text (hidden characters made visible) with the
// secret runs of its findings masked; PEM (the characters kept before the
// mask, a diff's marker) masks the whole line as key material.
function codeText(text, hits, findings, pem) {
	const code = el('span', { class: 'code' });
	if (pem !== undefined && pem !== null) {
		code.append(visible(text.slice(0, pem)), el('span', { class: 'secret', title: 'private key material: redacted' },
			`\u27E8private key material: ${text.length - pem} characters\u27E9`));
		return code;
	}
	const { runs, shown } = hits ? secretRuns(text, hits.map((i) => findings[i].excerpt)) : { runs: [], shown: false };
	let at = 0;
	for (const [a, b] of runs) {
		code.append(visible(text.slice(at, a)),
			el('span', { class: 'secret', title: 'a secret: redacted, as the gate redacts it' },
				`\u27E8secret: ${b - a} more characters\u27E9`));
		at = b;
	}
	code.append(visible(text.slice(at)));
	if (shown)
		code.append(el('span', { class: 'secret-shown' }, ' (a secret on this line is shown: the page could not tell exactly where it is)'));
	return code;
}

function codeLine(cls, num, text, hits, findings, fileKey, pem) {
	const row = el('div', { class: `line ${cls}${hits ? ' hit' : ''}` },
		el('span', { class: 'ln' }, num === null ? '' : String(num)),
		codeText(text, hits, findings, pem));
	if (hits) {
		row.id = lineId(fileKey, num);
		for (const i of hits) {
			const f = findings[i];
			row.append(el('span', { class: `mark sev-${f.severity}` },
				`${f.severity} `, vis('span', {}, f.rule)));
		}
		cur.marks.push(row);
	}
	return row;
}

// A path of a git header as git writes it: bare, or in double quotes with
// C escapes (\t, \n, \", \\, \NNN octal bytes, UTF-8); its a/ or b/
// prefix dropped. /dev/null stays.
export function gitPath(raw) {
	let p = raw;
	if (p.length >= 2 && p[0] === '"' && p.endsWith('"')) {
		const bytes = [];
		const enc = new TextEncoder();
		for (let i = 1; i < p.length - 1; i++) {
			const c = p[i];
			if (c !== '\\') {
				bytes.push(...enc.encode(c));
				continue;
			}
			const d = p[++i];
			const o = /^[0-7]{3}/.exec(p.slice(i, i + 3));
			if (o) {
				bytes.push(parseInt(o[0], 8) & 0xff);
				i += 2;
			} else {
				const esc = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
				bytes.push(...(d in esc ? [esc[d]] : enc.encode(`\\${d ?? ''}`)));
			}
		}
		p = new TextDecoder('utf-8').decode(new Uint8Array(bytes));
	}
	return p === '/dev/null' ? p : p.replace(/^[ab]\//, '');
}

// The post-image path of "diff --git A B": as git reads it, the two
// names the same when unquoted (so "a/x y b/x y" is x y), or B quoted.
function gitHeaderPath(rest) {
	const half = (rest.length - 1) / 2;
	if (Number.isInteger(half) && rest.startsWith('a/') && rest[half] === ' ' &&
	    rest.slice(half + 1) === `b/${rest.slice(2, half)}`)
		return rest.slice(2, half);
	const m = /^(?:"(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
	return m ? gitPath(m[1]) : null;
}

const MODE_WORDS = { '100644': 'file', '100755': 'executable file', '120000': 'symbolic link',
	'160000': 'submodule (gitlink)', '040000': 'directory' };
const modeWord = (m) => MODE_WORDS[m] || `mode ${m}`;
const aMode = (m) => `${/^[aeiou]/.test(modeWord(m)) ? 'an' : 'a'} ${modeWord(m)}`;

// What a file's git headers say it does besides its lines: renamed,
// copied, created, deleted, its mode changed, binary. A list of phrases,
// the worrying ones marked (a file made executable, a link, a submodule).
function fileChanges(h) {
	const out = [];
	const warn = (m) => m === '100755' || m === '120000' || m === '160000';
	if (h.renameFrom !== undefined || h.copyFrom !== undefined) {
		const copy = h.renameFrom === undefined;
		out.push({ text: `${copy ? 'copied' : 'renamed'} ${copy ? h.copyFrom : h.renameFrom} \u2192 ${(copy ? h.copyTo : h.renameTo) ?? '?'}${h.similarity ? ` (similarity ${h.similarity})` : ''}`, warn: true });
	}
	if (h.newFile !== undefined)
		out.push({ text: `new ${modeWord(h.newFile)} (mode ${h.newFile})`, warn: warn(h.newFile) });
	if (h.deleted !== undefined)
		out.push({ text: `deleted (was ${aMode(h.deleted)}, mode ${h.deleted})`, warn: false });
	if (h.oldMode !== undefined || h.newMode !== undefined)
		out.push({ text: `mode ${h.oldMode ?? '?'} \u2192 ${h.newMode ?? '?'}: now ${aMode(h.newMode)}`, warn: warn(h.newMode) || h.oldMode === '120000' });
	if (h.binary)
		out.push({ text: 'binary: its bytes are not shown', warn: true });
	return out;
}

// A unified diff parsed into its lines: each with its kind (file, hunk,
// meta, del, add, ctx), its pre-image (old) and post-image (new) line
// numbers, and the findings of NAME!/PATH on its post-image line. Each
// file (from "diff --git", or "--- " for a plain diff) has one head line
// whose changes (fileChanges) and file-level findings (line 0) are shown
// on it.
function parsePatch(text, name, findings) {
	const idx = findingIndex(findings);
	const out = [];
	// In a hunk while its header's counts are not used up: a body line is
	// never taken for a header ("--- x" removing "-- x").
	let file = null, o = 0, n = 0, fidx = 0, oleft = 0, nleft = 0, head = null;
	const open = (line) => {
		fidx++;
		head = { kind: 'head', text: line, h: {}, key: `${fidx}`, path: null };
		out.push(head);
	};
	for (const line of text.split('\n')) {
		const body = oleft > 0 || nleft > 0;
		const h = body ? null : /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
		const g = body ? null : /^(old mode|new mode|new file mode|deleted file mode|rename from|rename to|copy from|copy to|similarity index|dissimilarity index) (.*)$/.exec(line);
		if (!body && line.startsWith('diff --git ')) {
			open(line);
			head.path = gitHeaderPath(line.slice(11));
			file = null;
		} else if (g && head) {
			const k = { 'old mode': 'oldMode', 'new mode': 'newMode', 'new file mode': 'newFile',
				'deleted file mode': 'deleted', 'rename from': 'renameFrom', 'rename to': 'renameTo',
				'copy from': 'copyFrom', 'copy to': 'copyTo', 'similarity index': 'similarity',
				'dissimilarity index': 'similarity' }[g[1]];
			head.h[k] = /(from|to)$/.test(g[1]) ? gitPath(g[2]) : g[2];
			if (g[1] === 'rename to' || g[1] === 'copy to')
				head.path = head.h[k];
			out.push({ kind: 'meta', text: line });
		} else if (!body && head && (line.startsWith('Binary files ') || line === 'GIT binary patch')) {
			head.h.binary = true;
			out.push({ kind: 'meta', text: line });
		} else if (!body && line.startsWith('--- ')) {
			// A plain diff's file begins here; a git one's began at its
			// "diff --git" line.
			if (head === null || head.plus)
				open(line);
			out.push({ kind: 'file', text: line });
		} else if (!body && line.startsWith('+++ ')) {
			file = gitPath(line.slice(4).replace(/\t.*$/, ''));
			if (head === null)
				open(line);
			head.plus = true;
			if (file !== '/dev/null')
				head.path = file;
			else
				file = head.path;
			out.push({ kind: 'file', text: line });
		} else if (h) {
			o = Number(h[1]);
			n = Number(h[3]);
			oleft = h[2] === undefined ? 1 : Number(h[2]);
			nleft = h[4] === undefined ? 1 : Number(h[4]);
			out.push({ kind: 'hunk', text: line });
		} else if (body && file !== null && (line.startsWith('+') || line.startsWith(' ') || line === '')) {
			// An empty line in a hunk is an unchanged empty line whose
			// space was lost.
			const ctx = line[0] !== '+';
			const t = line === '' ? ' ' : line;
			out.push({ kind: ctx ? 'ctx' : 'add', text: t, old: ctx ? o++ : null, new: n,
				hits: idx.get(`${name}!/${file}\n${n}`), key: `${fidx}` });
			n++;
			nleft--;
			if (ctx)
				oleft--;
		} else if (body && line.startsWith('-')) {
			out.push({ kind: 'del', text: line, old: o++ });
			oleft--;
		} else {
			// "\ No newline at end of file", headers, mail text.
			out.push({ kind: 'meta', text: line });
		}
	}
	const pem = pemBodies(out.map((l) => ({
		body: l.kind === 'add' || l.kind === 'ctx' ? l.text.slice(1) : l.kind === 'del' ? null : '\u0000',
		hit: !!l.hits })));
	for (const i of pem)
		out[i].pem = true;
	for (const l of out)
		if (l.kind === 'head') {
			l.changes = fileChanges(l.h);
			l.hits = l.path === null ? undefined : idx.get(`${name}!/${l.path}\n0`);
		}
	return out;
}

// A file's head line: the header as written, what the change does besides
// its lines (renamed, mode, new, deleted, binary), and its file-level
// findings.
function headLine(l, findings) {
	const row = codeLine('file head', null, l.text, l.hits, findings, `${l.key}-head`);
	if (l.hits)
		row.id = lineId(`${l.key}-head`, 0);
	if (l.changes.length) {
		const c = el('div', { class: 'changes' });
		for (const ch of l.changes)
			c.append(vis('span', { class: `change${ch.warn ? ' warn' : ''}` }, ch.text));
		row.append(c);
	}
	return row;
}

// The unified diff: post-image line numbers, findings marked on their line.
function unifiedDiff(lines, findings) {
	const box = el('div', { class: 'content diff' });
	for (const l of lines)
		box.append(l.kind === 'head' ? headLine(l, findings) :
			codeLine(l.kind, l.new ?? null, l.text, l.hits, findings, l.key, l.pem ? 1 : null));
	return box;
}

// One side of a side-by-side row: its line number and text (the diff's
// +/-/space column dropped), or an empty cell.
function side(cls, num, text, hits, findings, fileKey, pem) {
	if (text === null)
		return el('div', { class: `side ${cls} none` });
	const c = codeLine(cls, num, text, hits, findings, fileKey, pem ? 0 : null);
	c.classList.add('side');
	return c;
}

// Side by side: the pre-image left, the post-image right; a run of removed
// lines paired row by row with the added lines after it; findings marked
// on their post-image line (the right column).
function splitDiff(lines, findings) {
	const box = el('div', { class: 'content diff split' });
	let dels = [], adds = [];
	const flush = () => {
		for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
			const d = dels[i], a = adds[i];
			box.append(side('left del', d ? d.old : null, d ? d.text.slice(1) : null),
				side('right add', a ? a.new : null, a ? a.text.slice(1) : null, a && a.hits, findings, a && a.key, a && a.pem));
		}
		dels = [];
		adds = [];
	};
	for (const l of lines) {
		if (l.kind === 'del' && l.old !== undefined) {
			if (adds.length)
				flush();
			dels.push(l);
		} else if (l.kind === 'add') {
			adds.push(l);
		} else {
			flush();
			if (l.kind === 'ctx') {
				box.append(side('left ctx', l.old, l.text.slice(1), null, findings, null, l.pem),
					side('right ctx', l.new, l.text.slice(1), l.hits, findings, l.key, l.pem));
			} else if (l.kind === 'head') {
				const r = headLine(l, findings);
				r.classList.add('full');
				box.append(r);
			} else {
				const r = codeLine(l.kind, null, l.text, null);
				r.classList.add('full');
				box.append(r);
			}
		}
	}
	flush();
	return box;
}

let split = false; // side by side; kept while the page is open

// The diff in its holder, as unified or side by side; the marks of the
// diff replaced by those just drawn (the same findings, in order).
function drawDiff() {
	const d = cur.diff;
	if (!d)
		return;
	const old = new Set(cur.marks);
	const mine = cur.marks.filter((m) => d.holder.contains(m));
	const rest = cur.marks.filter((m) => !d.holder.contains(m));
	const at = cur.marks[cur.at];
	cur.marks = [];
	clear(d.holder).append((split ? splitDiff : unifiedDiff)(d.lines, d.findings));
	const fresh = cur.marks;
	cur.marks = [...fresh, ...rest];
	if (at && old.has(at))
		cur.at = mine.includes(at) ? mine.indexOf(at) : fresh.length + rest.indexOf(at);
	if (cur.at >= 0 && cur.marks[cur.at])
		cur.marks[cur.at].classList.add('target');
	d.button.textContent = split ? 'Unified' : 'Side by side';
	d.button.setAttribute('aria-pressed', String(split));
}

// toggleSplit(): the patch shown the other way (key s); false when the
// submission shown is no patch.
export function toggleSplit() {
	if (!cur.diff)
		return false;
	split = !split;
	drawDiff();
	return true;
}

function renderPatch(text, name, findings) {
	const button = el('button', { type: 'button', id: 'split-toggle', 'aria-pressed': 'false' }, 'Side by side');
	const holder = el('div', { id: 'diff' });
	cur.diff = { lines: parsePatch(text, name, findings), findings, holder, button };
	button.addEventListener('click', toggleSplit);
	drawDiff();
	return el('div', {}, el('p', { class: 'buttons' }, button,
		el('span', { class: 'note' }, 's switches unified / side by side')), holder);
}

// Plain text: its lines, findings of PATH marked.
function renderText(text, path, findings, fileKey) {
	const idx = findingIndex(findings);
	const box = el('div', { class: 'content' });
	const lines = text.split('\n');
	const pem = pemBodies(lines.map((line, i) => ({ body: line, hit: idx.has(`${path}\n${i + 1}`) })));
	lines.forEach((line, i) => {
		box.append(codeLine('ctx', i + 1, line, idx.get(`${path}\n${i + 1}`), findings, fileKey, pem.has(i) ? 0 : null));
	});
	return box;
}

async function renderBinary(buf, what) {
	return el('p', { class: 'binary' },
		`${what}: binary, ${buf.byteLength} bytes, sha256 ${await sha256hex(buf)}; not shown.`);
}

const SEP = '!/';

// An item's mode bits in words, the worrying ones marked: a link, a
// submodule, an executable, setuid/setgid, a device or a fifo.
function modeInfo(mode) {
	if (!mode)
		return { text: '', warn: false };
	const t = mode & 0o170000, oct = mode.toString(8).padStart(6, '0');
	const kinds = { 0o100000: 'file', 0o040000: 'directory', 0o120000: 'symbolic link',
		0o160000: 'submodule', 0o020000: 'character device', 0o060000: 'block device',
		0o010000: 'fifo', 0o140000: 'socket' };
	const words = [kinds[t] || 'unknown type'];
	if (t === 0o100000 && mode & 0o111)
		words[0] = 'executable file';
	if (mode & 0o4000)
		words.push('setuid');
	if (mode & 0o2000)
		words.push('setgid');
	return { text: `${words.join(', ')} (${oct})`, warn: t !== 0o100000 && t !== 0o040000 || (mode & 0o6111) !== 0 };
}

// The findings in ITEM (its own, and a nested archive's members'): how
// many and the worst.
function itemFindings(findings, path) {
	const mine = findings.filter((f) => f.path === path || f.path.startsWith(path + SEP));
	const worst = mine.reduce((w, f) => (rank(f.severity) > rank(w) ? f.severity : w), '');
	return { n: mine.length, worst };
}

const shortSha = (h) => (h ? `${h.slice(0, 12)}\u2026` : '\u2013');

// The items of an archive or a bundle as a table: path (inside the
// artifact), what it is, size, sha256, whether its bytes are shown, and
// its findings; a shown item's path links to its text below.
function itemTable(s, items) {
	const tb = el('tbody');
	for (const it of items) {
		const mi = modeInfo(it.mode);
		const fi = itemFindings(s.findings, it.path);
		const link = it.shown ? vis('a', { href: `#/s/${s.id}`, class: 'item-link' }, it.rel) : vis('span', {}, it.rel);
		if (it.shown)
			link.addEventListener('click', (ev) => {
				ev.preventDefault();
				document.getElementById(`item-${it.n}`)?.scrollIntoView({ block: 'start' });
			});
		const why = { kept: 'shown below', binary: 'binary: described, not shown',
			partial: 'not read to its end', 'over-member-cap': 'larger than the 1 MiB kept of a member',
			'over-artifact-cap': 'past the 16 MiB kept of one artifact' }[it.content] || 'not kept';
		tb.append(el('tr', { class: fi.n ? 'hazard' : null, id: `item-row-${it.n}` },
			el('td', { class: 'path' }, it.depth ? '\u21B3 '.repeat(it.depth) : '', link),
			vis('td', {}, it.type || '\u2013'),
			el('td', { class: mi.warn ? 'warn' : null }, mi.text),
			el('td', { class: 'num' }, String(it.size)),
			el('td', { title: it.sha256 || 'not read to its end' }, el('code', {}, shortSha(it.sha256))),
			el('td', {}, why),
			el('td', {}, fi.n ? el('span', { class: `sev sev-${fi.worst}` }, `${fi.n} ${fi.worst}`) : '')));
	}
	return el('table', { class: 'items' },
		el('thead', {}, el('tr', {}, ...['item', 'type', 'mode', 'bytes', 'sha256', 'content', 'findings']
			.map((h) => el('th', {}, h)))), tb);
}

// A bundle's commits, in the order the gate walked them (parents first):
// each one's id, its identities and message (the kept commit text, its
// findings marked) and the files it brought.
function commitList(s, commits, items) {
	const box = el('div', { class: 'commits' });
	for (const c of commits) {
		const files = items.filter((it) => it.commit === c.rel && it !== c);
		const text = c.bytes ? asText(c.bytes) : null;
		const subject = text === null ? '' : (text.split('\n\n')[1] || '').split('\n')[0];
		box.append(el('section', { class: 'commit', id: `item-${c.n}` },
			el('h4', {}, el('code', {}, c.rel), ' ', vis('span', { class: 'subject' }, subject)),
			text === null ? el('p', { class: 'binary' }, 'the commit text is not shown (not text, or not kept)') :
				renderText(text, c.path, s.findings, `i${c.n}`),
			el('p', { class: 'note' }, `${files.length} file${files.length === 1 ? '' : 's'} brought by this commit`)));
	}
	return box;
}

async function renderContent(s, box) {
	const id = s.id;
	const buf = await call('GET', `/v1/submissions/${id}/content`, { raw: true });
	const tree = s.kind === 'archive' || s.kind === 'bundle';
	const text = tree ? null : asText(buf);
	if (text === null) {
		box.append(await renderBinary(buf, 'the artifact'));
	} else if (s.kind === 'patch' || s.kind === 'mbox') {
		box.append(renderPatch(text, s.name, s.findings));
	} else {
		box.append(renderText(text, s.name, s.findings, 'f'));
	}
	if (!tree)
		return;
	// Every item the scan read; the kept ones' bytes fetched (all of them:
	// the whole content is what an approval is for).
	const prefix = `${s.name}${SEP}`;
	const items = (s.items || []).map((it, n) => {
		const rel = it.path.startsWith(prefix) ? it.path.slice(prefix.length) : it.path;
		const parts = rel.split(SEP);
		return { ...it, n, rel, depth: parts.length - 1,
			commit: s.kind === 'bundle' && /^[0-9a-f]{12}$/.test(parts[0]) ? parts[0] : null };
	});
	for (const it of items) {
		if (it.content !== 'kept')
			continue;
		it.bytes = await call('GET', `/v1/submissions/${id}/items/${it.n}/content`, { raw: true });
		it.shown = true;
	}
	if (s.kind === 'bundle') {
		const commits = items.filter((it) => it.commit !== null && it.depth === 0);
		box.append(el('h3', {}, `Commits (${commits.length})`), commitList(s, commits, items));
	}
	box.append(el('h3', {}, `Items (${items.length})`), itemTable(s, items));
	for (const it of items) {
		if (!it.shown || (it.commit !== null && it.rel === it.commit))
			continue;
		const t = asText(it.bytes);
		box.append(vis('h3', { class: 'item', id: `item-${it.n}` }, it.path));
		box.append(t === null ? await renderBinary(it.bytes, it.path) : renderText(t, it.path, s.findings, `i${it.n}`));
	}
}

// ---- findings -------------------------------------------------------------------

function findingList(s) {
	const ul = el('ol', { class: 'findings' });
	for (const f of s.findings) {
		const a = vis('a', { href: `#/s/${s.id}` }, `${f.path}:${f.line}`);
		a.addEventListener('click', (ev) => {
			ev.preventDefault();
			const row = cur.marks.find((r) => r.textContent.includes(f.rule) &&
				r.id.endsWith(`-${f.line}`));
			if (row)
				focusMark(cur.marks.indexOf(row));
		});
		ul.append(el('li', {},
			el('span', { class: `sev sev-${f.severity}` }, f.severity), ' ',
			vis('code', { class: 'rule' }, f.rule), ' ', a, ' ',
			vis('span', { class: 'excerpt' }, f.excerpt)));
	}
	return ul;
}

function focusMark(i) {
	if (!cur.marks.length)
		return;
	cur.at = (i + cur.marks.length) % cur.marks.length;
	for (const r of cur.marks)
		r.classList.remove('target');
	const r = cur.marks[cur.at];
	r.classList.add('target');
	r.scrollIntoView({ block: 'center' });
}

export const stepFinding = (d) => focusMark(cur.at + d);

// decisionKey(KEY): the decision panel's keys in a submission's view: c
// the comment, a approve (a second confirmation is then focused: Enter
// confirms it), r reject, o override (an admin, an unscannable verdict;
// confirmed the same way), Escape withdraws an asked confirmation. A
// disabled panel does nothing. true when KEY was one of them.
export function decisionKey(key) {
	const $ = (id) => document.getElementById(id);
	if (!$('decision'))
		return false;
	if (key === 'c' && !$('comment').disabled)
		$('comment').focus();
	else if (key === 'a')
		$('approve').click();
	else if (key === 'r')
		$('reject').click();
	else if (key === 'o' && $('override'))
		$('override').click();
	else if (key === 'Escape' && $('confirm-override') && !$('confirm-override').hidden)
		$('confirm-override').hidden = true;
	else if (key === 'Escape' && !$('confirm').hidden)
		$('confirm').hidden = true;
	else
		return false;
	return true;
}

// ---- the decision -------------------------------------------------------------------

// Why the gate would refuse who (GET /v1/whoami) an approval or a rejection
// of s, when the page can tell in advance (docs/api.md: roles, separation of
// duties); null when it cannot (the gate may still refuse, and says why).
export function refusal(s, who) {
	const w = s.witnessed || {};
	if (!who)
		return null;
	if (!DECIDERS.has(who.role))
		return `a${who.role === 'auditor' || who.role === 'agent' ? 'n' : ''} ${who.role} token cannot approve or reject: only reviewers and admins decide`;
	if (w.submitter === who.name && w.submitter_hex === undefined)
		return 'this token submitted it: someone else must review it';
	if (who.person && w.launched_by && w.launched_by_hex === undefined &&
	    who.person_hex === undefined && foldName(who.person) === foldName(w.launched_by))
		return 'you are the person this agent was launched for: someone else must review it';
	if (s.state !== 'held')
		return `the submission is ${s.state}: only a held submission is decided`;
	return null;
}

function decision(s, reload, who) {
	const needsConfirm = HIGH.has(s.worst) || s.verdict === 'unscannable';
	const rv = s.review || {};
	const msg = el('p', { class: 'error', role: 'alert' });
	const comment = el('textarea', { id: 'comment', rows: 2, placeholder: 'comment (required to reject)' });
	const approve = el('button', { type: 'button', id: 'approve' }, 'Approve');
	const reject = el('button', { type: 'button', id: 'reject' }, 'Reject');
	const confirm = el('button', { type: 'button', id: 'confirm', hidden: true },
		`Confirm: approve a ${s.verdict === 'unscannable' ? 'unscannable' : s.worst} submission`);
	// An unscannable verdict needs an admin's override besides the
	// approvals: the button is there for it, on for admins only.
	const canOverride = s.verdict === 'unscannable' && !s.overridden && s.state === 'held';
	const override = canOverride ? el('button', { type: 'button', id: 'override' }, 'Override (admin)') : null;
	const confirmOverride = canOverride ? el('button', { type: 'button', id: 'confirm-override', class: 'confirm', hidden: true },
		'Confirm: override the unscannable verdict') : null;
	const disable = (why) => {
		approve.disabled = reject.disabled = true;
		if (override)
			override.disabled = true;
		confirm.hidden = true;
		if (confirmOverride)
			confirmOverride.hidden = true;
		msg.textContent = why;
	};
	const send = async (what, body) => {
		try {
			await call('POST', `/v1/submissions/${s.id}/${what}`, { body });
			reload();
		} catch (e) {
			if (e instanceof ApiError && e.status === 403)
				disable(`the gate refused: ${e.message}`);
			else
				msg.textContent = e.message;
		}
	};
	const doApprove = () => {
		const body = { sha256: s.sha256, ruleset: s.scan && s.scan.ruleset };
		if (comment.value.trim())
			body.comment = comment.value.trim();
		send('approve', body);
	};
	approve.addEventListener('click', () => {
		if (needsConfirm) {
			confirm.hidden = false;
			confirm.focus();
		} else {
			doApprove();
		}
	});
	confirm.addEventListener('click', doApprove);
	reject.addEventListener('click', () => {
		if (!comment.value.trim())
			msg.textContent = 'a rejection needs a comment: say why';
		else
			send('reject', { comment: comment.value.trim() });
	});
	if (override) {
		override.addEventListener('click', () => {
			if (!comment.value.trim()) {
				msg.textContent = 'an override needs a reason: say it in the comment';
				return;
			}
			confirmOverride.hidden = false;
			confirmOverride.focus();
		});
		confirmOverride.addEventListener('click', () => send('override', { reason: comment.value.trim() }));
		if (who && who.role !== 'admin') {
			override.disabled = true;
			override.title = 'only an admin overrides an unscannable verdict';
		}
	}
	const overridden = s.overridden ?
		vis('p', { id: 'overridden', class: 'note' }, `overridden by ${s.overridden.admin} at ${s.overridden.at}: ${s.overridden.reason}`) :
		s.verdict === 'unscannable' ? el('p', { id: 'overridden', class: 'warn' },
			'unscannable: it needs an admin\u2019s override besides the approvals; none given yet') : null;
	const w = s.witnessed || {};
	const who1 = (a) => `${a.reviewer}${a.person && a.person !== a.reviewer ? ` (${a.person})` : ''}`;
	const approvals = el('ul', { id: 'approved-by', class: 'people' });
	for (const a of s.approvals || [])
		approvals.append(vis('li', {}, `${who1(a)} at ${a.at}${a.comment ? `: ${a.comment}` : ''}`));
	const voided = el('ul', { id: 'voided', class: 'people voided' });
	for (const a of s.voided || [])
		voided.append(vis('li', {}, `${who1(a)} at ${a.at}: no longer counts: ${a.why}`));
	const barred = [w.submitter && `${w.submitter} (submitted it)`,
		w.launched_by && `${w.launched_by} (the person it was launched for)`].filter(Boolean);
	const panel = el('section', { class: 'decision', id: 'decision' },
		el('h3', {}, 'Decision'),
		el('p', { id: 'standing' }, `approvals ${rv.approvals ?? 0} of ${rv.needed ?? '?'} needed`), overridden,
		(s.approvals || []).length ? el('div', {}, el('p', { class: 'note' }, 'approved by'), approvals) : null,
		(s.voided || []).length ? el('div', {}, el('p', { class: 'warn' }, 'approvals a rescan voided (they need giving again)'), voided) : null,
		barred.length ? vis('p', { class: 'note', id: 'barred' }, `may not decide: ${barred.join(', ')}`) : null,
		el('p', { class: 'digest' }, 'approving sha256 ', el('code', { id: 'd-sha' }, s.sha256)),
		el('p', { class: 'digest' }, 'under rules ', el('code', { id: 'd-rules' }, (s.scan && s.scan.ruleset) || '\u2013')),
		comment, el('div', { class: 'buttons' }, approve, reject, confirm, override, confirmOverride), msg);
	// Known in advance: the buttons are off before anything is sent.
	const why = refusal(s, who);
	if (why !== null) {
		disable(why);
		comment.disabled = true;
		panel.classList.add('off');
	}
	return panel;
}

// ---- the view ------------------------------------------------------------------------

function summary(s) {
	const w = s.witnessed || {};
	const dl = el('dl', { class: 'summary' });
	const add = (k, v) => dl.append(el('dt', {}, k), vis('dd', {}, v ?? '\u2013'));
	add('state', s.state);
	add('verdict', s.verdict);
	add('worst', s.worst);
	add('kind', s.kind);
	add('size', `${s.size} bytes`);
	add('sha256', s.sha256);
	add('agent', w.submitter);
	add('launched for', w.launched_by);
	add('received', w.received_at);
	for (const [k, v] of Object.entries(s.asserted || {}))
		add(`asserted ${k}`, v);
	return dl;
}

// showSubmission(ID, ROOT, WHO, BACK): WHO is GET /v1/whoami's answer
// (null: not known; then only the gate's answers disable the decision);
// BACK the queue's hash (its filters) the back link goes to.
export async function showSubmission(id, root, who, back = '#/') {
	clear(root);
	cur = { marks: [], at: -1, diff: null };
	const reload = () => showSubmission(id, root, who, back);
	let s;
	try {
		s = await call('GET', `/v1/submissions/${id}`);
	} catch (e) {
		root.append(el('p', { class: 'error', role: 'alert' }, e.message));
		return;
	}
	s.findings = (s.findings || []).slice().sort((a, b) => rank(b.severity) - rank(a.severity));
	const content = el('div', { id: 'content' });
	root.append(el('p', {}, el('a', { href: back, id: 'back' }, '\u2190 queue')),
		el('h2', {}, `#${s.id} `, vis('span', { class: 'name' }, s.name)),
		summary(s), decision(s, reload, who),
		el('h3', {}, `Findings (${s.findings.length})`), findingList(s),
		el('h3', {}, 'Content'), content);
	try {
		await renderContent(s, content);
	} catch (e) {
		content.append(el('p', { class: 'error', role: 'alert' }, `the content could not be read: ${e.message}`));
	}
}
