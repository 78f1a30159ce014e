const net = require('net');

const host = process.env.REDIS_HOST || '127.0.0.1';
const port = Number(process.env.REDIS_PORT || 6379);

const sock = net.connect(port, host, () => {
  sock.write('PING\r\n');
});
sock.on('data', (d) => {
  console.log(`redis says: ${d.toString().trim()}`);
  sock.end();
});
sock.on('error', (e) => {
  console.error(`redis unreachable: ${e.message}`);
  process.exitCode = 1;
});
