const { execFile: ef } = require('child_process');

function gitVersion() {
  return new Promise((resolve, reject) => {
    ef('git', ['--version'], (err, stdout) => {
      if (err) return reject(err);
      resolve(stdout.trim().replace(/^git version /, ''));
    });
  });
}

gitVersion()
  .then((v) => {
    const [major] = v.split('.').map(Number);
    if (major < 2) {
      console.error(`git ${v} is too old, please upgrade`);
      process.exitCode = 1;
    }
  })
  .catch(() => console.error('git not found on PATH'));
