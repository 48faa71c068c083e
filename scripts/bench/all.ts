// npm run bench: every benchmark, one after the other, each printing its table and saving JSON
// in bench-results/. Not a test: nothing here asserts a time.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

for (const script of ['scaling.ts', 'sync.ts', 'latency.ts']) {
  execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${script}`, import.meta.url))], { stdio: 'inherit' });
}
