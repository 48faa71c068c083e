// A shard's server that keeps failing (Node's own server on loopback answering 503 to every
// request, or one that never answers): each request is sent `retries` + 1 times with backoff,
// then a DataError names the URL, what was asked (the record and its bytes), the last status or
// socket error and the attempts; a 404 is asked once.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { serveShards } from '../helpers/shard-server.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('503 on every request: retries + 1 attempts, then named with the status', async (t) => {
  const server = await serveShards(tempDir('shards-http-503'), { misbehave: () => 503 });
  t.after(() => server.stop());
  const client = new ShardHttp({ inFlight: 2, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  const url = `${server.url}/a.tfrecord`;
  await assert.rejects(client.range(url, 10, 10, 'record 3 (at byte 10)'), (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.message, `shard ${url}: HTTP 503 Service Unavailable on its GET of record 3 (at byte 10) (bytes 10-19), 3 attempts (the last one's answer)`);
    assert.match(e.hint ?? '', /check that the server is up/);
    return true;
  });
  assert.deepEqual(
    server.log,
    Array.from({ length: 3 }, () => 'GET /a.tfrecord bytes=10-19'),
  );
});

test('a 404 is asked once', async (t) => {
  const server = await serveShards(tempDir('shards-http-404'), { node: true });
  t.after(() => server.stop());
  const client = new ShardHttp({ inFlight: 1, retries: 4, timeoutMs: 5000 });
  t.after(() => client.close());
  await assert.rejects(
    client.head(`${server.url}/gone.tar`),
    /: HTTP 404 Not Found on its HEAD \(not tried again: a 4xx is the request's, not the server's\)$/,
  );
  assert.deepEqual(server.log, ['HEAD /gone.tar']);
});

test('a server that never answers: each attempt ends at timeoutMs, then named', async (t) => {
  let asked = 0;
  const silentServer = http.createServer(() => {
    asked++;
  });
  await new Promise<void>((r) => silentServer.listen(0, '127.0.0.1', r));
  t.after(() => {
    silentServer.closeAllConnections();
    silentServer.close();
  });
  const url = `http://127.0.0.1:${(silentServer.address() as AddressInfo).port}/s.tar`;
  const client = new ShardHttp({ inFlight: 1, retries: 1, timeoutMs: 200 });
  t.after(() => client.close());
  await assert.rejects(
    client.range(url, 0, 512, 'sample 0'),
    new RegExp(`shard ${url.replace(/\./g, '\\.')}: no response in 200 ms on its GET of sample 0 \\(bytes 0-511\\), 2 attempts`),
  );
  assert.equal(asked, 2);
});
