import { execSync as sh } from 'child_process';
import { writeFileSync } from 'fs';

function git(args: string): string {
  return sh(`git ${args}`, { encoding: 'utf8' }).trim();
}

const stamp = {
  commit: git('rev-parse --short HEAD'),
  branch: git('rev-parse --abbrev-ref HEAD'),
  builtAt: new Date().toISOString(),
};

writeFileSync('src/build-info.json', JSON.stringify(stamp, null, 2) + '\n');
console.log(`build ${stamp.commit} on ${stamp.branch}`);
