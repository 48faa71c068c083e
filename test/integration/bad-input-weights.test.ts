// Weights a run cannot use, met through the command line: each is one error line with its code,
// what is wrong and where (key path, files, counts), a hint, no stack trace, exit 2, and nothing
// written to the run directory. The class index out of range is found once the workers have
// built the model; the weights file of the wrong length before any worker starts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('bad-weights');
const data = writeDataset(dir, 'train', 20, 'index', 3);

function run(name: string, over: { training?: object; train?: object }) {
  const config = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(
    config,
    stringify({
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { ...data, ...over.train } },
      training: { batchSize: 4, steps: 2, ...over.training },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', config, '--simulate', '2', '--backend', 'cpu'], { cwd: dir });
  const out = r.stdout + r.stderr;
  assert.equal(r.code, 2, out);
  assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
  assert.ok(!fs.existsSync(path.join(dir, 'runs', name)), 'nothing written');
  return out;
}

test('a class index the model does not have', () => {
  const out = run('out-of-range', { training: { classWeights: { 0: 1, 5: 2 } } });
  assert.match(out, /error E_CONFIG: training\.classWeights\.5: class 5 is out of range: the model has 3 classes \(0\.\.2\)\n {2}hint: /);
});

test('a weights file of another length names both files and counts', () => {
  const w = writeWeights(dir, 'short', 19, 1);
  const out = run('short', { train: { weights: w.file } });
  assert.match(out, new RegExp(`error E_DATA: data\\.train\\.weights: ${w.file} holds 19 weights but features ${data.features} hold 20 samples.*\\n  hint: `));
});
