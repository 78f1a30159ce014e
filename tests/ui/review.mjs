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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
	const data = join(gate.dir, 'data');
	gate.admin = execFileSync(BIN, ['init', '--data', data], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
	if (!gate.admin)
		throw new Error('airlock init printed no admin token');
	const port = await freePort();
	gate.url = `http://127.0.0.1:${port}`;
	gate.proc = spawn(BIN, ['serve', '--data', data, '--listen', `127.0.0.1:${port}`,
		'--scanners', '1', '--rules', join(ROOT, 'tests/data/rules'),
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

async function stopGate() {
	if (gate.proc && gate.proc.exitCode === null) {
		const done = new Promise((ok) => gate.proc.on('exit', ok));
		gate.proc.kill('SIGTERM');
		await Promise.race([done, sleep(10000)]);
		if (gate.proc.exitCode === null)
			gate.proc.kill('SIGKILL');
	}
	if (gate.dir)
		rmSync(gate.dir, { recursive: true, force: true });
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

function assert(cond, why) {
	if (!cond)
		throw new Error(why);
}

// ---- the tests --------------------------------------------------------------------

const tests = [];
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
