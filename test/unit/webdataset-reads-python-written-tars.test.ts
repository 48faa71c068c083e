// Tar shards written by an independent writer (test/helpers/webdataset-writer.py: Python's tarfile,
// in pax, GNU and ustar formats) are indexed sample by sample: consecutive members sharing a key
// are one sample, its image member's data found at the offset and length the index keeps (data
// padded to 512 bytes between members, long names through pax `path` and GNU `L` records), its
// .cls read as the label, the first present of the image extensions taken, and a member of an
// unknown extension counted, not fatal.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards, type TarFile } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-read');
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
const deep = `${'long-folder-name/'.repeat(12)}sample`; // past ustar's 100-byte name and 155-byte prefix: pax or GNU long names

function members(): TarFile[] {
  return [
    { name: 'a/s0.jpg', data: bytes(700, 1) },
    { name: 'a/s0.cls', data: '3' },
    { name: 'a/s0.seg.png', data: bytes(10, 9) }, // the key is before the first dot: part "seg.png", unknown
    { name: 'a/s0.txt', data: 'a caption' },
    { name: 'a/s1.png', data: bytes(0, 2) },
    { name: 'a/s1.cls', data: '0\n' },
    { name: 'b/s1.jpg', data: bytes(512, 3) }, // the same basename in another folder: another sample
    { name: 'b/s1.cls', data: '12' },
    { name: `${deep}.json`, data: '{}' },
    { name: `${deep}.png`, data: bytes(1025, 4) },
    { name: `${deep}.jpg`, data: bytes(90, 5) },
    { name: `${deep}.cls`, data: '7' },
  ];
}

for (const format of ['pax', 'gnu'] as const) {
  test(`samples of a Python-written ${format} tar: image offsets, lengths, labels and unknown members`, () => {
    const file = path.join(dir, `${format}.tar`);
    const written = members();
    writeTarShards([{ path: file, format, members: written }]);
    const tar = fs.readFileSync(file);
    const index = scanTarShard(file, tar.length, { image: ['jpg', 'png'], label: 'cls' });
    assert.equal(index.count, 4);
    assert.deepEqual([...index.labels], [3, 0, 12, 7]);
    assert.equal(index.unknown, 2);
    const images = [written[0]!, written[4]!, written[6]!, written[10]!].map((m) => Buffer.from(m.data));
    for (let i = 0; i < 4; i++) {
      assert.equal(index.lengths[i], images[i]!.length, `sample ${i}'s image length`);
      assert.deepEqual(tar.subarray(index.offsets[i], index.offsets[i]! + index.lengths[i]!), images[i], `sample ${i}'s image bytes`);
    }
  });
}

test('the first present of the image extensions is taken, in the order given', () => {
  const file = path.join(dir, 'ustar.tar');
  writeTarShards([{ path: file, format: 'ustar', members: members().slice(0, 8) }]);
  const tar = fs.readFileSync(file);
  const index = scanTarShard(file, tar.length, { image: ['png', 'jpg'], label: 'cls' });
  assert.deepEqual([...index.lengths], [700, 0, 512]);
});
