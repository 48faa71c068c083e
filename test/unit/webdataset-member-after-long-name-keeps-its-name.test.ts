// A long member name comes before its member as a GNU 'L' record or a pax 'path' record; it names
// that member only: the member after it keeps its own header's name. Tars written by Python's
// tarfile in GNU and pax formats.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanFile } from '../../src/data/shards/scan-reads.ts';
import { forEachMember } from '../../src/data/shards/tar-members.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('tar-long-name');
const long = `${'deep/'.repeat(30)}x000.png`; // 158 bytes: past ustar's 100 (and its 155-byte prefix split)

function names(file: string): string[] {
  const out: string[] = [];
  const fd = fs.openSync(file, 'r');
  try {
    scanFile(
      forEachMember(file, fs.fstatSync(fd).size, (m) => void out.push(m.name)),
      fd,
    );
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

for (const format of ['gnu', 'pax'] as const) {
  test(`${format}: the members after a long-named one keep their own names`, () => {
    const file = path.join(dir, `${format}.tar`);
    const members = [long, 'x001.png', 'x001.cls', long.replace('x000', 'x002'), 'x003.cls'];
    writeTarShards([{ path: file, format, members: members.map((name) => ({ name, data: 'd' })) }]);
    assert.deepEqual(names(file), members);
  });
}
