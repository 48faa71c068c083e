// A shard's HEAD refused with 403 or 405 (a URL presigned for GET alone is refused a HEAD) is
// replaced by a Range request of byte 0, whose Content-Range gives the size and whose ETag the
// identity: the same as a HEAD would have said (Node's own server on loopback).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('HEAD refused (403, 405): the size and ETag come from a Range request of byte 0', async (t) => {
  const dir = tempDir('shards-http-probe');
  fs.writeFileSync(path.join(dir, 'a.tar'), Buffer.alloc(3 * 512, 1));
  for (const refused of [403, 405]) {
    const plain = await serveShards(dir, { node: true });
    const refusing = await serveShards(dir, { misbehave: (req) => (req.method === 'HEAD' ? refused : null) });
    const client = new ShardHttp({ inFlight: 1, retries: 0, timeoutMs: 5000 });
    t.after(async () => {
      client.close();
      await plain.stop();
      await refusing.stop();
    });
    const byHead = await client.head(`${plain.url}/a.tar`);
    assert.deepEqual(plain.log, ['HEAD /a.tar']);
    assert.equal(byHead.size, 1536);
    assert.match(byHead.identity, /^etag "[0-9a-f]+-[0-9a-f]+"$/);
    assert.deepEqual(await client.head(`${refusing.url}/a.tar`), byHead);
    assert.deepEqual(refusing.log, ['HEAD /a.tar', 'GET /a.tar bytes=0-0']);
  }
});
