// A URL shard replaced on the server after it was indexed (the same size, other bytes, a new
// mtime) is found at its next record's read: the Range request asks for the version indexed
// (If-Match with its ETag; If-Unmodified-Since where only Last-Modified is known) and the 412 is a
// DataError saying the shard changed, not records read from another file. The unchanged shard
// reads as before, the record table's refs carry each URL shard's identity, and a weak ETag
// asks nothing (If-Match compares strongly: it would never match). Against nginx (where
// installed) and Node's own server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RecordTable } from '../../src/data/shards/record-table.ts';
import { conditionOf } from '../../src/data/shards/shard-http.ts';
import { readShardRange } from '../../src/data/shards/shard-range.ts';
import { urlShardIndexes } from '../../src/data/shards/url-index.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('shards-http-412');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');
const keys = { image: 'image/encoded', label: 'image/class/label' };

for (const node of [false, true]) {
  test(`a shard replaced on the server since it was indexed: its next read says so (${node ? 'node' : 'nginx or node'})`, async (t) => {
    const served = path.join(dir, node ? 'node' : 'default');
    const file = path.join(served, 'a.tfrecord');
    const write = (byte: number) =>
      writeShards([{ path: file, records: Array.from({ length: 4 }, (_, i) => digitRecord(Uint8Array.from([i + byte]), i % 3)) }]);
    fs.mkdirSync(served, { recursive: true });
    write(0);
    const server = await serveShards(served, { node });
    t.after(() => server.stop());
    t.diagnostic(`served by ${server.which}`);
    const url = `${server.url}/a.tfrecord`;
    const [index] = await urlShardIndexes([url], keys);
    assert.match(index!.identity!, /^etag "|^last-modified /);
    const ref = new RecordTable([url], [index!], 'image/encoded').ref(2);
    assert.equal(ref.identity, index!.identity, "the table's refs carry the shard's identity");
    const read = () => readShardRange(ref.shard, ref.offset, 16, 'record 2', ref.identity);
    assert.equal((await read()).length, 16, 'the shard as indexed reads');
    write(100); // the same size, other bytes
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later); // a new mtime (a second later at least: Last-Modified counts seconds)
    await assert.rejects(read(), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.match(
        e.message,
        new RegExp(
          `^shard ${url.replace(/\./g, '\\.')} record 2: the shard changed on the server since it was indexed \\(HTTP 412: it is no longer (etag|last-modified) `,
        ),
      );
      return true;
    });
  });
}

test('the condition asked: If-Match for a strong ETag, If-Unmodified-Since for a date, nothing for a weak ETag or none', () => {
  assert.deepEqual(conditionOf('etag "5f-1a"'), { 'If-Match': '"5f-1a"' });
  assert.deepEqual(conditionOf('last-modified Thu, 03 Dec 2026 10:00:00 GMT'), { 'If-Unmodified-Since': 'Thu, 03 Dec 2026 10:00:00 GMT' });
  assert.deepEqual(conditionOf('etag W/"5f-1a"'), {});
  assert.deepEqual(conditionOf(''), {});
});
