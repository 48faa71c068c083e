// On resume the event files lose the interrupted run's steps after the checkpoint, as
// metrics.jsonl does: otherwise TensorBoard draws two values for each of those steps (the old
// run's and the resumed run's). Records are decoded by protobufjs from TensorFlow's schema, not
// by the code under test; a record torn by a crash at the end of the file is dropped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { MetricsLog } from '../../src/coordinator/run/metrics-log.ts';
import type { TrainLine } from '../../src/shared/metrics-lines.ts';
import { readRecords } from '../../src/coordinator/run/tensorboard.ts';

const SCHEMA = `
syntax = "proto3";
package tensorflow;
message Event { double wall_time = 1; int64 step = 2; oneof what { string file_version = 3; Summary summary = 5; } }
message Summary { message Value { string tag = 1; oneof value { float simple_value = 2; } } repeated Value value = 1; }
`;
const Event = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('tensorflow.Event');

const line = (step: number, loss: number): TrainLine => ({
  type: 'train',
  step,
  epoch: 0,
  loss,
  lr: 0.1,
  samples_per_sec: 1,
  compute_max_ms: 1,
  compute_min_ms: 1,
  refresh_ms: 0,
  write_ms: 0,
  sync_ms: 0,
  data_ms: 0,
  step_ms: 1,
  grad_norm: 1,
});

function eventsIn(dir: string, upToDamage = false): { file: string; version?: string; step: number; loss?: number }[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('events.out.tfevents.'))
    .sort()
    .flatMap((f) =>
      readRecords(path.join(dir, f), { upToDamage }).map((r) => {
        const e = Event.toObject(Event.decode(r), { longs: Number }) as {
          step?: number;
          file_version?: string;
          summary?: { value: { tag: string; simple_value: number }[] };
        };
        return { file: f, version: e.file_version, step: e.step ?? 0, loss: e.summary?.value.find((v) => v.tag === 'train/loss')?.simple_value };
      }),
    );
}

test('a resume keeps the event records up to its checkpoint and drops the later ones and a torn last record', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-trim-'));
  try {
    const file = path.join(dir, 'metrics.jsonl');
    const first = new MetricsLog(file);
    for (let step = 1; step <= 8; step++) first.write(line(step, step));
    first.close();
    const [old] = fs.readdirSync(dir).filter((f) => f.startsWith('events.out.tfevents.'));
    fs.appendFileSync(path.join(dir, old!), Buffer.from([1, 2, 3, 4, 5])); // torn by a crash
    const before = eventsIn(dir, true);
    assert.deepEqual(
      before.filter((e) => e.loss !== undefined).map((e) => e.step),
      [1, 2, 3, 4, 5, 6, 7, 8],
      'the fixture logs 8 steps',
    );

    const resumed = new MetricsLog(file, 5);
    resumed.write(line(6, 60));
    resumed.close();

    const after = eventsIn(dir); // strict: a torn record left behind throws
    assert.ok(
      after.every((e) => e.version === 'brain.Event:2' || e.loss !== undefined),
      'only version and train records',
    );
    assert.deepEqual(
      after.filter((e) => e.loss !== undefined).map((e) => [e.step, e.loss]),
      [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 5],
        [6, 60],
      ],
      'steps 6-8 of the interrupted run are gone; step 6 is the resumed run',
    );
    assert.ok(
      after.some((e) => e.file === old && e.version === 'brain.Event:2'),
      'the old file keeps its version record',
    );
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as TrainLine).step);
    assert.deepEqual(lines, [1, 2, 3, 4, 5, 6], 'metrics.jsonl agrees');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
