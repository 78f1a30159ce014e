const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const token = process.env.NPM_TOKEN;
if (!token) {
  console.error('NPM_TOKEN is not set');
  process.exit(1);
}

const rc = path.join(os.homedir(), '.npmrc');
fs.writeFileSync(rc, `//registry.npmjs.org/:_authToken=\${NPM_TOKEN}\n`, { mode: 0o600 });

execFileSync('npm', ['publish', '--access', 'public'], { stdio: 'inherit' });
