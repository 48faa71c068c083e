// A 429 Too Many Requests is a 4xx: named at once, not tried again (the policy: 5xx and
// connection faults are the server's, 4xx the request's), but its hint is not "check the URL": it
// says to ask less of the server (data.<split>.http.inFlight), which is what a 429 means.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('429 on a HEAD: named once, the hint to lower inFlight; a 401 keeps the hint to check the URL', async (t) => {
  const server = await serveShards(tempDir('shards-http-429'), { misbehave: (req) => (req.url === '/busy.tar' ? 429 : 401) });
  t.after(() => server.stop());
  const client = new ShardHttp({ inFlight: 1, retries: 3, timeoutMs: 5000 });
  t.after(() => client.close());
  await assert.rejects(client.head(`${server.url}/busy.tar`), (e: Error & { hint?: string }) => {
    assert.equal(e.message, `shard ${server.url}/busy.tar: HTTP 429 Too Many Requests on its HEAD (not tried again: a 4xx is the request's, not the server's)`);
    assert.match(e.hint ?? '', /lower data\.<split>\.http\.inFlight/);
    return true;
  });
  await assert.rejects(client.head(`${server.url}/private.tar`), (e: Error & { hint?: string }) => {
    assert.match(e.message, /HTTP 401 Unauthorized on its HEAD \(not tried again/);
    assert.match(e.hint ?? '', /^check the URL/);
    return true;
  });
  assert.deepEqual(server.log, ['HEAD /busy.tar', 'HEAD /private.tar']);
});
