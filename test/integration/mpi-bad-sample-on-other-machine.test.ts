// data.onBadSample: skip on several machines, each making only its own part of a batch: a bad
// sample found on machine 1 is left out of the global batch as one machine with every worker
// leaves it out. 2 machines x 1 worker and 1 machine x 2 workers list the same bad-sample lines
// (rank 0 lists machine 1's too) and train to the same weights; machine 1 did find some itself.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';
import { getsOf, writeRecordingModule } from '../helpers/recording-module.ts';
import { assertWeightsClose, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const BAD = [3, 11, 17, 20];

test('a bad sample on machine 1 is left out of the global batch as on one machine', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-bad-other');
  const model = writeModelModule(dir, 'mlp');
  const raw = (name: string, perMachine: number) => ({
    model: { module: model },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'module', module: writeRecordingModule(dir, name, 24, BAD) }, prefetch: 1, onBadSample: 'skip' },
    training: { batchSize: 8, epochs: 2, seed: 6 },
    optimizer: { name: 'sgd', learningRate: 0.2 },
    devices: { simulate: perMachine, backend: 'cpu' },
    log: { every: 1 },
    runDir: path.join(dir, name),
  });
  const two = await runMpi(2, ['train', writeConfigFile(dir, 'two', raw('two', 1))]);
  assert.equal(two.code, 0, `${two.stdout}\n${two.stderr}`);
  const one = await runCliAsync(['train', writeConfigFile(dir, 'one', raw('one', 2))]);
  assert.equal(one.code, 0, one.stderr);
  const foundOn1 = getsOf(dir, 'two', 1).filter((g) => BAD.includes(g.index) && g.split === 'data.train');
  assert.ok(foundOn1.length > 0, 'machine 1 made some of the bad samples itself');
  const lines = <T>(name: string, type: string, pick: (l: Record<string, unknown>) => T): T[] =>
    readMetrics(path.join(dir, name, 'metrics.jsonl'))
      .filter((l) => l.type === type)
      .map((l) => pick(l as Record<string, unknown>));
  const bad = (name: string) => lines(name, 'bad-sample', (l) => [l.step, l.epoch, l.sample]);
  t.diagnostic(`bad samples: ${JSON.stringify(bad('one'))}; machine 1 made ${foundOn1.map((g) => g.index).join(', ')}`);
  assert.equal(bad('one').length, BAD.length * 2, 'each bad sample in each epoch');
  assert.deepEqual(bad('two'), bad('one'));
  const losses = (name: string) => lines(name, 'train', (l) => l.loss as number);
  assert.equal(losses('two').length, losses('one').length);
  losses('two').forEach((l, i) => assert.ok(Math.abs(l - losses('one')[i]!) < 1e-5, `step ${i + 1}: loss ${l} against ${losses('one')[i]}`));
  assertWeightsClose(t, finalFloats(path.join(dir, 'two')), finalFloats(path.join(dir, 'one')), '2 x 1 against 1 x 2');
});
