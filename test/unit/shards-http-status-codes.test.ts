// What each HTTP status means to a shard's reads (Node's own server on loopback, answering the
// status on cue): only 404 says "no index beside the shard" (it is then built from the shard);
// 401, 403, 410 and 400 on that index are errors naming the status, tried once (a 4xx is the
// request's); every 5xx, 500 included, is tried again and then served; no 4xx is tried again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ShardHttp, ShardHttpError } from '../../src/data/shards/shard-http.ts';
import { urlShardIndexes } from '../../src/data/shards/url-index.ts';
import { serveShards, type Misbehave } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('shards-http-status');
process.env.MGPU_CACHE_DIR = path.join(dir, 'cache');
const served = path.join(dir, 'served');
fs.mkdirSync(served);
writeShards([{ path: path.join(served, 'a.tfrecord'), records: [0, 1, 2].map((l) => digitRecord(Uint8Array.from([l]), l)) }]);
const keys = { image: 'image/encoded', label: 'image/class/label' };
const http = { inFlight: 1, retries: 3, timeoutMs: 5000 };

async function server(t: test.TestContext, misbehave: Misbehave) {
  const s = await serveShards(served, { misbehave });
  t.after(() => s.stop());
  fs.rmSync(path.join(dir, 'cache'), { recursive: true, force: true }); // nothing kept from the test before
  return s;
}

test('404 on <url>.mgpu-index: no index there, the shard is indexed from its bytes', async (t) => {
  const s = await server(t, (req) => (req.url!.endsWith('.mgpu-index') ? 404 : null));
  const [x] = await urlShardIndexes([`${s.url}/a.tfrecord`], keys, http);
  assert.deepEqual([x!.how, [...x!.labels]], ['built', [0, 1, 2]]);
  assert.equal(s.log.filter((l) => l.startsWith('GET /a.tfrecord.mgpu-index')).length, 1);
});

for (const code of [401, 403, 410, 400]) {
  test(`${code} on <url>.mgpu-index: an error naming it, tried once, the shard not downloaded`, async (t) => {
    const s = await server(t, (req) => (req.url!.endsWith('.mgpu-index') ? code : null));
    await assert.rejects(urlShardIndexes([`${s.url}/a.tfrecord`], keys, http), (err: unknown) => {
      assert.ok(err instanceof ShardHttpError, String(err));
      assert.match(err.message, new RegExp(`^shard ${s.url}/a\\.tfrecord\\.mgpu-index: HTTP ${code} .*on its GET of its index .*not tried again`));
      return true;
    });
    assert.deepEqual(s.log, ['HEAD /a.tfrecord', 'GET /a.tfrecord.mgpu-index']);
  });
}

for (const code of [500, 502, 503, 504]) {
  test(`${code} twice, then served: tried again`, async (t) => {
    const s = await server(t, (_req, n) => (n < 2 ? code : null));
    const client = new ShardHttp(http);
    t.after(() => client.close());
    assert.equal((await client.head(`${s.url}/a.tfrecord`)).size, fs.statSync(path.join(served, 'a.tfrecord')).size);
    assert.deepEqual(s.log, ['HEAD /a.tfrecord', 'HEAD /a.tfrecord', 'HEAD /a.tfrecord']);
  });
}

for (const code of [400, 401, 403, 404, 429]) {
  test(`${code} on a record's read: an error at once, not tried again`, async (t) => {
    const s = await server(t, () => code);
    const client = new ShardHttp(http);
    t.after(() => client.close());
    await assert.rejects(client.range(`${s.url}/a.tfrecord`, 0, 16, 'record 0 (at byte 0)'), (err: unknown) => {
      assert.ok(err instanceof ShardHttpError);
      assert.match(err.message, new RegExp(`HTTP ${code} .*not tried again`));
      return true;
    });
    assert.equal(s.log.length, 1);
  });
}

test("403 on the index of a presigned URL (a query): its signature signs the shard's path only, so no index there", async (t) => {
  const s = await server(t, (req) => (req.url!.includes('.mgpu-index?') ? 403 : null));
  const [x] = await urlShardIndexes([`${s.url}/a.tfrecord?X-Amz-Signature=abc`], keys, http);
  assert.deepEqual([x!.how, [...x!.labels]], ['built', [0, 1, 2]]);
});
