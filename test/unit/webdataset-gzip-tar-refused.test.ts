// A gzip'ed tar shard (.tar.gz) is not read: it is E_DATA saying it is gzip-compressed and that
// compressed tar shards are not read (a sample is read by its offset, which a gzip stream has
// not), never "not a tar file" or members read from compressed bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

test('a .tar.gz shard: E_DATA naming it gzip-compressed', () => {
  const dir = tempDir('gzip-tar');
  const tar = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: tar,
      members: [
        { name: 'k.png', data: 'png' },
        { name: 'k.cls', data: '1' },
      ],
    },
  ]);
  const gz = path.join(dir, 'a.tar.gz');
  fs.writeFileSync(gz, gzipSync(fs.readFileSync(tar)));
  assert.throws(() => scanTarShard(gz, fs.statSync(gz).size, { image: ['png'], label: 'cls' }), {
    code: 'E_DATA',
    message: `shard ${gz} is gzip-compressed (it starts with gzip's magic bytes 1f 8b, as a .tar.gz or .tgz does): compressed tar shards are not read`,
  });
});
