// The library API from a "type": "commonjs" project (npm init -y's default), the package installed
// from its tarball: a CommonJS script (import() of the package, no loader configured) trains on a
// .ts data module with a .ts metric module, which Node takes for CommonJS there. Without tsx's
// CommonJS hook their import failed ("Cannot require() ES Module ... in a cycle").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { install, pack } from '../helpers/packed-package.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const run = promisify(execFile);

const SAMPLES_TS = `type Sample = { x: number[]; y: number };
export default async function* samples(): AsyncGenerator<Sample> {
  for (let i = 0; i < 24; i++) {
    const y: number = i % 3;
    yield { x: [0, 1, 2, 3, 4, 5].map((j) => Math.sin(i * 7 + j) + (j % 3 === y ? 1 : 0)), y };
  }
}
`;

// The number of eval samples, counted by the metric: a plain sum the test knows without tfjs.
const METRIC_TS = `import type * as TF from '@tensorflow/tfjs';
export default function (yTrue: TF.Tensor, _yPred: TF.Tensor, tf: typeof TF): Record<string, TF.Tensor> {
  return { seen: tf.onesLike(tf.cast(yTrue, 'float32')).sum() };
}
export function finalize(sums: Record<string, number>): Record<string, number> {
  return { count: sums.seen };
}
`;

const MODEL_MJS = `export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 3, activation: 'softmax' })] });\n`;

const SCRIPT_JS = `// CommonJS: this package's type is commonjs.
(async () => {
  const { train } = await import('mgpu-train');
  const r = await train({
    name: 'cjs', model: { module: './model.mjs' }, loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'module', module: './samples.ts' }, evalFraction: 0.25 },
    training: { batchSize: 6, steps: 2, seed: 1 }, optimizer: { name: 'sgd' },
    devices: { simulate: 1, backend: 'cpu' }, metrics: [{ module: './counts.ts' }],
  }, { print: false });
  console.log('RESULT ' + JSON.stringify({ steps: r.steps, samples: r.eval.samples, metrics: r.eval.metrics }));
})();
`;

test('a CommonJS project: the API imports .ts data and metric modules', async (t) => {
  const dir = tempDir('api-commonjs');
  const { tarball } = pack(dir);
  const project = path.join(dir, 'consumer');
  fs.mkdirSync(project);
  t.diagnostic(`installed by ${install(project, tarball, 'commonjs', (s) => t.diagnostic(s))}`);
  assert.equal(JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')).type, 'commonjs');
  fs.writeFileSync(path.join(project, 'samples.ts'), SAMPLES_TS);
  fs.writeFileSync(path.join(project, 'counts.ts'), METRIC_TS);
  fs.writeFileSync(path.join(project, 'model.mjs'), MODEL_MJS);
  fs.writeFileSync(path.join(project, 'train.js'), SCRIPT_JS);
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, ['train.js'], { cwd: project, env, timeout: 180_000 });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, stdout);
  // 24 samples, a quarter (6) held out for eval.
  assert.deepEqual(JSON.parse(line.slice('RESULT '.length)), { steps: 2, samples: 6, metrics: { 'counts.count': 6 } });
});
