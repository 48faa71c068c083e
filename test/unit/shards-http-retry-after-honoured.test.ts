// A 503 with Retry-After (seconds, or an HTTP date) is tried again after the wait the server asks,
// not the shorter backoff; a wait longer than the backoff's cap (10 s) is capped; without one the
// backoff doubles from 200 ms with a jitter in [0.5, 1).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { backoffMs } from '../../src/data/shards/shard-http-retry.ts';

test('503 with Retry-After: 1: the next attempt a second later, then served', async (t) => {
  const asked: number[] = [];
  const server = http.createServer((req, res) => {
    asked.push(Date.now());
    if (asked.length === 1) res.writeHead(503, { 'Retry-After': '1', 'Content-Length': 0 }).end();
    else res.writeHead(200, { 'Content-Length': 4 }).end('ok!\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const client = new ShardHttp({ inFlight: 1, retries: 3, timeoutMs: 5000 });
  t.after(() => client.close());
  const got = await client.fetchIfThere(`http://127.0.0.1:${(server.address() as AddressInfo).port}/a.mgpu-index`, 'its index');
  assert.deepEqual(got, { bytes: Buffer.from('ok!\n') });
  assert.equal(asked.length, 2);
  assert.ok(asked[1]! - asked[0]! >= 950, `${asked[1]! - asked[0]!} ms: the Retry-After not waited`);
});

test('the wait: Retry-After in seconds or as a date, capped at 10 s; else 200 ms doubled each attempt, times a jitter', () => {
  const o = { minTimeout: 200, maxTimeout: 10_000, timeoutFactor: 2 };
  assert.equal(backoffMs(1, '3', o, 0), 3000);
  assert.equal(backoffMs(1, '3600', o, 0), 10_000);
  assert.equal(backoffMs(1, ' 12', o, 0), 10_000, 'Retry-After: 12 (its blank trimmed)');
  assert.equal(backoffMs(1, '7 ', o, 0), 7000);
  const inFive = new Date(Date.now() + 5000).toUTCString();
  assert.ok(Math.abs(backoffMs(1, inFive, o, 0) - 5000) <= 1000, String(backoffMs(1, inFive, o, 0)));
  assert.deepEqual(
    [1, 2, 3].map((a) => backoffMs(a, undefined, o, 0)),
    [100, 200, 400],
  );
  assert.equal(backoffMs(2, undefined, o, 0.999999), 400 * (0.5 + 0.999999 / 2));
  assert.equal(backoffMs(10, 'soon', o, 1), 10_000, 'a Retry-After that is no number nor date: the backoff');
  assert.equal(backoffMs(2, '0', o, 1), 400, 'Retry-After: 0: the backoff, not a retry at once');
});
