// The example of a model with two outputs (examples/mnist-two-heads) does what its comments say on
// 2 simulated GPUs: a data module yielding { x: { image }, y: { digit, big } }, a loss per output
// with loss weights, each output evaluated after every epoch with its metrics, best/ on the digit
// accuracy; and predict writes one .npy per output into a directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import samples from '../../examples/mnist-two-heads/data.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/mnist-two-heads/experiment.yaml', import.meta.url));

test('examples/mnist-two-heads trains both heads, evaluates each, and predicts one .npy per output', () => {
  const dir = tempDir('example-two-heads');
  const runDir = path.join(dir, 'run');
  const r = runCli(['train', EXAMPLE, '--simulate', '2', '--set', `runDir=${runDir}`], { timeoutMs: 300_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const evals = fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.type === 'eval') as Array<{ step: number; samples: number; metrics: Record<string, number> } & Record<string, number>>;
  assert.deepEqual(
    evals.map((e) => e.step),
    [71, 142, 213, 284],
    'one eval at the end of each epoch (8,995 digits, batch 128)',
  );
  const last = evals.at(-1)!;
  assert.equal(last.samples, 1005);
  assert.deepEqual(Object.keys(last.metrics), ['accuracy.digit', 'accuracy.big', 'f1_macro.digit', 'f1_macro.big', 'auc.digit', 'auc.big']);
  assert.ok(last.metrics['accuracy.digit']! > 0.9, `digit accuracy ${last.metrics['accuracy.digit']}`);
  assert.ok(last.metrics['accuracy.big']! > 0.9, `big accuracy ${last.metrics['accuracy.big']}`);
  assert.ok(Math.abs(last.loss! - (last['loss.digit']! + 0.5 * last['loss.big']!)) < 1e-5, 'loss = digit + 0.5 big');
  assert.ok(fs.existsSync(path.join(runDir, 'best', 'model.json')));

  // Predict the first 9 held-out digits: one file per output, rows in input order.
  const rows: number[][] = [];
  for (const s of samples({ split: 'data.eval' })) {
    rows.push(s.x.image);
    if (rows.length === 9) break;
  }
  const x = path.join(dir, 'x.npy');
  writeNpy(x, { dtype: 'float32', shape: [9, 784], data: Float32Array.from(rows.flat()) });
  const out = path.join(dir, 'preds');
  const p = runCli(['predict', EXAMPLE, '--simulate', '2', '--checkpoint', path.join(runDir, 'final'), '--input', `image=${x}`, '--output', out]);
  assert.equal(p.code, 0, p.stderr + p.stdout);
  const digit = readNpy(path.join(out, 'digit.npy'));
  const big = readNpy(path.join(out, 'big.npy'));
  assert.deepEqual(
    [digit.shape, big.shape],
    [
      [9, 10],
      [9, 1],
    ],
  );
  for (let i = 0; i < 9; i++) {
    const sum = Array.from(digit.data.subarray(i * 10, (i + 1) * 10)).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i}: the digit softmax sums to ${sum}`);
    assert.ok(big.data[i]! >= 0 && big.data[i]! <= 1, `row ${i}: big ${big.data[i]}`);
  }
});
