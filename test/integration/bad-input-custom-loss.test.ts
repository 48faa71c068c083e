// A custom loss module that cannot give a loss per sample stops the run at start-up, before the
// first step: E_LOSS, exit 2, naming the config key (loss, or loss.<output>) and the module file,
// with a hint and no stack trace, and no worker left running. The cases: it fails to import, has
// no default export function, throws, returns a Promise, returns a non-tensor, or returns a
// tensor whose first dimension is not the batch (checked on a one-row batch of zeros).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { writeLossModule } from '../helpers/custom-loss.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('bad-custom-loss');
const model = writeModelModule(dir, 'linear');
const data = writeDataset(dir, 'train', 20, 'regression', 41);

function run(name: string, config: Record<string, unknown>) {
  const runDir = path.join(dir, 'runs', name);
  const file = writeConfigFile(dir, name, { name, training: { batchSize: 6, steps: 2 }, optimizer: { name: 'sgd' }, ...config });
  const procs = tagProcesses();
  const r = runCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir], { env: procs.env });
  return { ...r, runDir, alive: procs.alive() };
}

const CASES: Array<[string, string, RegExp]> = [
  ['fails to import', `throw new Error('broken at import');`, /loss\.module \S*fails-to-import\.mjs failed to load: broken at import/],
  [
    'no default export',
    `export function huber(yTrue, yPred, tf) { return tf.abs(tf.sub(yPred, yTrue)); }`,
    /loss\.module \S*no-default-export\.mjs has no default export function/,
  ],
  [
    'throws',
    `export default function () { throw new Error('not today'); }`,
    /loss \(\S*throws\.mjs\) threw on a one-row batch of zeros \(the check at start-up\): not today/,
  ],
  [
    'returns a promise',
    `export default async function (yTrue, yPred, tf) { return tf.abs(tf.sub(yPred, yTrue)); }`,
    /loss \(\S*returns-a-promise\.mjs\) returned a Promise on a one-row batch of zeros \(the check at start-up\); a loss must return its tensor synchronously/,
  ],
  [
    'returns a number',
    `export default function () { return 0.5; }`,
    /loss \(\S*returns-a-number\.mjs\) returned a number on a one-row batch of zeros .*, not a tensor/,
  ],
  [
    'reduces over the batch',
    `export default function (yTrue, yPred, tf) { return tf.mean(tf.square(tf.sub(yPred, yTrue))); }`,
    /loss \(\S*reduces-over-the-batch\.mjs\) returned a tensor of shape \[\] for a batch of 1 on a one-row batch of zeros .*: \[1\] or \[1, \.\.\.\]/,
  ],
];

test('each bad custom loss module: E_LOSS naming loss and the file, exit 2 before the first step, no worker left', () => {
  for (const [what, source, message] of CASES) {
    const slug = what.replace(/ /g, '-');
    const file = writeLossModule(dir, `${slug}.mjs`, source);
    const r = run(slug, { model: { module: model }, loss: { module: `./${path.basename(file)}` }, data: { train: data } });
    assert.equal(r.code, 2, `${what}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, /error E_LOSS: /, what);
    assert.match(r.stderr, message, what);
    assert.match(r.stderr, /hint: /, what);
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${what}: a stack trace`);
    assert.ok(!fs.existsSync(path.join(r.runDir, 'checkpoints')), `${what}: a step was trained`);
    assert.deepEqual(r.alive, [], `${what}: processes of the run are still alive`);
  }
});

test('a bad custom loss on one output of two: E_LOSS names loss.<output> and the file', () => {
  const files = writeTwoIoData(dir, 'two', 20, 42);
  const file = writeLossModule(dir, 'sums-the-batch.mjs', `export default function (yTrue, yPred, tf) { return tf.sum(tf.abs(tf.sub(yPred, yTrue)), 0); }`);
  const r = run('two-io', {
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: { module: file } },
    data: { train: { type: 'npy', ...files } },
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /error E_LOSS: rank \d \(GPU [^)]*\): loss\.box \(\S*sums-the-batch\.mjs\) returned a tensor of shape \[2\] for a batch of 1 on output 'box' on a one-row batch of zeros/,
  );
  assert.deepEqual(r.alive, []);
});
