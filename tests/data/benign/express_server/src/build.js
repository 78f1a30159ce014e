// Runs the TypeScript compiler for each workspace package.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

for (const pkg of readdirSync("packages")) {
  const r = spawnSync("npx", ["tsc", "-p", `packages/${pkg}`], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (r.status !== 0) process.exit(r.status);
}
