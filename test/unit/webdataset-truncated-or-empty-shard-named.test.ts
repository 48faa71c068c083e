// A tar shard cut short inside a member's data is named with the member and where its data would
// end; an empty shard (0 bytes) and a tar with no members (only its two zero blocks) are each
// refused by name.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-truncated');
const keys = { image: ['png'], label: 'cls' };

test('a shard cut inside a member names the member', () => {
  const file = path.join(dir, 'cut.tar');
  writeTarShards([
    {
      path: file,
      members: [
        { name: 's.cls', data: '2' },
        { name: 's.png', data: Buffer.alloc(3000, 7) },
      ],
    },
  ]);
  const tar = fs.readFileSync(file);
  fs.writeFileSync(file, tar.subarray(0, 2048)); // s.png's header is at 1024, its data at 1536..4536
  assert.throws(() => scanTarShard(file, 2048, keys), {
    code: 'E_DATA',
    message: `shard ${file}: member s.png (header at byte 1024) is truncated: its 3000 bytes end at byte 4536, past the shard's end at 2048`,
  });
});

test('an empty shard, and a tar of no members, are refused', () => {
  const empty = path.join(dir, 'empty.tar');
  fs.writeFileSync(empty, '');
  assert.throws(() => scanTarShard(empty, 0, keys), { code: 'E_DATA', message: `shard ${empty} is empty (0 bytes): it holds no samples` });
  const none = path.join(dir, 'none.tar');
  writeTarShards([{ path: none, members: [] }]);
  assert.throws(() => scanTarShard(none, fs.statSync(none).size, keys), { code: 'E_DATA', message: /^shard .*none\.tar holds no samples/ });
});
