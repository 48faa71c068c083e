// A data file's fingerprint (size, mtime, the CRC-32C of its first and last 64 KiB) changes with a
// byte changed at its start, inside its last 64 KiB, at its very last byte (each with the mtime
// put back, so the CRC alone sees it), anywhere in a file of at most 128 KiB (read whole), and
// in the middle of a larger file through its mtime, the sign a write leaves there.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fingerprintFile } from '../../src/data/file-fingerprint.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('fingerprint');
const when = new Date('2026-01-02T03:04:05Z');

/** The fingerprint of `file` with its byte `at` flipped, its mtime put back (or not). */
function flipped(file: string, at: number, keepMtime = true) {
  const bytes = fs.readFileSync(file);
  bytes[at]! ^= 0x01;
  fs.writeFileSync(file, bytes);
  if (keepMtime) fs.utimesSync(file, when, when);
  return fingerprintFile(file, 'data.train.features');
}

function fresh(name: string, size: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, randomBytes(size));
  fs.utimesSync(file, when, when);
  return file;
}

test('a large file: a byte changed at its start, in its last 64 KiB or at its last byte changes the CRC', () => {
  const size = 300 * 1024;
  for (const at of [0, 100, size - 64 * 1024, size - 1000, size - 1]) {
    const file = fresh(`large-${at}`, size);
    const before = fingerprintFile(file, 'data.train.features');
    const after = flipped(file, at);
    assert.deepEqual([after.bytes, after.mtimeMs], [before.bytes, before.mtimeMs]);
    assert.notEqual(after.crc32c, before.crc32c, `byte ${at}`);
  }
});

test('a file of at most 128 KiB is read whole: a byte changed anywhere changes the CRC', () => {
  const size = 128 * 1024;
  for (const at of [0, 64 * 1024 + 7, size - 1]) {
    const file = fresh(`small-${at}`, size);
    const before = fingerprintFile(file, 'data.train.features').crc32c;
    assert.notEqual(flipped(file, at).crc32c, before, `byte ${at}`);
  }
});

test('the middle of a larger file: its mtime, which the write moved, changes the fingerprint', () => {
  const file = fresh('middle', 300 * 1024);
  const before = fingerprintFile(file, 'data.train.features');
  const after = flipped(file, 150 * 1024, false);
  assert.equal(after.crc32c, before.crc32c, 'the CRC covers the ends only');
  assert.notDeepEqual(after, before);
});
