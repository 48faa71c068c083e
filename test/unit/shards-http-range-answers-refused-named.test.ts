// A record's Range request answered with other bytes than those asked is refused by name, never
// read as the record: a shard now shorter (206 with fewer bytes, or 416: no bytes there), a
// Content-Range from another byte, more bytes than asked, or a redirect (not followed: named with
// its status, not as a 4xx). Each asked once: none of these is the server's passing failure.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

const SIZE = 1000;

/** How the server answers bytes a-b of each path. */
const answers: Record<string, (a: number, b: number, res: http.ServerResponse) => void> = {
  '/shorter': (a, _b, res) => res.writeHead(206, { 'Content-Range': `bytes ${a}-${SIZE - 1}/${SIZE}`, 'Content-Length': SIZE - a }).end(Buffer.alloc(SIZE - a)),
  '/past-end': (_a, _b, res) => res.writeHead(416, { 'Content-Range': `bytes */${SIZE}`, 'Content-Length': 0 }).end(),
  '/other-start': (a, b, res) => res.writeHead(206, { 'Content-Range': `bytes 0-${b - a}/${SIZE}`, 'Content-Length': b - a + 1 }).end(Buffer.alloc(b - a + 1)),
  '/longer': (a, b, res) => res.writeHead(206, { 'Content-Range': `bytes ${a}-${b + 10}/${SIZE}`, 'Content-Length': b - a + 11 }).end(Buffer.alloc(b - a + 11)),
  '/moved': (_a, _b, res) => res.writeHead(301, { Location: '/elsewhere', 'Content-Length': 0 }).end(),
};

test('a Range request answered with other bytes than asked: refused by name, asked once', async (t) => {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url!);
    const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range!)!.map(Number) as [number, number, number];
    answers[req.url!]!(a, b, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new ShardHttp({ inFlight: 1, retries: 3, timeoutMs: 5000 });
  t.after(() => client.close());
  const refused = async (path: string, message: string, hint: RegExp) => {
    await assert.rejects(client.range(`${base}${path}`, 900, 200, 'record 9'), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.equal(e.message, `shard ${base}${path} ${message}`);
      assert.match(e.hint ?? '', hint);
      return true;
    });
  };
  await refused('/shorter', 'record 9: 100 bytes came for the 200 of bytes 900-1099: the shard is shorter than when it was indexed', /^put the shard back/);
  await refused('/past-end', 'record 9: the server has no bytes 900-1099 (HTTP 416): the shard is shorter than when it was indexed', /^put the shard back/);
  await refused('/other-start', 'record 9: the server answered bytes=900-1099 with Content-Range "bytes 0-199/1000"', /answers Range requests/);
  await refused('/longer', 'record 9: 210 bytes came for the 200 of bytes 900-1099 (the server does not keep to the range asked)', /as RFC 9110 says/);
  await assert.rejects(client.range(`${base}/moved`, 900, 200, 'record 9'), (e: Error & { hint?: string }) => {
    assert.equal(e.message, `shard ${base}/moved: HTTP 301 Moved Permanently on its GET of record 9 (bytes 900-1099)`);
    assert.match(e.hint ?? '', /check that the server is up/);
    return true;
  });
  assert.deepEqual(asked, ['/shorter', '/past-end', '/other-start', '/longer', '/moved']);
});
