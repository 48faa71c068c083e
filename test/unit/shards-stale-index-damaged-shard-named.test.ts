// A shard whose kept index no longer matches it is indexed again; where that cannot be done (the
// shard is damaged now), the DataError names both files and why the index was not used, never
// falling back to the old index's labels.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DataError } from '../../src/shared/errors.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('stale-index-damaged');
const keys = { image: 'image/encoded', label: 'image/class/label' };

test('a stale index beside a shard that cannot be indexed again: E_DATA naming the index and the shard', () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1, 2].map((l, i) => digitRecord(Uint8Array.from([i]), l)) }]);
  shardIndex(file, keys);
  const bytes = fs.readFileSync(file);
  fs.writeFileSync(file, bytes.subarray(0, bytes.length - 3)); // its last record cut short
  assert.throws(
    () => shardIndex(file, keys),
    (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.match(
        err.message,
        new RegExp(
          `^the record index ${file}\\.mgpu-index does not match the shard ${file} \\(the shard changed since it was indexed \\(then ${bytes.length} bytes, .*\\), and the shard cannot be indexed again: shard ${file} record 2 \\(at byte \\d+\\): truncated`,
        ),
      );
      return true;
    },
  );
});
