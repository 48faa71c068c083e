// A tar header whose checksum does not match (one flipped byte in a member's name) is named with
// its shard and the byte where the header starts, never read as a member; a file that is not a
// tar at all (its first block no tar header) is named as such.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-checksum');
const keys = { image: ['jpg'], label: 'cls' };

test("a flipped byte in the second member's header is named with the header's byte", () => {
  const file = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: file,
      members: [
        { name: 'x.jpg', data: 'abc' },
        { name: 'x.cls', data: '1' },
      ],
    },
  ]);
  const tar = fs.readFileSync(file);
  assert.equal(scanTarShard(file, tar.length, keys).count, 1);
  tar[1024] = tar[1024]! ^ 0x01; // the first byte of x.cls's name: 'x' becomes 'y'
  fs.writeFileSync(file, tar);
  assert.throws(() => scanTarShard(file, tar.length, keys), {
    code: 'E_DATA',
    message: new RegExp(`^shard ${file}: the tar header at byte 1024: its checksum does not match`),
  });
});

test('a file that is not a tar is named as not a tar file', () => {
  const file = path.join(dir, 'not.tar');
  fs.writeFileSync(file, Buffer.alloc(2048, 'this is a text file, not a tar\n'));
  assert.throws(() => scanTarShard(file, 2048, keys), {
    code: 'E_DATA',
    message: `shard ${file} is not a tar file (its first 512 bytes are not a tar header: no ustar magic, checksum does not match)`,
  });
});
