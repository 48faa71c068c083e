// A real HTTP server on 127.0.0.1 (a free port) serving a folder of shards, for the tests of shards
// read over HTTP: nginx from Debian (/usr/sbin/nginx, started in the foreground on a config
// written to a temp folder: its pid, logs and temp paths there; it serves Range requests, ETag
// and Last-Modified out of the box), or, where nginx is missing or a test needs a server that
// misbehaves on cue, Node's own http server with Range support (ETag, Last-Modified,
// Accept-Ranges, HEAD, 206 with Content-Range, 416, If-Match and If-Unmodified-Since: 412). `which` says which one runs (tests print it
// with t.diagnostic), and `stop` ends it (tests call it in t.after, so it ends when they fail).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from './temp-dir.ts';

export const NGINX = '/usr/sbin/nginx';

export interface ShardServer {
  which: 'nginx' | 'node';
  url: string; // http://127.0.0.1:<port>, no trailing slash
  port: number;
  dir: string | null; // nginx's folder (its access.log), null for the Node server
  /** The requests the Node server was sent, in order ("GET /train-00000 bytes=0-99", "HEAD /x"); nginx's are in dir/access.log. */
  log: string[];
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
}

/** What a Node server does with a request before it serves it: a status to answer instead (503, 404, ...), or null to serve it. */
export type Misbehave = (req: http.IncomingMessage, n: number) => number | null;

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * nginx serving `dir` when it is installed (and `node` is not asked for), else the Node server.
 * MGPU_TEST_SHARD_SERVER=node runs the Node server where nginx would (to test the fallback).
 */
export async function serveShards(dir: string, o: { node?: boolean; misbehave?: Misbehave } = {}): Promise<ShardServer> {
  const nginx = !o.node && !o.misbehave && process.env.MGPU_TEST_SHARD_SERVER !== 'node' && fs.existsSync(NGINX);
  return nginx ? nginxServer(dir) : nodeServer(dir, o.misbehave ?? null);
}

async function waitForPort(port: number, alive: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (!alive() || Date.now() > until) throw new Error(`${what} did not start listening on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function nginxServer(dir: string): Promise<ShardServer> {
  const tmp = tempDir('nginx');
  const port = await freePort();
  const conf = path.join(tmp, 'nginx.conf');
  fs.writeFileSync(
    conf,
    [
      'daemon off;',
      'master_process off;',
      'worker_processes 1;',
      `pid ${tmp}/nginx.pid;`,
      `error_log ${tmp}/error.log warn;`,
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${tmp}/access.log;`,
      `  client_body_temp_path ${tmp}/body; proxy_temp_path ${tmp}/proxy; fastcgi_temp_path ${tmp}/fastcgi;`,
      `  uwsgi_temp_path ${tmp}/uwsgi; scgi_temp_path ${tmp}/scgi;`,
      '  default_type application/octet-stream;',
      '  keepalive_requests 100000;',
      `  server { listen 127.0.0.1:${port}; root ${path.resolve(dir)}; location / { } }`,
      '}',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const log: string[] = [];
  const server: ShardServer = {
    which: 'nginx',
    url: `http://127.0.0.1:${port}`,
    port,
    dir: tmp,
    log,
    async start() {
      const c = spawn(NGINX, ['-e', `${tmp}/error.log`, '-p', tmp, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = c;
      let err = '';
      c.stderr.on('data', (b: Buffer) => (err += b.toString()));
      await waitForPort(port, () => c.exitCode === null && c.signalCode === null, `nginx (${err.trim()})`);
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await gone;
    },
  };
  await server.start();
  return server;
}

async function nodeServer(dir: string, misbehave: Misbehave | null): Promise<ShardServer> {
  const port = await freePort();
  const log: string[] = [];
  let n = 0;
  let s: http.Server | null = null;
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    log.push(`${req.method} ${req.url}${req.headers.range ? ` ${req.headers.range}` : ''}`);
    const instead = misbehave?.(req, n++) ?? null;
    if (instead !== null) {
      res.writeHead(instead, { 'Content-Length': 0 });
      res.end();
      return;
    }
    const file = path.join(dir, decodeURIComponent(new URL(req.url!, 'http://x').pathname));
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
      if (!st.isFile()) throw new Error('not a file');
    } catch {
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    const headers = {
      ETag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
      'Last-Modified': st.mtime.toUTCString(),
      'Accept-Ranges': 'bytes',
    };
    // The preconditions, as nginx checks them: another ETag, or a change after the date, is a 412.
    const ifMatch = req.headers['if-match'];
    const ifUnmodified = req.headers['if-unmodified-since'];
    if ((ifMatch && ifMatch !== headers.ETag) || (ifUnmodified && Math.floor(st.mtimeMs / 1000) > Date.parse(ifUnmodified) / 1000)) {
      res.writeHead(412, { 'Content-Length': 0 });
      res.end();
      return;
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (req.headers.range && range) {
      const from = Number(range[1]);
      const to = Math.min(range[2] ? Number(range[2]) : st.size - 1, st.size - 1);
      if (from >= st.size) {
        res.writeHead(416, { ...headers, 'Content-Range': `bytes */${st.size}`, 'Content-Length': 0 });
        res.end();
        return;
      }
      res.writeHead(206, { ...headers, 'Content-Range': `bytes ${from}-${to}/${st.size}`, 'Content-Length': to - from + 1 });
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file, { start: from, end: to }).pipe(res);
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': st.size });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
  };
  const server: ShardServer = {
    which: 'node',
    url: `http://127.0.0.1:${port}`,
    port,
    dir: null,
    log,
    async start() {
      const one = http.createServer(handle);
      s = one;
      await new Promise<void>((resolve, reject) => {
        one.once('error', reject);
        one.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async stop() {
      const one = s;
      s = null;
      if (!one) return;
      one.closeAllConnections();
      await new Promise((r) => one.close(r));
    },
  };
  await server.start();
  return server;
}
