// Shards read over HTTP(S): one client per process or decoding thread, its requests over
// kept-alive connections (one http.Agent and one https.Agent, keepAlive, maxSockets the bound of
// requests in flight, and a queue in front of them so a request's timeout starts when it is
// sent). What it asks:
// - HEAD of a shard: its size (Content-Length) and identity (ETag, else Last-Modified), in place
//   of a local file's size and mtime; a server that does not say it serves ranges (Accept-Ranges)
//   is asked for byte 0 with a Range request and refused unless it answers 206. A HEAD refused
//   with 403 or 405 (a presigned URL is signed for GET alone) is replaced by that ranged GET.
// - GET with `Range: bytes=a-b` of a record (206 Partial Content, its Content-Range from a, its
//   body exactly b - a + 1 bytes); a 200 (the server ignores Range) is refused, never read whole.
//   It asks for the version indexed: `If-Match` with the shard's strong ETag (a weak one never
//   matches), else `If-Unmodified-Since` with its Last-Modified; a 412 (the shard was replaced on
//   the server since) is a DataError saying so, instead of records read from another file.
// - GET of a whole body: `<shard>.mgpu-index` beside it (a 404 says there is none; any other 4xx
//   is an error), and the shard itself streamed through the index scan (scan-reads.ts) when no
//   index is kept.
// Each request is tried again on a 5xx, a connection reset, refused or cut, or a timeout, after an
// exponential backoff with jitter, at most `retries` times; then a DataError names the URL, what
// was asked, the last status (or socket error) and the attempts. A 4xx is the request's, not the
// server's: a DataError at once. Such an error of a read is `notSample` (decode-thread.ts): the
// server failed, not the sample, so data.onBadSample: skip never leaves it out.
import http from 'node:http';
import https from 'node:https';
import { DataError } from '../../shared/errors.ts';
import type { ShardHttpOptions } from '../../shared/config/types.ts';
import { SHARD_HTTP_DEFAULTS } from '../../shared/config/validate/shard-http.ts';

/** What a HEAD says of a shard: its size and identity ("etag ..." or "last-modified ...", "" when the server gives neither). */
export interface UrlShardInfo {
  size: number;
  identity: string;
}

/** A failure of the server or the network: tried again, then a DataError (HttpFailure.final). */
class HttpFailure extends Error {
  constructor(
    readonly said: string, // "HTTP 503 Service Unavailable", "connect ECONNREFUSED 127.0.0.1:8080", "no response in 30000 ms"
    readonly retry: boolean,
    readonly clientSide = false, // a 4xx: the request's fault, not the server's
  ) {
    super(said);
  }
}

/** A DataError of a shard's server or network (not of its bytes): never skipped as a bad sample. */
export class ShardHttpError extends DataError {
  readonly notSample = true;
}

const RETRIED_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const BACKOFF_MS = 200; // the first wait; doubled each attempt, at most BACKOFF_MAX_MS, times a jitter in [0.5, 1)
const BACKOFF_MAX_MS = 10_000;
const HINT_4XX = 'check the URL and that this machine may read it (a presigned URL may have expired: make new ones)';
const HINT_SERVER =
  'check that the server is up and serves the shard (or raise data.<split>.http.retries / timeoutMs), then run again (--resume keeps the steps trained)';

const statusText = (res: http.IncomingMessage) => `HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;

export class ShardHttp {
  private readonly agents: { http: http.Agent; https: https.Agent };
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly options: ShardHttpOptions = SHARD_HTTP_DEFAULTS,
    readonly inFlight = options.inFlight,
  ) {
    const o = { keepAlive: true, maxSockets: inFlight };
    this.agents = { http: new http.Agent(o), https: new https.Agent(o) };
  }

  /** The shard's size and identity, and that its server serves ranges. */
  async head(url: string): Promise<UrlShardInfo> {
    const res = await this.request(url, 'HEAD', {}, 'HEAD', [200], { pass4xx: [403, 405] });
    res.resume();
    if (res.statusCode === 403 || res.statusCode === 405) return this.probe(url, `its HEAD was refused (${statusText(res)})`);
    const length = Number(res.headers['content-length']);
    if (!Number.isSafeInteger(length) || res.headers['content-length'] === undefined) return this.probe(url, 'its HEAD gave no Content-Length');
    if (!/\bbytes\b/.test(res.headers['accept-ranges'] ?? '')) return this.probe(url, null);
    return { size: length, identity: identityOf(res) };
  }

  /** Byte 0 by a Range request: the size from Content-Range; a server that answers 200 is refused. */
  private async probe(url: string, why: string | null): Promise<UrlShardInfo> {
    const res = await this.request(url, 'GET', { Range: 'bytes=0-0' }, 'GET of byte 0 (Range: bytes=0-0)', [200, 206]);
    res.resume();
    if (res.statusCode === 200) throw ignoresRange(url, why);
    const total = /^bytes 0-0\/(\d+)$/.exec(res.headers['content-range'] ?? '');
    if (!total)
      throw new ShardHttpError(
        `shard ${url}: the server answered a Range request of byte 0 with Content-Range ${JSON.stringify(res.headers['content-range'] ?? null)}, not "bytes 0-0/<size>"`,
        'serve the shards from a server that answers Range requests (nginx, S3, GCS, Azure Blob do)',
      );
    return { size: Number(total[1]), identity: identityOf(res) };
  }

  /** `length` bytes of `url` from byte `offset` (`where`: what they are, for messages: "record 17 (at byte 123)"). */
  async range(url: string, offset: number, length: number, where: string, identity = ''): Promise<Buffer> {
    const last = offset + length - 1;
    return this.attempts(url, `GET of ${where} (bytes ${offset}-${last})`, async () => {
      const res = await this.send(url, 'GET', { Range: `bytes=${offset}-${last}`, ...conditionOf(identity) });
      if (res.statusCode === 200) {
        res.destroy();
        throw ignoresRange(url, null);
      }
      if (res.statusCode === 412) {
        res.resume();
        throw new ShardHttpError(
          `shard ${url} ${where}: the shard changed on the server since it was indexed (HTTP 412: it is no longer ${identity})`,
          'put the shard back as it was, or run again: a changed shard is indexed again (a --resume refuses it unless --allow-changed names it)',
        );
      }
      if (res.statusCode === 416) {
        res.resume();
        throw new ShardHttpError(
          `shard ${url} ${where}: the server has no bytes ${offset}-${last} (HTTP 416): the shard is shorter than when it was indexed`,
          'put the shard back as it was (or run again: a shard that changed is indexed again)',
        );
      }
      checkStatus(res, [206]);
      const from = /^bytes (\d+)-/.exec(res.headers['content-range'] ?? '');
      if (!from || Number(from[1]) !== offset) {
        res.destroy();
        throw new ShardHttpError(
          `shard ${url} ${where}: the server answered bytes=${offset}-${last} with Content-Range ${JSON.stringify(res.headers['content-range'] ?? null)}`,
          'serve the shards from a server that answers Range requests (nginx, S3, GCS, Azure Blob do)',
        );
      }
      const body = await bodyOf(res);
      if (body.length !== length)
        throw new ShardHttpError(
          `shard ${url} ${where}: ${body.length} bytes came for the ${length} of bytes ${offset}-${last}${body.length < length ? ': the shard is shorter than when it was indexed' : ' (the server does not keep to the range asked)'}`,
          body.length < length
            ? 'put the shard back as it was (or run again: a shard that changed is indexed again)'
            : 'serve the shards from a server that answers Range requests as RFC 9110 says (nginx, S3, GCS, Azure Blob do)',
        );
      return body;
    });
  }

  /**
   * The whole body of `url`, or the status that says the server has none: 404 alone. Any other
   * 4xx (401, 403, 410, ...) is an error as every request's is, not "no index": a wrong or expired
   * credential is named, never taken for a missing file. The one exception is 401 / 403 on a URL
   * with a query: a presigned URL's signature signs its shard's path, not `<shard>.mgpu-index`.
   */
  async fetchIfThere(url: string, what: string): Promise<{ bytes: Buffer } | { status: string }> {
    return this.attempts(url, `GET of ${what}`, async () => {
      const res = await this.send(url, 'GET', {});
      const code = res.statusCode ?? 0;
      if (code === 404 || ((code === 401 || code === 403) && new URL(url).search !== '')) {
        res.resume();
        return { status: statusText(res) };
      }
      checkStatus(res, [200]);
      return { bytes: await bodyOf(res) };
    });
  }

  /** `consume`s the body of `url` (its HEAD said `size` bytes) as it comes (a GET of the whole shard); tried again from the start when the transfer fails. */
  async stream<T>(url: string, what: string, size: number, consume: (body: AsyncIterable<Uint8Array>) => Promise<T>): Promise<T> {
    return this.attempts(url, `GET of ${what}`, async () => {
      const res = await this.send(url, 'GET', {});
      checkStatus(res, [200]);
      const length = res.headers['content-length'];
      if (length !== undefined && Number(length) !== size) {
        res.destroy();
        throw new ShardHttpError(
          `shard ${url}: its GET gives ${length} bytes, its HEAD gave ${size}: the shard changed while it was being indexed`,
          'run again once the shard is no longer being written',
        );
      }
      try {
        return await consume(failing(res));
      } finally {
        res.destroy();
      }
    });
  }

  /** Ends the kept-alive connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** One request that must answer one of `ok` (or a 4xx of `pass4xx`), tried as `attempts` does. */
  private request(url: string, method: string, headers: Record<string, string>, what: string, ok: number[], o: { pass4xx?: number[] } = {}) {
    return this.attempts(url, what, async () => {
      const res = await this.send(url, method, headers);
      if (o.pass4xx?.includes(res.statusCode ?? 0)) return res;
      checkStatus(res, ok);
      return res;
    });
  }

  /** `once` tried again after each HttpFailure that may pass, with backoff; the last one a ShardHttpError. */
  private async attempts<T>(url: string, what: string, once: () => Promise<T>): Promise<T> {
    const most = this.options.retries + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await once();
      } catch (err) {
        if (!(err instanceof HttpFailure)) throw err;
        if (!err.retry)
          throw err.clientSide
            ? new ShardHttpError(`shard ${url}: ${err.said} on its ${what} (not tried again: a 4xx is the request's, not the server's)`, HINT_4XX)
            : new ShardHttpError(`shard ${url}: ${err.said} on its ${what}`, HINT_SERVER);
        if (attempt >= most)
          throw new ShardHttpError(`shard ${url}: ${err.said} on its ${what}, ${most} attempt${most === 1 ? '' : 's'} (the last one's answer)`, HINT_SERVER);
        const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MS * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /** One request, once a place in flight is free; its socket errors and timeout as HttpFailures. */
  private async send(url: string, method: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
    await this.slot();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
    try {
      const u = new URL(url);
      const lib = u.protocol === 'https:' ? https : http;
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = lib.request(u, { method, headers, agent: u.protocol === 'https:' ? this.agents.https : this.agents.http });
        req.setTimeout(this.options.timeoutMs, () => req.destroy(new HttpFailure(`no response in ${this.options.timeoutMs} ms`, true)));
        req.on('error', (err) => reject(asFailure(err)));
        req.on('response', resolve);
        req.end();
      });
      res.once('close', release);
      res.once('error', release);
      return res;
    } catch (err) {
      release();
      throw err;
    }
  }

  private async slot(): Promise<void> {
    if (this.active < this.inFlight) {
      this.active++;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
  }
}

/**
 * `work` on each of `items` through one client, `options.inFlight` at a time, in their order
 * (the results in it too); the client is closed after, whatever happened.
 */
export async function eachInFlight<T, R>(items: readonly T[], options: ShardHttpOptions, work: (item: T, client: ShardHttp) => Promise<R>): Promise<R[]> {
  const client = new ShardHttp(options);
  try {
    const out = new Array<R>(items.length);
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const k = next++;
        out[k] = await work(items[k]!, client);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.inFlight, items.length) }, lane));
    return out;
  } finally {
    client.close();
  }
}

/** "etag <value>" or "last-modified <date>": what says a URL's shard is the one indexed. */
function identityOf(res: http.IncomingMessage): string {
  const etag = res.headers.etag;
  if (etag) return `etag ${etag}`;
  const modified = res.headers['last-modified'];
  return modified ? `last-modified ${modified}` : '';
}

/** The header asking for the version of a shard that was indexed: none for a weak ETag (If-Match compares strongly) or no identity. */
export function conditionOf(identity: string): Record<string, string> {
  if (identity.startsWith('etag "')) return { 'If-Match': identity.slice('etag '.length) };
  if (identity.startsWith('last-modified ')) return { 'If-Unmodified-Since': identity.slice('last-modified '.length) };
  return {};
}

function ignoresRange(url: string, why: string | null): ShardHttpError {
  return new ShardHttpError(
    `shard ${url}: the server ignores Range requests (it answered one with 200 and the whole shard${why ? `; ${why}` : ''}): each record would cost a download of the shard`,
    'serve the shards from a server that answers Range requests with 206 Partial Content (nginx, S3, GCS, Azure Blob do), or copy them to a local folder',
  );
}

/** The response's status among `ok`, else an HttpFailure (a 5xx tried again; anything else not). */
function checkStatus(res: http.IncomingMessage, ok: number[]): void {
  const code = res.statusCode ?? 0;
  if (ok.includes(code)) return;
  res.resume();
  throw new HttpFailure(statusText(res), code >= 500, code >= 400 && code < 500);
}

function asFailure(err: unknown): Error {
  if (err instanceof HttpFailure) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code && RETRIED_CODES.has(e.code)) return new HttpFailure(e.message, true);
  if (e.message === 'aborted' || e.code === 'ECONNRESET') return new HttpFailure('the connection was cut', true);
  return new HttpFailure(e.message, false); // a name that does not resolve (ENOTFOUND), a TLS certificate refused, ...
}

/** The whole body; a transfer cut short is an HttpFailure (tried again). */
async function bodyOf(res: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of res) chunks.push(c as Buffer);
  } catch (err) {
    throw asFailure(err);
  }
  if (!res.complete) throw new HttpFailure('the connection was cut before the body ended', true);
  return Buffer.concat(chunks);
}

/** The body's chunks, a transfer cut short (or silent for the request's timeout) an HttpFailure. */
async function* failing(res: http.IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const c of res) yield c as Buffer;
  } catch (err) {
    throw asFailure(err);
  }
  if (!res.complete) throw new HttpFailure('the connection was cut before the body ended', true);
}
