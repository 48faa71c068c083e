// A record's Range request answered 500, then 502, then 206 is served (a 5xx is the server's
// failure, tried again): the bytes asked, after three requests of the same range and condition.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test("a record's read answered 500, 502, then 206: the bytes asked", async (t) => {
  const dir = tempDir('shards-http-5xx-206');
  const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 13) & 255));
  fs.writeFileSync(path.join(dir, 'a.tfrecord'), bytes);
  const conditions: string[] = [];
  const server = await serveShards(dir, {
    misbehave: (req, n) => {
      conditions.push(String(req.headers['if-match']));
      return [500, 502][n] ?? null;
    },
  });
  t.after(() => server.stop());
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  const url = `${server.url}/a.tfrecord`;
  const st = fs.statSync(path.join(dir, 'a.tfrecord'));
  const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  const got = await client.range(url, 100, 2000, 'record 1 (at byte 100)', `etag ${etag}`);
  assert.ok(got.equals(bytes.subarray(100, 2100)));
  assert.deepEqual(
    server.log,
    Array.from({ length: 3 }, () => 'GET /a.tfrecord bytes=100-2099'),
  );
  assert.deepEqual(conditions, [etag, etag, etag], 'each attempt asks for the version indexed');
});
