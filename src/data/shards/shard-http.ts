// Shards read over HTTP(S), on undici (Node's own HTTP client; the line Node 20 bundles): one
// client per process or decoding thread, its requests over kept-alive connections (one undici
// Agent for http and https, `inFlight` connections to each origin the bound of requests in flight
// there: the others wait in its queue, their timeouts started only when they are sent). What it asks:
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
// exponential backoff with jitter, at most `retries` times, by undici's RetryAgent (the policy:
// shard-http-retry.ts; a transfer cut mid-body resumes from the byte it reached); then a DataError
// names the URL, what was asked, the last status (or socket error) and the attempts. A 4xx is the
// request's, not the server's: a DataError at once. Such an error of a read is `notSample`
// (decode-thread.ts): the server failed, not the sample, so data.onBadSample: skip never leaves it out.
import { request, type Dispatcher } from 'undici';
import { DataError } from '../../shared/errors.ts';
import type { ShardHttpOptions } from '../../config/types.ts';
import { SHARD_HTTP_DEFAULTS } from '../../config/validate/shard-http.ts';
import { GaveUp, headerOf, retryingAgent, saidOf, statusLine, type Failure } from './shard-http-retry.ts';

/** What a HEAD says of a shard: its size and identity ("etag ..." or "last-modified ...", "" when the server gives neither). */
export interface UrlShardInfo {
  size: number;
  identity: string;
}

/** A DataError of a shard's server or network (not of its bytes): never skipped as a bad sample. */
export class ShardHttpError extends DataError {
  readonly notSample = true;
}

type Answer = Dispatcher.ResponseData;

const HINT_4XX = 'check the URL and that this machine may read it (a presigned URL may have expired: make new ones)';
const HINT_429 = 'the server asks for fewer requests: lower data.<split>.http.inFlight (or the machines reading it), then run again';
const HINT_SERVER =
  'check that the server is up and serves the shard (or raise data.<split>.http.retries / timeoutMs), then run again (--resume keeps the steps trained)';
const HINT_RANGES = 'serve the shards from a server that answers Range requests (nginx, S3, GCS, Azure Blob do)';
const HINT_SHORTER = 'put the shard back as it was (or run again: a shard that changed is indexed again)';

export class ShardHttp {
  private readonly dispatcher: Dispatcher;

  constructor(
    readonly options: ShardHttpOptions = SHARD_HTTP_DEFAULTS,
    readonly inFlight = options.inFlight,
  ) {
    this.dispatcher = retryingAgent(options, inFlight);
  }

  /** The shard's size and identity, and that its server serves ranges. */
  async head(url: string): Promise<UrlShardInfo> {
    const res = await this.send(url, 'HEAD', {}, 'HEAD');
    await res.body.dump();
    if (res.statusCode === 403 || res.statusCode === 405) return this.probe(url, `its HEAD was refused (${statusLine(res.statusCode)})`);
    checkStatus(res, [200], url, 'HEAD');
    const length = headerOf(res.headers, 'content-length');
    if (length === undefined || !Number.isSafeInteger(Number(length))) return this.probe(url, 'its HEAD gave no Content-Length');
    if (!/\bbytes\b/.test(headerOf(res.headers, 'accept-ranges') ?? '')) return this.probe(url, null);
    return { size: Number(length), identity: identityOf(res) };
  }

  /** Byte 0 by a Range request: the size from Content-Range; a server that answers 200 is refused. */
  private async probe(url: string, why: string | null): Promise<UrlShardInfo> {
    const res = await this.send(url, 'GET', { Range: 'bytes=0-0' }, 'GET of byte 0 (Range: bytes=0-0)');
    await res.body.dump();
    if (res.statusCode === 200) throw ignoresRange(url, why);
    checkStatus(res, [206], url, 'GET of byte 0 (Range: bytes=0-0)');
    const range = headerOf(res.headers, 'content-range');
    const total = /^bytes 0-0\/(\d+)$/.exec(range ?? '');
    if (!total)
      throw new ShardHttpError(
        `shard ${url}: the server answered a Range request of byte 0 with Content-Range ${JSON.stringify(range ?? null)}, not "bytes 0-0/<size>"`,
        HINT_RANGES,
      );
    return { size: Number(total[1]), identity: identityOf(res) };
  }

  /** `length` bytes of `url` from byte `offset` (`where`: what they are, for messages: "record 17 (at byte 123)"). */
  async range(url: string, offset: number, length: number, where: string, identity = ''): Promise<Buffer> {
    const last = offset + length - 1;
    const what = `GET of ${where} (bytes ${offset}-${last})`;
    const changed = () =>
      new ShardHttpError(
        `shard ${url} ${where}: the shard changed on the server since it was indexed (HTTP 412: it is no longer ${identity})`,
        'put the shard back as it was, or run again: a changed shard is indexed again (a --resume refuses it unless --allow-changed names it)',
      );
    try {
      const res = await this.send(url, 'GET', { Range: `bytes=${offset}-${last}`, ...conditionOf(identity) }, what);
      refuseRangeAnswer(res, url, where, offset, last, changed);
      const body = await bodyOf(res);
      if (body.length !== length)
        throw new ShardHttpError(
          `shard ${url} ${where}: ${body.length} bytes came for the ${length} of bytes ${offset}-${last}${body.length < length ? ': the shard is shorter than when it was indexed' : ' (the server does not keep to the range asked)'}`,
          body.length < length ? HINT_SHORTER : 'serve the shards from a server that answers Range requests as RFC 9110 says (nginx, S3, GCS, Azure Blob do)',
        );
      return body;
    } catch (err) {
      if (err instanceof GaveUp && err.last.statusCode === 412) throw changed(); // the shard replaced while a cut transfer resumed
      throw this.named(err, url, what);
    }
  }

  /**
   * The whole body of `url`, or the status that says the server has none: 404 alone. Any other
   * 4xx (401, 403, 410, ...) is an error as every request's is, not "no index": a wrong or expired
   * credential is named, never taken for a missing file. The one exception is 401 / 403 on a URL
   * with a query: a presigned URL's signature signs its shard's path, not `<shard>.mgpu-index`.
   */
  async fetchIfThere(url: string, what: string): Promise<{ bytes: Buffer } | { status: string }> {
    try {
      const res = await this.send(url, 'GET', {}, `GET of ${what}`);
      const code = res.statusCode;
      if (code === 404 || ((code === 401 || code === 403) && new URL(url).search !== '')) {
        await res.body.dump();
        return { status: statusLine(code) };
      }
      checkStatus(res, [200], url, `GET of ${what}`);
      return { bytes: await bodyOf(res) };
    } catch (err) {
      throw this.named(err, url, `GET of ${what}`);
    }
  }

  /**
   * `consume`s the body of `url` (its HEAD said `size` bytes) as it comes (a GET of the whole
   * shard); a transfer cut is resumed from the byte it reached (RetryAgent), so `consume` sees
   * each byte once. Errors of `consume` itself (a shard's bytes refused by its scan) pass as they are.
   */
  async stream<T>(url: string, what: string, size: number, consume: (body: AsyncIterable<Uint8Array>) => Promise<T>): Promise<T> {
    const res = await this.send(url, 'GET', {}, `GET of ${what}`);
    try {
      checkStatus(res, [200], url, `GET of ${what}`);
      const length = headerOf(res.headers, 'content-length');
      if (length !== undefined && Number(length) !== size)
        throw new ShardHttpError(
          `shard ${url}: its GET gives ${length} bytes, its HEAD gave ${size}: the shard changed while it was being indexed`,
          'run again once the shard is no longer being written',
        );
      return await consume(this.chunks(res, url, `GET of ${what}`));
    } finally {
      letGo(res);
    }
  }

  /** Ends the kept-alive connections. */
  close(): void {
    this.dispatcher.destroy().catch(() => {}); // nothing is waiting on them
  }

  /** One request (tried again as RetryAgent does); a 4xx or 2xx answer comes back, a failure is thrown. */
  private send(url: string, method: 'GET' | 'HEAD', headers: Record<string, string>, what: string): Promise<Answer> {
    // Lower-case names: RetryAgent resumes a cut transfer by setting `range` and `if-match`, which must replace these, not join them.
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    return request(url, { method, headers: lower, dispatcher: this.dispatcher }).catch((err: unknown) => {
      throw this.named(err, url, what);
    });
  }

  /** The body's chunks; a transfer that fails for good is named. */
  private async *chunks(res: Answer, url: string, what: string): AsyncGenerator<Uint8Array> {
    try {
      for await (const c of res.body) yield c as Buffer;
    } catch (err) {
      throw this.named(err, url, what);
    }
  }

  /** The DataError of a request that failed: the URL, what was asked, the last status or socket error, and the attempts when they were spent. */
  private named(err: unknown, url: string, what: string): Error {
    if (err instanceof DataError) return err;
    const last = (err instanceof GaveUp ? err.last : err) as Failure;
    const said = saidOf(last, this.options.timeoutMs);
    if (err instanceof GaveUp && err.spent)
      return new ShardHttpError(
        `shard ${url}: ${said} on its ${what}, ${err.attempts} attempt${err.attempts === 1 ? '' : 's'} (the last one's answer)`,
        HINT_SERVER,
      );
    if (last.statusCode !== undefined && last.statusCode >= 400 && last.statusCode < 500) return clientSide(url, last.statusCode, what);
    return new ShardHttpError(`shard ${url}: ${said} on its ${what}`, HINT_SERVER);
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
function identityOf(res: Answer): string {
  const etag = headerOf(res.headers, 'etag');
  if (etag) return `etag ${etag}`;
  const modified = headerOf(res.headers, 'last-modified');
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

/** A record's Range request answered other than 206 from its first byte: the error that says why (its body let go). */
function refuseRangeAnswer(res: Answer, url: string, where: string, offset: number, last: number, changed: () => ShardHttpError): void {
  const range = headerOf(res.headers, 'content-range');
  const from = /^bytes (\d+)-/.exec(range ?? '');
  if (res.statusCode === 206 && from && Number(from[1]) === offset) return;
  letGo(res);
  if (res.statusCode === 200) throw ignoresRange(url, null);
  if (res.statusCode === 412) throw changed();
  if (res.statusCode === 416)
    throw new ShardHttpError(
      `shard ${url} ${where}: the server has no bytes ${offset}-${last} (HTTP 416): the shard is shorter than when it was indexed`,
      HINT_SHORTER,
    );
  checkStatus(res, [206], url, `GET of ${where} (bytes ${offset}-${last})`);
  throw new ShardHttpError(
    `shard ${url} ${where}: the server answered bytes=${offset}-${last} with Content-Range ${JSON.stringify(range ?? null)}`,
    HINT_RANGES,
  );
}

/** The answer's status among `ok`, else the DataError that names it (its body let go): a 4xx "not tried again", a 3xx as it is. */
function checkStatus(res: Answer, ok: number[], url: string, what: string): void {
  if (ok.includes(res.statusCode)) return;
  letGo(res);
  if (res.statusCode >= 400 && res.statusCode < 500) throw clientSide(url, res.statusCode, what);
  throw new ShardHttpError(`shard ${url}: ${statusLine(res.statusCode)} on its ${what}`, HINT_SERVER);
}

function clientSide(url: string, code: number, what: string): ShardHttpError {
  return new ShardHttpError(
    `shard ${url}: ${statusLine(code)} on its ${what} (not tried again: a 4xx is the request's, not the server's)`,
    code === 429 ? HINT_429 : HINT_4XX,
  );
}

/** Ends an answer's body not read (or not to the end), closing its connection; undici's abort of it is nobody's error. */
function letGo(res: Answer): void {
  res.body.on('error', () => {});
  res.body.destroy();
}

/** The whole body; a transfer that fails for good is thrown as it came (the caller names it). */
async function bodyOf(res: Answer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
