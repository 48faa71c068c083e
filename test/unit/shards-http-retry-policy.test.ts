// The retry policy as RetryAgent asks it (shard-http-retry.ts's retryOrGiveUp), failure by
// failure: every 5xx and each socket error or timeout of the list is tried again (after the
// backoff) until `retries` are spent, then given up as spent with the attempts; a 4xx (429
// included), a 206 whose Content-Length disagrees with its Content-Range, a name that does not
// resolve, a certificate refused, or a method other than GET or HEAD is given up at once. And
// each failure's wording in the messages (saidOf).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dispatcher, RetryHandler } from 'undici';
import { GaveUp, RETRIED_CODES, retryOrGiveUp, saidOf, type Failure } from '../../src/data/shards/shard-http-retry.ts';

const policy = {
  maxRetries: 2,
  minTimeout: 0,
  maxTimeout: 0,
  timeoutFactor: 2,
  methods: ['GET', 'HEAD'] as Dispatcher.HttpMethod[],
  statusCodes: Array.from({ length: 100 }, (_, i) => 500 + i),
  errorCodes: RETRIED_CODES,
};

/** What retryOrGiveUp decides of `err` at attempt `counter`: 'again', or the GaveUp it ends with. */
function decide(err: Failure, counter: number, method: Dispatcher.HttpMethod = 'GET'): Promise<'again' | GaveUp> {
  const opts = { path: '/s.tar', method, retryOptions: policy } as RetryHandler.RetryContext['opts'];
  return new Promise((resolve) => retryOrGiveUp(err, { state: { counter }, opts }, (e) => resolve(e ? (e as GaveUp) : 'again')));
}

/** The socket errors and timeouts the policy names, written out here: one left out of RETRIED_CODES fails the test. */
const RETRIED = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
];

const socketError = (code: string, message = `read ${code}`) => Object.assign(new Error(message), { code });
const status = (statusCode: number, message = 'Request failed') => Object.assign(new Error(message), { code: 'UND_ERR_REQ_RETRY', statusCode, headers: {} });

test('tried again: each 5xx, each socket error and timeout of the list, on GET and HEAD, until the retries are spent', async () => {
  const failures = [...[500, 502, 503, 504, 507, 599].map((c) => status(c)), ...RETRIED.map((c) => socketError(c))];
  for (const err of failures) {
    for (const method of ['GET', 'HEAD'] as const) assert.equal(await decide(err, 1, method), 'again', `${err.message} ${method}`);
    assert.equal(await decide(err, 2), 'again');
    const spent = await decide(err, 3);
    assert.ok(spent instanceof GaveUp);
    assert.deepEqual([spent.last, spent.attempts, spent.spent], [err, 3, true], err.message);
  }
});

test('given up at once: a 4xx, a 2xx or 3xx that ended an attempt, an unknown error, a method other than GET and HEAD', async () => {
  const failures = [
    status(400),
    status(404),
    status(412),
    status(429),
    status(206, 'Content-Length mismatch'),
    status(301),
    socketError('ENOTFOUND', 'getaddrinfo ENOTFOUND shards.example'),
    socketError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
    new Error('no code'),
  ];
  for (const err of failures) {
    const ended = await decide(err, 1);
    assert.ok(ended instanceof GaveUp, err.message);
    assert.deepEqual([ended.last, ended.attempts, ended.spent], [err, 1, false], err.message);
  }
  const put = await decide(status(503), 1, 'PUT');
  assert.ok(put instanceof GaveUp && !put.spent);
});

test('each failure as the messages say it', () => {
  const said = (e: Failure) => saidOf(e, 30_000);
  assert.equal(said(status(503)), 'HTTP 503 Service Unavailable');
  assert.equal(said(status(599)), 'HTTP 599');
  assert.equal(
    said(status(200, 'server does not support the range header and the payload was partially consumed')),
    'HTTP 200 OK: server does not support the range header and the payload was partially consumed',
  );
  assert.equal(said(socketError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error')), 'no connection in 30000 ms');
  assert.equal(said(socketError('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error')), 'no response in 30000 ms');
  assert.equal(said(socketError('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error')), 'no byte of the body in 30000 ms');
  assert.equal(said(socketError('UND_ERR_SOCKET', 'other side closed')), 'the connection was cut (other side closed)');
  assert.equal(said(socketError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:8080')), 'connect ECONNREFUSED 10.0.0.7:8080');
});
