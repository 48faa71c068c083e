// https:// shards are read by the same client as http:// ones (one undici Agent serves both): a
// server on loopback with a self-signed certificate made here by openssl. While certificates are
// checked, it is refused at once, naming the URL and the TLS error (a certificate refused is not
// the server's passing failure: not tried again); where the test stops checking them
// (NODE_TLS_REJECT_UNAUTHORIZED=0, read at each connection), its HEAD and a record's Range
// requests are served as http's are (over one kept-alive connection), and an http server beside
// it through the same client too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { ShardHttp } from '../../src/data/shards/shard-http.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const OPENSSL = '/usr/bin/openssl';
const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 3) & 255));

function rangeServer(req: http.IncomingMessage, res: http.ServerResponse) {
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  const head = { 'Accept-Ranges': 'bytes', ETag: '"tls-1"' };
  if (!m) return res.writeHead(200, { ...head, 'Content-Length': data.length }).end(req.method === 'HEAD' ? undefined : data);
  const [a, b] = [Number(m[1]), Number(m[2])];
  res.writeHead(206, { ...head, 'Content-Range': `bytes ${a}-${b}/${data.length}`, 'Content-Length': b - a + 1 }).end(data.subarray(a, b + 1));
}

test(
  'https: refused while certificates are checked, then served by the client that serves http',
  { skip: !fs.existsSync(OPENSSL) && `no ${OPENSSL}` },
  async (t) => {
    const dir = tempDir('shards-https');
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1', '-keyout', key, '-out', cert], {
      stdio: 'ignore',
    });
    const tls = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, rangeServer);
    const plain = http.createServer(rangeServer);
    for (const s of [tls, plain]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    let tlsAsked = 0;
    tls.on('connection', () => tlsAsked++);
    t.after(() => {
      for (const s of [tls, plain]) {
        s.closeAllConnections();
        s.close();
      }
    });
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/a.tar`;
    const checking = new ShardHttp({ inFlight: 2, retries: 3, timeoutMs: 5000 });
    t.after(() => checking.close());
    await assert.rejects(checking.head(url), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.match(e.message, new RegExp(`^shard ${url.replace(/\./g, '\\.')}: self[- ]signed certificate on its HEAD$`));
      return true;
    });
    assert.equal(tlsAsked, 1, 'the refused certificate not tried again');
    tlsAsked = 0;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    t.after(() => delete process.env.NODE_TLS_REJECT_UNAUTHORIZED);
    const client = new ShardHttp({ inFlight: 1, retries: 0, timeoutMs: 5000 });
    t.after(() => client.close());
    assert.deepEqual(await client.head(url), { size: data.length, identity: 'etag "tls-1"' });
    tlsAsked = 0; // undici closes a connection after a HEAD (a server may send a body after one)
    assert.ok((await client.range(url, 1000, 300, 'sample 1', 'etag "tls-1"')).equals(data.subarray(1000, 1300)));
    assert.ok((await client.range(url, 2000, 300, 'sample 2', 'etag "tls-1"')).equals(data.subarray(2000, 2300)));
    const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/a.tar`;
    assert.ok((await client.range(plainUrl, 0, 10, 'sample 0')).equals(data.subarray(0, 10)));
    assert.equal(tlsAsked, 1, 'the two Range requests over one kept-alive TLS connection');
  },
);
