// The tar scan's members (forEachMember) are the ones another reader finds: tar-stream, a kept
// library, reads the same Python-written tars (pax, GNU and ustar; names in ustar's prefix field,
// pax `path` and GNU `L` long names; sizes around the 512-byte blocks) and gives each member's name,
// size and bytes; the scan's member i must have that name and size, and the shard's bytes at the
// data offset the scan keeps must be the bytes tar-stream gave. tar-stream is the reference here,
// not the scan's parser (why not: the top of src/data/shards/tar-members.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { extract } from 'tar-stream';
import { scanFile } from '../../src/data/shards/scan-reads.ts';
import { forEachMember, type TarMember } from '../../src/data/shards/tar-members.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards, type TarFile } from '../helpers/webdataset-shards.ts';

const dir = tempDir('tar-agree');
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed) & 255);
const prefixed = `${'in-the-prefix/'.repeat(8)}p`; // 113 bytes: ustar splits it into prefix and name
const deep = `${'long-folder-name/'.repeat(12)}d`; // 205 bytes past a 155-byte prefix: pax or GNU long names only

function members(long: boolean): TarFile[] {
  const sizes = [0, 1, 511, 512, 513, 1024, 1025, 3000];
  const names = sizes.map((_, i) => `s${i}.bin`);
  names[2] = `${prefixed}.jpg`;
  if (long) [names[4], names[6]] = [`${deep}.png`, `${deep}2.cls`];
  return sizes.map((n, i) => ({ name: names[i]!, data: bytes(n, i) }));
}

function scanned(file: string): TarMember[] {
  const out: TarMember[] = [];
  const fd = fs.openSync(file, 'r');
  try {
    scanFile(
      forEachMember(file, fs.fstatSync(fd).size, (m) => void out.push(m)),
      fd,
    );
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

/** Each file member's name and bytes, as tar-stream reads them. */
async function byTarStream(tar: Buffer): Promise<Array<{ name: string; data: Buffer }>> {
  const out: Array<{ name: string; data: Buffer }> = [];
  const x = extract();
  Readable.from([tar]).pipe(x);
  for await (const entry of x) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    if (entry.header.type === 'file') out.push({ name: entry.header.name, data: Buffer.concat(chunks) });
  }
  return out;
}

for (const format of ['pax', 'gnu', 'ustar'] as const) {
  test(`${format}: the scan finds tar-stream's members, each one's bytes at the offset it keeps`, async () => {
    const file = path.join(dir, `${format}.tar`);
    writeTarShards([{ path: file, format, members: members(format !== 'ustar') }]);
    const tar = fs.readFileSync(file);
    const reference = await byTarStream(tar);
    const found = scanned(file);
    assert.equal(reference.length, 8);
    assert.deepEqual(
      found.map((m) => [m.name, m.size]),
      reference.map((r) => [r.name, r.data.length]),
    );
    for (const [i, m] of found.entries()) assert.deepEqual(tar.subarray(m.offset, m.offset + m.size), reference[i]!.data, `member ${m.name}'s bytes`);
  });
}
