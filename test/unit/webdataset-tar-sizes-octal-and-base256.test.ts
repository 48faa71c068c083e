// A tar header's size is read in octal (space- or NUL-terminated, as ustar writers end it) or in
// GNU's base-256 (the first byte's top bit set, then a big-endian number): a Python-written member
// whose size field is rewritten in base-256 (its checksum summed again here) reads the same.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tarNumber } from '../../src/data/shards/tar-header.ts';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-sizes');
const field = (text: string) => Uint8Array.from(Buffer.from(text, 'latin1'));

test('octal sizes with their terminators, and base-256 sizes', () => {
  assert.equal(tarNumber(field('00000001750\0')), 1000);
  assert.equal(tarNumber(field('    1750 \0\0\0')), 1000);
  assert.equal(tarNumber(field('\0\0\0\0\0\0\0\0\0\0\0\0')), 0);
  assert.equal(tarNumber(Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1])), 513);
  assert.equal(tarNumber(Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0])), 2 ** 33);
  assert.equal(tarNumber(field('0000000017a0')), null);
});

test('a member whose size is written in base-256 is read at the same size', () => {
  const file = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: file,
      format: 'gnu',
      members: [
        { name: 'k.jpg', data: 'x'.repeat(700) },
        { name: 'k.cls', data: '4' },
      ],
    },
  ]);
  const tar = fs.readFileSync(file);
  tar.fill(0, 124, 136);
  tar[124] = 0x80;
  tar.writeUInt16BE(700, 134);
  tar.write('        ', 148, 'latin1');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += tar[i]!;
  tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  fs.writeFileSync(file, tar);
  const index = scanTarShard(file, tar.length, { image: ['jpg'], label: 'cls' });
  assert.deepEqual([index.count, index.offsets[0], index.lengths[0], index.labels[0]], [1, 512, 700, 4]);
});
