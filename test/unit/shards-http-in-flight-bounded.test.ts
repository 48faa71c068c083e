// A client's requests are at most `inFlight` at once (its queue in front of a keep-alive agent of
// that many sockets): 12 Range requests sent together to a server that holds each answer 50 ms
// reach it at most 3 at a time with inFlight 3, over at most 3 connections, every answer right.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

test('inFlight 3: never more than 3 requests at the server, over at most 3 connections', async (t) => {
  const data = Buffer.from(Array.from({ length: 4096 }, (_, i) => i & 255));
  let now = 0;
  let most = 0;
  const sockets = new Set<unknown>();
  const server = http.createServer((req, res) => {
    sockets.add(req.socket);
    most = Math.max(most, ++now);
    const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range!)!.map(Number) as [number, number, number];
    setTimeout(() => {
      now--;
      res.writeHead(206, { 'Content-Range': `bytes ${a}-${b}/${data.length}`, 'Content-Length': b - a + 1 });
      res.end(data.subarray(a, b + 1));
    }, 50);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new ShardHttp({ inFlight: 3, retries: 0, timeoutMs: 5000 });
  t.after(() => {
    client.close();
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/s`;
  const got = await Promise.all(Array.from({ length: 12 }, (_, i) => client.range(url, i * 100, 50, `record ${i}`)));
  got.forEach((b, i) => assert.ok(b.equals(data.subarray(i * 100, i * 100 + 50)), `record ${i}`));
  assert.equal(most, 3);
  assert.ok(sockets.size <= 3, `${sockets.size} connections`);
});
