// When a shard's folder is not writable, its record index is kept in the cache folder
// (MGPU_CACHE_DIR here) instead, read from there next time, and the header says where. The
// folder is made unwritable with chattr +i (immutable: even root cannot write in it); where
// chattr is not available the test is skipped, saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { describeIndexes } from '../../src/data/shards/index-header.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-cache');
const shards = path.join(dir, 'shards');
const cache = path.join(dir, 'cache');
const keys = { image: 'image/encoded', label: 'image/class/label' };

test('an unwritable shard folder: the index goes to the cache folder, and is read back from it', (t) => {
  fs.mkdirSync(shards);
  const file = path.join(shards, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1].map((i) => digitRecord(Uint8Array.from([i]), i)) }]);
  const locked = spawnSync('chattr', ['+i', shards]);
  if (locked.status !== 0) {
    t.skip(`chattr +i is not available here: ${locked.stderr.toString().trim() || String(locked.error?.message)}`);
    return;
  }
  const before = process.env.MGPU_CACHE_DIR;
  process.env.MGPU_CACHE_DIR = cache;
  try {
    const built = shardIndex(file, keys);
    assert.deepEqual([built.how, built.inCache], ['built', true]);
    assert.ok(built.indexFile.startsWith(path.join(cache, 'tfrecord-index', 'a.tfrecord-')), built.indexFile);
    assert.ok(fs.existsSync(built.indexFile));
    assert.deepEqual(fs.readdirSync(shards), ['a.tfrecord']);
    const read = shardIndex(file, keys);
    assert.deepEqual([read.how, read.indexFile, read.count], ['read', built.indexFile, 2]);
    assert.equal(
      describeIndexes([read], 'record'),
      `record indexes: 1 read, kept in the cache folder ${path.join(cache, 'tfrecord-index')} (the shards' folder is not writable)`,
    );
  } finally {
    spawnSync('chattr', ['-i', shards]);
    if (before === undefined) delete process.env.MGPU_CACHE_DIR;
    else process.env.MGPU_CACHE_DIR = before;
  }
});
