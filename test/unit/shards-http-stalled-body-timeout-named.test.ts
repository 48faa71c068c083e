// A server that answers a record's Range request with its headers and part of the body, then
// sends nothing more: each attempt ends `timeoutMs` after the last byte came (not after the
// request was sent: a slow body that keeps coming is read), is tried again from the byte it
// reached, and the DataError names the URL, the record, "no byte of the body in <timeoutMs> ms"
// and the attempts.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

async function serve(t: test.TestContext, handle: http.RequestListener) {
  const server = http.createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/s.tar`;
}

const head = (res: http.ServerResponse, from: number, to: number) =>
  res.writeHead(206, { 'Content-Range': `bytes ${from}-${to}/100000`, 'Content-Length': to - from + 1, ETag: '"v"' });

test('a body that stops coming: each attempt ends timeoutMs after its last byte, then named', async (t) => {
  const ranges: string[] = [];
  const url = await serve(t, (req, res) => {
    ranges.push(req.headers.range!);
    const [, from, to] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range!)!.map(Number) as [number, number, number];
    head(res, from, to);
    res.write(Buffer.alloc(10, 1)); // then silence
  });
  const client = new ShardHttp({ inFlight: 1, retries: 1, timeoutMs: 300 });
  t.after(() => client.close());
  await assert.rejects(client.range(url, 0, 1000, 'sample 2'), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.message, `shard ${url}: no byte of the body in 300 ms on its GET of sample 2 (bytes 0-999), 2 attempts (the last one's answer)`);
    return true;
  });
  assert.deepEqual(ranges, ['bytes=0-999', 'bytes=10-999'], 'the second attempt resumes from the byte the first reached');
});

// undici's timers tick every half second: a timeout of 300 ms ends an attempt within about 1.3 s,
// so the body here takes 2.5 s, in 10 bytes each 250 ms.
test('a slow body whose bytes keep coming is read, though it takes longer than timeoutMs', async (t) => {
  const url = await serve(t, (req, res) => {
    head(res, 0, 99);
    let sent = 0;
    const drip = setInterval(() => {
      res.write(Buffer.alloc(10, 2));
      if ((sent += 10) === 100) {
        clearInterval(drip);
        res.end();
      }
    }, 250);
    req.socket.once('close', () => clearInterval(drip));
  });
  const client = new ShardHttp({ inFlight: 1, retries: 0, timeoutMs: 300 });
  t.after(() => client.close());
  const started = Date.now();
  assert.ok((await client.range(url, 0, 100, 'sample 0')).equals(Buffer.alloc(100, 2)));
  assert.ok(Date.now() - started > 2000, `${Date.now() - started} ms`);
});
