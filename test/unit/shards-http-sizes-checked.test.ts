// Where a shard's size comes from, and that it holds: a HEAD without Content-Length is followed
// by a Range request of byte 0 whose Content-Range gives the size; a Content-Range there that is
// not "bytes 0-0/<size>" is refused by name; a whole-shard GET whose Content-Length is not the
// size its HEAD gave is refused (the shard is being written), before its bytes are read.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

test('the size from a HEAD without Content-Length, a bad Content-Range refused, a GET of another size refused', async (t) => {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url} ${req.headers.range ?? ''}`.trim());
    if (req.method === 'HEAD') return res.writeHead(200, { 'Accept-Ranges': 'bytes', 'Transfer-Encoding': 'chunked' }).end();
    if (req.url === '/unsized.tar') return res.writeHead(206, { 'Content-Range': 'bytes 0-0/777', 'Content-Length': 1, ETag: '"u"' }).end('x');
    if (req.url === '/starred.tar') return res.writeHead(206, { 'Content-Range': 'bytes 0-0/*', 'Content-Length': 1 }).end('x');
    res.writeHead(200, { 'Content-Length': 500 }).end(Buffer.alloc(500)); // /growing.tar
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  assert.deepEqual(await client.head(`${base}/unsized.tar`), { size: 777, identity: 'etag "u"' });
  await assert.rejects(
    client.head(`${base}/starred.tar`),
    new RegExp(
      `^MgpuError: shard ${base.replace(/\./g, '\\.')}/starred\\.tar: the server answered a Range request of byte 0 with Content-Range "bytes 0-0/\\*", not "bytes 0-0/<size>"$`,
    ),
  );
  let read = 0;
  await assert.rejects(
    client.stream(`${base}/growing.tar`, 'the whole shard, to index it', 400, async (body) => {
      for await (const c of body) read += c.length;
    }),
    /: its GET gives 500 bytes, its HEAD gave 400: the shard changed while it was being indexed$/,
  );
  assert.equal(read, 0, 'no byte of it given to the scan');
  assert.deepEqual(asked, ['HEAD /unsized.tar', 'GET /unsized.tar bytes=0-0', 'HEAD /starred.tar', 'GET /starred.tar bytes=0-0', 'GET /growing.tar']);
});
