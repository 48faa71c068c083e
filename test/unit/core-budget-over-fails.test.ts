// The core engine's line budget (npm run check:core-budget, run by .ci/run) fails, naming the
// file or the total, once the core files grow past it, and when a core file it lists is gone;
// the train loop counts every src/coordinator/train*.ts, so splitting train.ts keeps it counted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CORE_FILES, checkCoreBudget } from '../../scripts/core-budget.ts';

const SCRIPT = fileURLToPath(new URL('../../scripts/check-core-budget.ts', import.meta.url));

/** A tree with one file per core entry (two for the train loop), `k + 1` lines for the k-th file. */
function fixture(): { root: string; lines: Map<string, number> } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-core-budget-'));
  const lines = new Map<string, number>();
  const names = CORE_FILES.flatMap((p) =>
    p === 'src/coordinator/train*.ts' ? ['src/coordinator/train.ts', 'src/coordinator/train-loop.ts'] : [p.replace('*', 'x')],
  );
  for (const [k, file] of names.entries()) {
    fs.mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), 'const a = 1;\n'.repeat(k + 1));
    lines.set(file, k + 1);
  }
  fs.writeFileSync(path.join(root, 'src/coordinator/trainer-notes.md'), 'not a .ts file\n');
  return { root, lines };
}

function run(root: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, '--root', root, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('over the total or a per-file budget, or with a core file gone, the check fails naming it', (t) => {
  const { root, lines } = fixture();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const sum = [...lines.values()].reduce((a, b) => a + b, 0);
  const largest = Math.max(...lines.values());
  const largestFile = [...lines].find(([, n]) => n === largest)![0];

  const within = checkCoreBudget(root, CORE_FILES, { total: sum, perFile: largest });
  assert.deepEqual(within.problems, []);
  assert.equal(within.total, sum);
  assert.deepEqual(new Map(within.files.map((f) => [f.file, f.lines])), lines);

  assert.deepEqual(checkCoreBudget(root, CORE_FILES, { total: sum - 1, perFile: largest }).problems, [
    `the core files have ${sum} lines in all, over the budget of ${sum - 1}`,
  ]);
  assert.deepEqual(checkCoreBudget(root, CORE_FILES, { total: sum, perFile: largest - 1 }).problems, [
    `${largestFile} has ${largest} lines, over the budget of ${largest - 1} per core file`,
  ]);

  const over = run(root, '--total', String(sum - 1));
  assert.equal(over.code, 1, over.stderr);
  assert.match(over.stderr, new RegExp(`the core files have ${sum} lines in all, over the budget of ${sum - 1}`));
  assert.match(over.stdout, /src\/coordinator\/train-loop\.ts +2 \//);
  assert.match(over.stdout, new RegExp(`total +${sum} / ${sum - 1}`));
  const fits = run(root, '--total', String(sum), '--per-file', String(largest));
  assert.equal(fits.code, 0, fits.stderr);

  fs.rmSync(path.join(root, 'src/shared/shard.ts'));
  assert.deepEqual(checkCoreBudget(root, CORE_FILES, { total: sum, perFile: largest }).problems, [
    'src/shared/shard.ts matches no file: update the core list in scripts/core-budget.ts and docs/design.md',
  ]);
});
