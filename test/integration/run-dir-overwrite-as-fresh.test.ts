// --overwrite into a run directory that holds another (longer, differently configured) run
// gives the run a fresh directory gets: the same final weights, the same checkpoints and no
// later one of the earlier run left beside them, metrics.jsonl with this run's lines alone, and
// a file mgpu-train did not write kept (and named).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, finalWeights, readMetrics, runCliAsync } from '../helpers/chaos.ts';
import { tinyRun } from '../helpers/run-dir-fixture.ts';

const losses = (runDir: string) =>
  readMetrics(path.join(runDir, 'metrics.jsonl'))
    .filter((l) => l.type === 'train' || l.type === 'eval')
    .map((l) => `${l.type} ${l.step} ${String(l.loss)}`);

test('--overwrite gives the run a fresh directory would get, keeping files mgpu-train did not write', async () => {
  const { dir, runDir, config } = tinyRun('overwrite');
  const earlier = await runCliAsync(['train', config, '--set', 'training.steps=6', '--set', 'optimizer.learningRate=0.2', '--set', 'log.every=1']);
  assert.equal(earlier.code, 0, earlier.stderr);
  assert.deepEqual(checkpointSteps(runDir), [2, 4, 6]);
  fs.writeFileSync(path.join(runDir, 'notes.txt'), 'mine\n');

  const r = await runCliAsync(['train', config, '--overwrite']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `^--overwrite: removed the earlier run in ${runDir} \\(checkpoints/ \\(3 checkpoints up to step 6\\), .*\\); kept what mgpu-train did not write: notes\\.txt$`,
      'm',
    ),
  );
  const fresh = path.join(dir, 'fresh');
  const ref = await runCliAsync(['train', config, '--run-dir', fresh]);
  assert.equal(ref.code, 0, ref.stderr);

  assert.deepEqual(checkpointSteps(runDir), [2, 4], "the earlier run's step-6 is still there");
  assert.ok(finalWeights(runDir).equals(finalWeights(fresh)), 'final/ differs from the fresh run');
  for (const k of [2, 4]) {
    const w = (d: string) => fs.readFileSync(path.join(d, 'checkpoints', `step-${k}`, 'weights.bin'));
    assert.ok(w(runDir).equals(w(fresh)), `checkpoint step-${k} differs from the fresh run's`);
  }
  assert.deepEqual(losses(runDir), losses(fresh), "metrics.jsonl holds other lines than the fresh run's");
  assert.equal(fs.readdirSync(runDir).filter((n) => n.startsWith('events.out.tfevents.')).length, 1, 'two event files');
  assert.equal(fs.readFileSync(path.join(runDir, 'notes.txt'), 'utf8'), 'mine\n');
});
