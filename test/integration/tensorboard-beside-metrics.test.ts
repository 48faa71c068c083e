// A run writes a TensorBoard event file beside metrics.jsonl with the same figures: every number
// of each train and eval line, at its step, as <type>/<field>.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { readRecords } from '../../src/coordinator/run/tensorboard.ts';
import { train } from '../../src/coordinator/train.ts';
import { readMetrics } from '../helpers/chaos.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const Event = protobuf
  .parse(
    `syntax = "proto3";
message Event { double wall_time = 1; int64 step = 2; oneof what { string file_version = 3; Summary summary = 5; } }
message Summary { message Value { string tag = 1; oneof value { float simple_value = 2; } } repeated Value value = 1; }`,
    { keepCase: true },
  )
  .root.lookupType('Event');

test('train and eval lines of metrics.jsonl are in the event file, at their steps', async () => {
  const dir = tempDir('tensorboard');
  const cfg = buildConfig(
    dir,
    {
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'categoricalCrossentropy',
      data: { train: writeDataset(dir, 'train', 40, 'onehot', 1), eval: writeDataset(dir, 'eval', 12, 'onehot', 2) },
      training: { batchSize: 8, steps: 6 },
      optimizer: { name: 'sgd', learningRate: 0.2 },
      log: { every: 2 },
      eval: { every: 3 },
    },
    2,
  );
  await train(cfg, silent);
  const files = fs.readdirSync(cfg.runDir).filter((f) => f.startsWith('events.out.tfevents.'));
  assert.equal(files.length, 1, fs.readdirSync(cfg.runDir).join(', '));
  const events = readRecords(path.join(cfg.runDir, files[0]!)).map(
    (r) => Event.toObject(Event.decode(r), { longs: Number }) as { step?: number; summary?: { value: { tag: string; simple_value: number }[] } },
  );
  const at = (step: number, tag: string) =>
    events
      .filter((e) => (e.step ?? 0) === step)
      .flatMap((e) => e.summary?.value ?? [])
      .find((v) => v.tag === tag)?.simple_value;
  const lines = readMetrics(path.join(cfg.runDir, 'metrics.jsonl'));
  const trainLines = lines.filter((l) => l.type === 'train');
  assert.deepEqual(
    trainLines.map((l) => l.step),
    [2, 4, 6],
  );
  for (const l of trainLines) {
    assert.equal(at(l.step, 'train/loss'), Math.fround(l.loss as number), `train/loss at step ${l.step}`);
    assert.equal(at(l.step, 'train/lr'), Math.fround(l.lr as number));
  }
  const evals = lines.filter((l) => l.type === 'eval');
  assert.ok(evals.length >= 2);
  for (const l of evals) assert.equal(at(l.step, 'eval/accuracy'), Math.fround(l.accuracy as number), `eval/accuracy at step ${l.step}`);
});
