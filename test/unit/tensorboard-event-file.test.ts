// The TensorBoard event file: TFRecord framing with masked CRC-32C (checked against the test
// vectors of RFC 3720, appendix B.4) and Event protocol buffers decoded by protobufjs from the
// schema of tensorflow/core/util/event.proto and summary.proto (the fields written here), not by
// the code under test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { EventWriter, readRecords } from '../../src/coordinator/run/tensorboard.ts';
import { crc32c } from '../../src/shared/crc32c.ts';

const SCHEMA = `
syntax = "proto3";
package tensorflow;
message Event { double wall_time = 1; int64 step = 2; oneof what { string file_version = 3; Summary summary = 5; } }
message Summary { message Value { string tag = 1; oneof value { float simple_value = 2; } } repeated Value value = 1; }
`;
const Event = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('tensorflow.Event');

test('CRC-32C: the RFC 3720 test vectors', () => {
  assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
  assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
  assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
});

test('the file: a version event, then scalars by step, every record framed and checksummed', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-'));
  const w = new EventWriter(dir, 1_700_000_000_000);
  w.scalars(10, { 'train/loss': 0.5, 'train/lr': 0.001, skipped: null, nan: NaN }, 1_700_000_001_000);
  w.scalars(3_000_000_000, { 'eval/accuracy': 0.9375 }, 1_700_000_002_500);
  w.close();
  assert.match(path.basename(w.file), /^events\.out\.tfevents\.1700000000\./);
  const events = readRecords(w.file).map(
    (r) =>
      Event.toObject(Event.decode(r), { longs: Number }) as {
        wall_time: number;
        step?: number;
        file_version?: string;
        summary?: { value: { tag: string; simple_value: number }[] };
      },
  );
  assert.equal(events.length, 3);
  assert.equal(events[0]!.file_version, 'brain.Event:2');
  assert.equal(events[0]!.wall_time, 1_700_000_000);
  assert.equal(events[1]!.step, 10);
  assert.equal(events[1]!.wall_time, 1_700_000_001);
  assert.deepEqual(
    events[1]!.summary!.value.map((v) => [v.tag, v.simple_value]),
    [
      ['train/loss', 0.5],
      ['train/lr', Math.fround(0.001)],
    ],
  );
  assert.equal(events[2]!.step, 3_000_000_000, 'steps past 2^31 survive');
  assert.deepEqual(
    events[2]!.summary!.value.map((v) => [v.tag, v.simple_value]),
    [['eval/accuracy', 0.9375]],
  );
  // A flipped byte is caught by the CRC.
  const b = fs.readFileSync(w.file);
  b[b.length - 6]! ^= 0xff;
  fs.writeFileSync(w.file, b);
  assert.throws(() => readRecords(w.file), /bad data CRC/);
  fs.rmSync(dir, { recursive: true });
});
