// `npm run build`: compiles src/ to JavaScript in dist/ (tsc, without its type check: `npm run
// typecheck` does that), then stamps it with the hash of the sources it was compiled from
// (lib/source-hash.mjs), so the command, the library and every worker run from dist/ only while
// src/ is unchanged. Compiled into a fresh folder and renamed over the old one: a build that fails
// or is stopped leaves the previous dist/ (or none), never half of one; a dist/ already compiled
// from these very sources is left as it is. It says what it did on stderr (`npm pack --json`, which
// runs it at prepack, writes its JSON on stdout).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { DIST, DIST_STAMP, distIsFresh, ROOT, sourceHash } from '../lib/source-hash.mjs';

const stamp = sourceHash(); // before compiling: an edit made meanwhile leaves dist/ stale, not wrong
if (distIsFresh()) {
  console.error(`mgpu-train build: dist/ is up to date with src/ (${stamp.slice(0, 12)})`);
  process.exit(0);
}
const partial = `${DIST}.partial-${process.pid}`;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.dist.json'), '--outDir', partial], { stdio: 'inherit' });
if (r.status !== 0) {
  fs.rmSync(partial, { recursive: true, force: true });
  console.error(`mgpu-train build: tsc failed (exit ${r.status ?? r.signal}); dist/ is left as it was`);
  process.exit(1);
}
fs.writeFileSync(path.join(partial, path.basename(DIST_STAMP)), `${stamp}\n`);
fs.rmSync(DIST, { recursive: true, force: true });
fs.renameSync(partial, DIST);
console.error(`mgpu-train build: dist/ compiled from src/ (${stamp.slice(0, 12)})`);
