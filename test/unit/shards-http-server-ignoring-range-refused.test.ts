// A server that ignores Range requests (it answers 200 with the whole file, and says nothing of
// Accept-Ranges) is refused by name at the shard's HEAD, before any record is read (each record
// would otherwise cost a download of the shard): the HEAD is followed by a Range request of byte
// 0, whose 200 is the proof; a record's Range request answered with 200 is refused the same way.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

test('a server that answers Range requests with 200 is refused, naming the URL and what to use', async (t) => {
  const asked: string[] = [];
  const body = Buffer.alloc(4096, 7);
  const server = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.headers.range ?? ''}`.trim());
    res.writeHead(200, { 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/train-0.tar`;
  const client = new ShardHttp({ inFlight: 2, retries: 3, timeoutMs: 5000 });
  t.after(() => client.close());
  const refused = (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.match(
      e.message,
      new RegExp(`^shard ${url.replace(/\./g, '\\.')}: the server ignores Range requests \\(it answered one with 200 and the whole shard\\)`),
    );
    assert.match(e.hint ?? '', /answers Range requests with 206 Partial Content/);
    return true;
  };
  await assert.rejects(client.head(url), refused);
  assert.deepEqual(asked, ['HEAD', 'GET bytes=0-0'], 'not tried again');
  await assert.rejects(client.range(url, 512, 100, 'sample 1'), refused);
});
