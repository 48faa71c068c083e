// forEachMember walks a tar shard's members (on archives built here block by block): regular
// files ('0', the old '\0', contiguous '7') are given in order with their data's offset and
// size, folders, links and other types passed over; a member whose data ends exactly at the
// shard's end is whole; an archive without end blocks ends at its last member, unless a partial
// block is left over ("ends inside a 512-byte block").
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanFile } from '../../src/data/shards/scan-reads.ts';
import { forEachMember, type TarMember } from '../../src/data/shards/tar-members.ts';
import { DataError } from '../../src/shared/errors.ts';
import { tarData, tarHeader } from '../helpers/tar-blocks.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('tar-members');

const header = (name: string, type: string, size: number) => tarHeader({ name, type, size });
const data = tarData;

function members(file: string, bytes: Buffer): TarMember[] {
  fs.writeFileSync(file, bytes);
  const got: TarMember[] = [];
  const fd = fs.openSync(file, 'r');
  try {
    scanFile(
      forEachMember(file, bytes.length, (m) => void got.push(m)),
      fd,
    );
  } finally {
    fs.closeSync(fd);
  }
  return got;
}

test('regular files of every type letter in order; folders, links and the rest passed over', () => {
  const file = path.join(dir, 'types.tar');
  const parts = [
    header('a.jpg', '0', 3),
    data(3),
    header('d/', '5', 0),
    header('b.jpg', '\0', 600),
    data(600),
    header('l.jpg', '2', 0),
    header('h.jpg', '1', 0),
    header('f', '6', 0),
    header('c.jpg', '7', 1),
    data(1),
    Buffer.alloc(1024),
  ];
  assert.deepEqual(members(file, Buffer.concat(parts)), [
    { name: 'a.jpg', header: 0, offset: 512, size: 3 },
    { name: 'b.jpg', header: 1536, offset: 2048, size: 600 },
    { name: 'c.jpg', header: 4608, offset: 5120, size: 1 },
  ]);
});

test("a member whose data ends exactly at the shard's end is whole; no end blocks is not an error", () => {
  const file = path.join(dir, 'exact.tar');
  assert.deepEqual(members(file, Buffer.concat([header('a.jpg', '0', 512), data(512)])), [{ name: 'a.jpg', header: 0, offset: 512, size: 512 }]);
});

test('bytes after the last member that do not fill a block: ends inside a 512-byte block', () => {
  const file = path.join(dir, 'tail.tar');
  assert.throws(
    () => members(file, Buffer.concat([header('a.jpg', '0', 3), data(3), Buffer.alloc(100, 1)])),
    (e: unknown) => e instanceof DataError && e.message === `shard ${file}: it ends inside a 512-byte block (at byte 1124): truncated`,
  );
});
