// data.onBadSample: skip: a training image that does not decode is left out of its batch each
// time its batch comes (once an epoch), as a bad-sample line in metrics.jsonl naming the file and
// the decoder's words, the same lines on 1 and 3 workers, and counted at the end. The steps train
// on the rest of their batch: plain tfjs on the same pixels (an .npy) with that sample taken out
// of its batches gives the same model; without skip the folder fails naming the file. The step a
// bad-sample line (and the console) names is the step of the train line of the same batch (1-based).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { assertWeightsClose, buildConfig, referenceTrain, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-bad-skipped');
const N = 40;
const BAD = 11;

test('a corrupt image is left out of its batches, listed, counted, the same on 1 and 3 workers', async (t) => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), N);
  const features = path.join(dir, 'x.npy');
  const labels = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [N, 28, 28, 1], data: Float32Array.from(digits.pixels, (k) => k / 255) });
  writeNpy(labels, { dtype: 'int32', shape: [N], data: digits.labels });
  const victim = digits.files[BAD]!;
  fs.writeFileSync(victim, fs.readFileSync(victim).subarray(0, 30)); // truncated
  const raw = (name: string, train: Record<string, unknown>, onBadSample = 'skip') => ({
    name,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train, threads: 1, prefetch: 1, onBadSample },
    training: { batchSize: 10, epochs: 2, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    log: { every: 1 },
  });
  const folder = { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 };
  const lines: string[] = [];
  const said = { ...silent, line: (text: string) => void lines.push(text) };
  const metricsLines = (runDir: string) =>
    fs
      .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; step: number; sample?: number; epoch?: number; message?: string });
  const badLines = (runDir: string) => metricsLines(runDir).filter((m) => m.type === 'bad-sample');
  const oneCfg = buildConfig(dir, raw('one', folder), 1);
  const threeCfg = buildConfig(dir, raw('three', folder), 3);
  const one = await train(oneCfg, said);
  const three = await train(threeCfg, silent);
  assert.equal(one.steps, 8);
  const bad = badLines(oneCfg.runDir);
  assert.deepEqual(
    bad.map((b) => [b.epoch, b.sample]),
    [
      [0, BAD],
      [1, BAD],
    ],
  );
  assert.ok(
    bad.every((b) => b.message!.startsWith(`cannot decode ${victim}`)),
    JSON.stringify(bad),
  );
  // The batches that hold the bad sample, and the train line each one ends with: one numbering.
  const plan = new BatchPlan(N, 10, 3, false, { epochs: 2, steps: null });
  const holding = Array.from({ length: plan.totalSteps }, (_, k) => k).filter((k) => plan.batchAt(k).indices.includes(BAD));
  const trainLines = metricsLines(oneCfg.runDir).filter((m) => m.type === 'train');
  assert.deepEqual(
    bad.map((b) => b.step),
    holding.map((k) => trainLines.find((l) => l.step === k + 1 && l.epoch === plan.batchAt(k).epoch)?.step),
    'a bad-sample line names the step of the train line of its batch',
  );
  for (const b of bad) assert.ok(lines.includes(`step ${b.step}: sample ${BAD} left out (data.onBadSample: skip): ${b.message}`), lines.join('\n'));
  assert.deepEqual(badLines(threeCfg.runDir), bad, 'the samples left out depend on the worker count');
  assert.ok(
    lines.some((l) => /^warning: 2 samples were left out of their batches \(data\.onBadSample: skip\)/.test(l)),
    lines.join('\n'),
  );
  const ref = await referenceTrain(buildConfig(dir, raw('ref', { type: 'npy', features, labels }, 'error'), 1), { leaveOut: new Set([BAD]) }); // npy refuses skip
  assertWeightsClose(t, one.weights, ref.weights, '1 worker vs plain tfjs without the sample');
  assertWeightsClose(t, three.weights, ref.weights, '3 workers vs plain tfjs without the sample');
  await assert.rejects(
    train(buildConfig(dir, raw('strict', folder, 'error'), 1), silent),
    new RegExp(`cannot decode ${victim.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  );
});
