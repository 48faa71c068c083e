// The whole shard's streaming GET (the one that indexes it) that the server keeps cutting: each
// cut resumed until the retries are spent, then the DataError names the URL, what was asked, the
// socket error and the attempts (thrown where the consumer reads the body); an error of the
// consumer itself (its scan refusing the shard's bytes) passes as it is, not as the server's.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp, ShardHttpError } from '../../src/data/shards/shard-http.ts';
import { DataError } from '../../src/shared/errors.ts';

const data = Buffer.alloc(40_000, 5);

async function serve(t: test.TestContext, cut: boolean) {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.headers.range ?? 'whole');
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const [from, to] = m ? [Number(m[1]), Number(m[2])] : [0, data.length - 1];
    const head = { 'Content-Length': to - from + 1, ETag: '"s"' };
    res.writeHead(m ? 206 : 200, m ? { ...head, 'Content-Range': `bytes ${from}-${to}/${data.length}` } : head);
    if (!cut) return res.end(data.subarray(from, to + 1));
    res.write(data.subarray(from, from + 1000), () => setTimeout(() => req.socket.destroy(), 10));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/s.tar`, asked };
}

const drain = async (body: AsyncIterable<Uint8Array>) => {
  let n = 0;
  for await (const c of body) n += c.length;
  return n;
};

test('a streaming GET cut each time: resumed until the retries are spent, then named with the attempts', async (t) => {
  const { url, asked } = await serve(t, true);
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  await assert.rejects(client.stream(url, 'the whole shard, to index it', data.length, drain), (e: Error) => {
    assert.ok(e instanceof ShardHttpError, String(e));
    assert.match(
      e.message,
      new RegExp(
        `^shard ${url.replace(/\./g, '\\.')}: the connection was cut \\(.+\\) on its GET of the whole shard, to index it, 3 attempts \\(the last one's answer\\)$`,
      ),
    );
    return true;
  });
  assert.deepEqual(asked, ['whole', 'bytes=1000-39999', 'bytes=2000-39999']);
});

test("the consumer's own error passes as it is", async (t) => {
  const { url } = await serve(t, false);
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  const refused = new DataError('s.tar: member 3 has a size field of "zz"', 'rewrite the shard');
  await assert.rejects(
    client.stream(url, 'the whole shard, to index it', data.length, async (body) => {
      for await (const _ of body) throw refused;
      return 0;
    }),
    (e: unknown) => e === refused,
  );
});
