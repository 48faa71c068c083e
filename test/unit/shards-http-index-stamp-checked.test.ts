// The index of a URL's shard (served by Node's own server on loopback): an index uploaded beside
// the shard (`<url>.mgpu-index`, as a local run leaves it) is fetched when its size and keys match
// the shard's HEAD (its mtime is a local file's, which no server's ETag can match), refused and
// rebuilt by one streaming GET when it is of another version of the shard (another size), and the
// index kept in the cache folder (stamped with the HEAD's ETag) is read next time, and rebuilt
// when the shard's ETag changed though its size did not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { urlShardIndexes } from '../../src/data/shards/url-index.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('shards-http-index');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');
const keys = { image: 'image/encoded', label: 'image/class/label' };
const file = path.join(dir, 'served', 'a.tfrecord');
const write = (n: number, byte = 0) =>
  writeShards([{ path: file, records: Array.from({ length: n }, (_, i) => digitRecord(Uint8Array.from([i + byte]), i % 3)) }]);

test('an uploaded index fetched when its size matches, rebuilt when of another version; the cached one checked by ETag', async (t) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  write(5);
  shardIndex(file, keys); // leaves a.tfrecord.mgpu-index beside it, as a local run does
  const server = await serveShards(path.dirname(file), { node: true });
  t.after(() => server.stop());
  const url = `${server.url}/a.tfrecord`;
  const index = async () => (await urlShardIndexes([url], keys))[0]!;

  const fetched = await index();
  assert.deepEqual([fetched.how, fetched.count, fetched.inCache], ['fetched', 5, true]);
  assert.ok(server.log.includes('GET /a.tfrecord.mgpu-index'), server.log.join('\n'));
  assert.ok(!server.log.includes('GET /a.tfrecord'), 'the shard itself is not downloaded');
  assert.equal((await index()).how, 'read', 'then read from the cache folder');

  const uploaded = fs.readFileSync(`${file}.mgpu-index`);
  write(7); // another version of the shard, the old index still beside it
  fs.writeFileSync(`${file}.mgpu-index`, uploaded);
  const rebuilt = await index();
  assert.deepEqual([rebuilt.how, rebuilt.count], ['rebuilt', 7]);
  assert.match(
    rebuilt.why!,
    new RegExp(`^${url.replace(/\./g, '\\.')}\\.mgpu-index: the shard changed since it was indexed \\(then \\d+ bytes; now \\d+ bytes\\)$`),
  );
  assert.ok(server.log.includes('GET /a.tfrecord'), 'built by one streaming GET of the shard');

  write(7, 100); // the same size, other bytes, a new mtime: another ETag
  fs.rmSync(`${file}.mgpu-index`);
  const later = new Date(fs.statSync(file).mtimeMs + 5000);
  fs.utimesSync(file, later, later);
  const again = await index();
  assert.deepEqual([again.how, again.count], ['rebuilt', 7]);
  assert.match(
    again.why!,
    /^the one in the cache folder: the shard changed since it was indexed \(then \d+ bytes; now \d+ bytes, etag "[^"]+", not the one it was indexed at\)$/,
  );
  assert.equal((await index()).how, 'read');
});
