// A transfer cut mid-body (the server sends the headers and part of the bytes, then closes the
// connection) is tried again, and the bytes that come are the ones asked, whole: a record's Range
// request and the whole shard's streaming GET (the one that indexes a webdataset or tfrecord
// shard) alike. Each request of the record's bytes carries one Range header (a retry that resumes
// a transfer asks from where it was cut, never two ranges at once) ending at the last byte asked.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';

const data = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7) & 255));

/** A server of `data` whose first GET is cut after half its bytes; the Range headers of each GET, as sent. */
async function cuttingServer(t: test.TestContext) {
  const ranges: string[][] = [];
  let gets = 0;
  const server = http.createServer((req, res) => {
    const values = req.rawHeaders.flatMap((v, i) => (i % 2 === 1 && req.rawHeaders[i - 1]!.toLowerCase() === 'range' ? [v] : []));
    ranges.push(values);
    const m = /^bytes=(\d+)-(\d+)$/.exec(values[0] ?? '');
    const [from, to] = m ? [Number(m[1]), Number(m[2])] : [0, data.length - 1];
    const head = { 'Content-Length': to - from + 1, 'Accept-Ranges': 'bytes', ETag: '"v1"' };
    res.writeHead(m ? 206 : 200, m ? { ...head, 'Content-Range': `bytes ${from}-${to}/${data.length}` } : head);
    if (gets++ > 0) return res.end(data.subarray(from, to + 1));
    res.write(data.subarray(from, from + Math.floor((to - from + 1) / 2)), () => setTimeout(() => req.socket.destroy(), 20));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/s.tar`, ranges };
}

test("a record's Range request cut mid-body: tried again, the bytes asked come whole", async (t) => {
  const { url, ranges } = await cuttingServer(t);
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  const got = await client.range(url, 1000, 40_000, 'sample 3');
  assert.ok(got.equals(data.subarray(1000, 41_000)));
  assert.equal(ranges.length, 2, 'the first request, cut, and one more');
  ranges.forEach((r) => assert.equal(r.length, 1, `one Range header, not ${JSON.stringify(r)}`));
  assert.equal(ranges[0]![0], 'bytes=1000-40999');
  assert.match(ranges[1]![0]!, /^bytes=\d+-40999$/);
});

test("the whole shard's streaming GET cut mid-body: tried again, the consumer gets every byte once", async (t) => {
  const { url, ranges } = await cuttingServer(t);
  const client = new ShardHttp({ inFlight: 1, retries: 2, timeoutMs: 5000 });
  t.after(() => client.close());
  const consumed = await client.stream(url, 'the whole shard, to index it', data.length, async (body) => {
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(Buffer.from(c));
    return Buffer.concat(chunks);
  });
  assert.ok(consumed.equals(data), `${consumed.length} bytes`);
  assert.equal(ranges.length, 2);
});
