// The TensorBoard event file's TFRecord framing, read by a reader written here from TensorFlow's
// own definitions (tensorflow/core/lib/hash/crc32c.h: Mask(crc) = ((crc >> 15) | (crc << 17)) +
// 0xa282ead8; CRC-32C, reflected polynomial 0x82f63b78), sharing no code with the writer: a mask
// or CRC that only agrees with itself cannot pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EventWriter } from '../../src/coordinator/run/tensorboard.ts';
import { crc32cBitwise } from '../helpers/crc32c-reference.ts';

const tfMask = (crc: number): number => ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;

test('the reference CRC-32C gives the standard check value: crc32c("123456789") = 0xE3069283', () => {
  assert.equal(crc32cBitwise(Buffer.from('123456789')), 0xe3069283);
});

test('every record of an event file: uint64 length, masked CRC of the length, data, masked CRC of the data', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-framing-'));
  const w = new EventWriter(dir, 1_700_000_000_000);
  w.scalars(1, { 'train/loss': 0.75 }, 1_700_000_001_000);
  w.scalars(2, { 'train/loss': 0.5, 'train/lr': 0.01, 'eval/accuracy': 0.875 }, 1_700_000_002_000);
  w.close();
  const b = fs.readFileSync(w.file);
  const lengths: number[] = [];
  let at = 0;
  while (at < b.length) {
    assert.ok(at + 12 <= b.length, `a record header cut short at byte ${at}`);
    const len = Number(b.readBigUInt64LE(at));
    assert.equal(b.readUInt32LE(at + 8), tfMask(crc32cBitwise(b.subarray(at, at + 8))), `the length CRC of the record at byte ${at}`);
    assert.ok(at + 16 + len <= b.length, `the record at byte ${at} runs past the end of the file`);
    assert.equal(b.readUInt32LE(at + 12 + len), tfMask(crc32cBitwise(b.subarray(at + 12, at + 12 + len))), `the data CRC of the record at byte ${at}`);
    lengths.push(len);
    at += 16 + len;
  }
  assert.equal(at, b.length);
  assert.equal(lengths.length, 3, 'the version event and two scalar events');
  fs.rmSync(dir, { recursive: true });
});
