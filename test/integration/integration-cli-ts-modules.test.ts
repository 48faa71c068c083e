// Through the command, a user's TypeScript modules load in the coordinator wherever they sit: a
// metric module and a data module in a directory with no package.json (CommonJS to Node) are
// imported by the coordinator as the workers import the model module, and the run's eval line
// carries the metric.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { runCli } from '../helpers/run-cli.ts';
import { FEATURES, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('cli-ts-modules');

test('mgpu-train train: a .ts metric module and a .ts data module outside any package', () => {
  assert.ok(!fs.existsSync(path.join(dir, 'package.json')) && !fs.existsSync(path.join(path.dirname(dir), 'package.json')));
  fs.writeFileSync(
    path.join(dir, 'hits.ts'),
    `import type * as TF from '@tensorflow/tfjs';
export default function (yTrue: TF.Tensor, yPred: TF.Tensor, tf: typeof TF) {
  return { right: tf.sum(tf.cast(tf.equal(tf.argMax(yTrue, -1), tf.argMax(yPred, -1)), 'float32')) };
}
export function finalize(sums: Record<string, number>, { samples }: { samples: number }) {
  return { rate: sums.right / samples };
}
`,
  );
  fs.writeFileSync(
    path.join(dir, 'samples.ts'),
    `export default async function* (): AsyncGenerator<{ x: number[]; y: number[] }> {
  for (let i = 0; i < 20; i++) yield { x: Array.from({ length: ${FEATURES} }, (_, f) => Math.sin(i * 7 + f)), y: [i % 3 === 0 ? 1 : 0, i % 3 === 1 ? 1 : 0, i % 3 === 2 ? 1 : 0] };
}
`,
  );
  const file = path.join(dir, 'exp.yaml');
  fs.writeFileSync(
    file,
    stringify({
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'module', module: './samples.ts' }, eval: writeDataset(dir, 'eval', 13, 'onehot', 812) },
      training: { batchSize: 10, steps: 2 },
      optimizer: { name: 'sgd' },
      metrics: ['accuracy', { module: './hits.ts' }],
    }),
  );
  const runDir = path.join(dir, 'run');
  const r = runCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir]);
  assert.equal(r.code, 0, r.stderr);
  const line = fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((l) => l.type === 'eval');
  assert.deepEqual(Object.keys(line.metrics), ['accuracy', 'hits.rate']);
  assert.equal(line.metrics['hits.rate'], line.metrics.accuracy);
  assert.match(r.stdout + r.stderr, /eval @ step 2: .* hits\.rate \d\.\d{4} \(13 samples\)/);
});
