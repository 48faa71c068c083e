// What a predict --input file is, by its first bytes before its name: a shard or an array named
// anything (no extension, or a misleading one) is read as what it holds; a name decides only
// where the bytes say nothing; anything else is refused naming the kinds predict takes. The
// files are made here byte by byte (a TFRecord frame with its masked CRC-32C computed by the
// tests' own reference, a ustar header, an npy header), not by the readers under test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { inputKindOf } from '../../src/data/predict-input-kind.ts';
import { crc32cBitwise } from '../helpers/crc32c-reference.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-input-kind-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, bytes: Uint8Array | string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return p;
};
const kind = (p: string) => inputKindOf(p, path.basename(p));

/** One TFRecord frame around `data`: length, masked CRC-32C of the length, data, masked CRC of the data. */
function frame(data: Uint8Array): Buffer {
  const mask = (c: number) => ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
  const b = Buffer.alloc(16 + data.length);
  b.writeBigUInt64LE(BigInt(data.length), 0);
  b.writeUInt32LE(mask(crc32cBitwise(b.subarray(0, 8))), 8);
  b.set(data, 12);
  b.writeUInt32LE(mask(crc32cBitwise(data)), 12 + data.length);
  return b;
}

/** A tar of one member: a ustar header block, the data padded to 512, two zero blocks. */
function tar(name: string, data: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
  h.write('ustar\0', 257);
  h.write('00', 263);
  return Buffer.concat([h, Buffer.alloc(512, 0).fill(data, 0, data.length), Buffer.alloc(1024)]);
}

test('told by the first bytes, whatever the name', () => {
  assert.equal(kind(file('records', frame(Buffer.from('an Example')))), 'tfrecord');
  assert.equal(kind(file('records.npy', frame(Buffer.from('an Example')))), 'tfrecord');
  assert.equal(kind(file('samples', tar('0001.cls', '3'))), 'webdataset');
  assert.equal(kind(file('rows', Buffer.concat([Buffer.from('\x93NUMPY\x01\x00', 'latin1'), Buffer.alloc(8)]))), 'npy');
  assert.equal(kind(file('photo', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))), 'image');
  assert.equal(kind(file('photo.tfrecord', Buffer.from('ffd8ffe000104a464946', 'hex'))), 'image');
  assert.equal(kind(file('anim', 'GIF89a....')), 'image');
  assert.equal(kind(file('pic', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))), 'image');
  assert.equal(kind(dir), 'folder');
});

test('a name decides where the bytes say nothing: the reader then names the damage', () => {
  assert.equal(kind(file('cut.tfrecord', 'abc')), 'tfrecord');
  assert.equal(kind(file('cut.TAR', 'abc')), 'webdataset');
  assert.equal(kind(file('cut.npy', 'abc')), 'npy');
  assert.equal(kind(file('cut.JPG', 'abc')), 'image');
});

test('anything else is refused, naming the kinds predict takes', () => {
  const refused = (p: string, message: RegExp) =>
    assert.throws(
      () => kind(p),
      (e: Error & { code?: string; hint?: string }) => {
        assert.equal(e.code, 'E_USAGE');
        assert.match(e.message, message);
        assert.match(e.hint ?? '', /image files .*, TFRecord shards \(\.tfrecord\), WebDataset tar shards \(\.tar\) or \.npy arrays/);
        return true;
      },
    );
  refused(file('notes.txt', 'some text, long enough to hold twelve bytes'), /^--input notes\.txt: not a kind of file predict reads/);
  refused(file('empty', ''), /^--input empty: an empty file/);
  // A frame whose length CRC is wrong is not taken for a TFRecord without the name saying so.
  const bad = frame(Buffer.from('x'));
  bad[8]! ^= 1;
  refused(file('bad-frame', bad), /not a kind of file predict reads/);
  refused(
    file('shards.tar.gz', Buffer.from('1f8b0800000000000003', 'hex')),
    /^--input shards\.tar\.gz: a gzip-compressed file; predict reads shards and arrays uncompressed$/,
  );
  assert.throws(() => kind(path.join(dir, 'absent')), /^Error: --input absent: no such file or folder$|--input absent: no such file or folder/);
});
