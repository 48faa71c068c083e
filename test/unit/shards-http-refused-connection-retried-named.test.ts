// A shard's server that is not there (nothing listens on its port): each request is tried
// `retries` + 1 times, then a DataError names the URL, what was asked, the socket error (connect
// ECONNREFUSED with the address) and the attempts, with the hint to check the server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { freePort } from '../helpers/shard-server.ts';

test('connection refused: retries + 1 attempts, then named with the socket error', async (t) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/train-3.tar`;
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  const started = Date.now();
  await assert.rejects(client.head(url), (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.message, `shard ${url}: connect ECONNREFUSED 127.0.0.1:${port} on its HEAD, 3 attempts (the last one's answer)`);
    assert.match(e.hint ?? '', /check that the server is up/);
    return true;
  });
  // Two waits of backoff between the three attempts: 200 ms then 400 ms, each times a jitter in [0.5, 1).
  assert.ok(Date.now() - started >= 300, `${Date.now() - started} ms: tried again at once, without backoff`);
});
