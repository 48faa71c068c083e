// A record's transfer cut mid-body is resumed (a Range request of the rest, asking for the same
// version); when that request finds the shard replaced (412) or gone (404), the error says so,
// as the first request's would have (the shard changed since it was indexed; a 4xx not tried
// again), never bytes of two versions joined.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

for (const [code, expected] of [
  [412, 'record 4: the shard changed on the server since it was indexed (HTTP 412: it is no longer etag "v1")'],
  [404, ": HTTP 404 Not Found on its GET of record 4 (bytes 0-9999) (not tried again: a 4xx is the request's, not the server's)"],
] as const) {
  test(`a cut transfer's resumption answered ${code}: named as such`, async (t) => {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(`${req.headers.range} ${req.headers['if-match']}`);
      if (asked.length > 1) return res.writeHead(code, { 'Content-Length': 0 }).end();
      res.writeHead(206, { 'Content-Range': 'bytes 0-9999/10000', 'Content-Length': 10_000, ETag: '"v1"' });
      res.write(Buffer.alloc(4000), () => setTimeout(() => req.socket.destroy(), 10));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.tfrecord`;
    const client = new ShardHttp({ inFlight: 1, retries: 3, timeoutMs: 5000 });
    t.after(() => client.close());
    await assert.rejects(client.range(url, 0, 10_000, 'record 4', 'etag "v1"'), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.equal(e.message, `shard ${url}${code === 412 ? ' ' : ''}${expected}`);
      return true;
    });
    assert.deepEqual(asked, ['bytes=0-9999 "v1"', 'bytes=4000-9999 "v1"']);
  });
}
