// The retry policy of the shard HTTP client (shard-http.ts), as undici's RetryAgent runs it over
// one keep-alive Agent: a request that meets a 5xx, a connection reset, refused or cut, or a
// timeout is sent again after an exponential backoff with jitter (or the server's Retry-After,
// capped the same), at most `retries` times; a transfer cut mid-body is resumed from the byte it
// reached (undici's RetryHandler asks for the rest by a Range request, If-Match its strong ETag).
// A 4xx, 429 included, is the request's, not the server's: never tried again (the status is
// passed to the client, which names it at once).
// undici's own retry function is replaced by retryOrGiveUp for what it lacks: jitter (a process's
// decoding threads, and a cluster's processes, would otherwise all try again in step), the
// attempts made, carried by the error that ends a request (its message says them: GaveUp), and no
// retry of an error it does not know (its default retries any error without a code).
// saidOf words a failure as the messages say it ("HTTP 503 Service Unavailable", "connect
// ECONNREFUSED 127.0.0.1:8080", "no response in 30000 ms").
import http from 'node:http';
import { Agent, RetryAgent, type Dispatcher, type RetryHandler } from 'undici';
import type { ShardHttpOptions } from '../../config/types.ts';

/** Every 5xx: the server's failure. */
export const RETRIED_STATUSES = Array.from({ length: 100 }, (_, i) => 500 + i);
/** Socket errors and undici's timeouts that a later attempt may not meet (ENOTFOUND, a TLS certificate refused: it would). */
export const RETRIED_CODES = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET', // the other side closed the connection
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
];
const BACKOFF_MS = 200; // the first wait; times BACKOFF_FACTOR each attempt, at most BACKOFF_MAX_MS, times a jitter in [0.5, 1)
const BACKOFF_FACTOR = 2;
const BACKOFF_MAX_MS = 10_000;

/** An error of undici's: a socket's (code), a timeout's (UND_ERR_*), or a status that ended the attempts (UND_ERR_REQ_RETRY, statusCode). */
export type Failure = Error & { code?: string; statusCode?: number; headers?: Record<string, string | string[] | undefined> };

/** How a request ended that RetryAgent gave up: its last failure, the attempts made, and whether they were all it may make (`spent`). */
export class GaveUp extends Error {
  constructor(
    readonly last: Failure,
    readonly attempts: number,
    readonly spent: boolean,
  ) {
    super(last.message);
  }
}

/**
 * The client's dispatcher: one Agent (keep-alive; at most `inFlight` connections to each origin,
 * one request on each at a time: the requests past them wait in its queue, and their timeouts
 * start when they are sent) behind a RetryAgent of the policy above. http and https alike.
 */
export function retryingAgent(options: ShardHttpOptions, inFlight: number): Dispatcher {
  const agent = new Agent({
    connections: inFlight,
    pipelining: 1,
    connect: { timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  return new RetryAgent(agent, {
    retry: retryOrGiveUp,
    maxRetries: options.retries,
    minTimeout: BACKOFF_MS,
    maxTimeout: BACKOFF_MAX_MS,
    timeoutFactor: BACKOFF_FACTOR,
    methods: ['GET', 'HEAD'],
    statusCodes: RETRIED_STATUSES,
    errorCodes: RETRIED_CODES,
  });
}

/** The options RetryAgent hands its retry function: these of retryingAgent's, with undici's defaults for the rest. */
type Policy = Required<
  Pick<RetryHandler.RetryOptions, 'maxRetries' | 'minTimeout' | 'maxTimeout' | 'timeoutFactor' | 'methods' | 'statusCodes' | 'errorCodes'>
>;

/** RetryAgent's decision after attempt `state.counter` failed with `err`: `next()` after the backoff, or `next(GaveUp)`. */
export function retryOrGiveUp(err: Error, { state, opts }: RetryHandler.RetryContext, next: RetryHandler.OnRetryCallback): void {
  const o = opts.retryOptions as Policy;
  const e = err as Failure;
  const retryable =
    o.methods.includes(opts.method) && (e.code === 'UND_ERR_REQ_RETRY' ? o.statusCodes.includes(e.statusCode ?? 0) : o.errorCodes.includes(e.code ?? ''));
  if (!retryable || state.counter > o.maxRetries) {
    next(new GaveUp(e, state.counter, retryable));
    return;
  }
  setTimeout(() => next(null), backoffMs(state.counter, headerOf(e.headers, 'retry-after'), o));
}

/** The wait before attempt `attempt` + 1: the server's Retry-After (seconds or a date) when it gives one, else the backoff with jitter; at most maxTimeout. */
export function backoffMs(
  attempt: number,
  retryAfter: string | undefined,
  o: Pick<Policy, 'minTimeout' | 'maxTimeout' | 'timeoutFactor'>,
  random = Math.random(),
): number {
  const said = retryAfter === undefined ? NaN : /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - Date.now();
  if (said > 0) return Math.min(said, o.maxTimeout);
  return Math.min(o.maxTimeout, o.minTimeout * o.timeoutFactor ** (attempt - 1)) * (0.5 + random / 2);
}

/** A failure as the messages say it. */
export function saidOf(err: Failure, timeoutMs: number): string {
  switch (err.code) {
    case 'UND_ERR_REQ_RETRY': // a status that ended the attempts, or an answer that cannot resume a cut transfer
      return err.message === 'Request failed' ? statusLine(err.statusCode ?? 0) : `${statusLine(err.statusCode ?? 0)}: ${err.message}`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection in ${timeoutMs} ms`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no response in ${timeoutMs} ms`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `no byte of the body in ${timeoutMs} ms`;
    case 'UND_ERR_SOCKET':
      return `the connection was cut (${err.message})`;
    default:
      return err.message; // "connect ECONNREFUSED 127.0.0.1:8080", "read ECONNRESET", "getaddrinfo ENOTFOUND shards.example"
  }
}

/** "HTTP 503 Service Unavailable" (undici keeps no reason phrase: the standard one). */
export function statusLine(code: number): string {
  const phrase = http.STATUS_CODES[code];
  return `HTTP ${code}${phrase ? ` ${phrase}` : ''}`;
}

/** A header's value (the first, when it came more than once). */
export function headerOf(headers: Record<string, string | string[] | undefined> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}
