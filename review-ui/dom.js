// dom.js - the review UI's DOM helpers (docs/review-ui.md).
//
// Trust: everything shown here may come from an artifact, an agent or a
// person. Text is inserted only as text nodes (never innerHTML), and the
// characters that hide or reorder text are shown as marked glyphs.

// el(TAG, {class, id, href, ...attributes}, ...children): an element; a
// string child is a text node.
export function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === null || v === undefined || v === false)
			continue;
		if (k === 'class')
			e.className = v;
		else
			e.setAttribute(k, v === true ? '' : String(v));
	}
	for (const k of kids)
		if (k !== null && k !== undefined)
			e.append(typeof k === 'string' ? document.createTextNode(k) : k);
	return e;
}

// Invisible, bidi and control characters: zero-width U+200B-U+200F, the
// bidi embeddings U+202A-U+202E and isolates U+2066-U+2069, U+FEFF, every
// other format character (Cf) and the controls but tab.
const HIDDEN = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF\p{Cf}\u0000-\u0008\u000A-\u001F\u007F-\u009F]/gu;

function glyph(ch) {
	const cp = ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
	return el('span', { class: 'hidden-char', title: `U+${cp}` }, `\u27E8U+${cp}\u27E9`);
}

// visible(TEXT): a fragment showing TEXT, each hidden character as a
// marked glyph (⟨U+202E⟩) in a span.hidden-char.
export function visible(text) {
	const f = document.createDocumentFragment();
	let at = 0;
	const s = String(text ?? '');
	for (const m of s.matchAll(HIDDEN)) {
		if (m.index > at)
			f.append(document.createTextNode(s.slice(at, m.index)));
		f.append(glyph(m[0]));
		at = m.index + m[0].length;
	}
	if (at < s.length)
		f.append(document.createTextNode(s.slice(at)));
	return f;
}

// vis(TAG, attrs, TEXT): an element holding visible(TEXT).
export function vis(tag, attrs, text) {
	return el(tag, attrs, visible(text));
}

export function clear(node) {
	while (node.firstChild)
		node.firstChild.remove();
	return node;
}

const RANK = { critical: 5, high: 4, medium: 3, low: 2, info: 1 };
export const rank = (sev) => RANK[sev] || 0;

// age(ISO): "5s", "3m", "2h", "4d" since then.
export function age(iso) {
	const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
	if (!Number.isFinite(s))
		return '?';
	if (s < 60)
		return `${Math.floor(s)}s`;
	if (s < 3600)
		return `${Math.floor(s / 60)}m`;
	if (s < 86400)
		return `${Math.floor(s / 3600)}h`;
	return `${Math.floor(s / 86400)}d`;
}
