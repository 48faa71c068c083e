// Why the plain baseline was not timed, said so that a user can act on it: the wasm heap running
// out (a bare "Aborted()" trap, or a tensor too long for the heap) is said as memory, with what
// the benchmark's flags can change; a process killed by a signal is said as killed; any other
// error keeps its own message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainFailure, plainEnded } from '../../src/benchmark/plain-failure.ts';

const RuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly.RuntimeError;
const GB = 1024 ** 3;

test('"Aborted()" on a nearly full wasm heap: memory, with --batch and --backend as the ways out', () => {
  const said = plainFailure(new RuntimeError('Aborted(). Build with -sASSERTIONS for more info.'), 3.9 * GB, 32);
  assert.equal(
    said,
    'the wasm backend stopped with its heap at 3.9 GB: most likely an allocation that did not fit in the 4 GB one wasm process addresses (Aborted()); ' +
      'the baseline computes one batch of 32 samples at once in one process: time it with a smaller --batch, or on another --backend (tfjs-node or cpu, whose memory is not capped at 4 GB); the workers are timed without it',
  );
});

test('a tensor too long for the heap: memory too', () => {
  const said = plainFailure(new RangeError('Invalid typed array length: 1073741824'), 0.5 * GB, 256);
  assert.match(
    said,
    /^the wasm backend ran out of memory \(one wasm process addresses 4 GB at most\): a tensor of 4\.0 GB does not fit beside the 0\.5 GB in use/,
  );
  assert.match(said, /one batch of 256 samples at once in one process: time it with a smaller --batch/);
});

test('a trap far from the limit is not blamed on memory; other errors and backends keep their message', () => {
  assert.match(
    plainFailure(new RuntimeError('unreachable'), 0.1 * GB, 32),
    /^the wasm backend failed \(unreachable\) with its heap at 0\.1 GB, far from its 4 GB; this is not the heap running out/,
  );
  assert.equal(plainFailure(new RuntimeError('Aborted()'), null, 32), 'plain tfjs failed: Aborted()');
  assert.equal(plainFailure(new Error('no such kernel'), 3.9 * GB, 32), 'plain tfjs failed: no such kernel');
});

test('the process ended without a word: killed by a signal, or its exit and last lines of stderr', () => {
  assert.equal(
    plainEnded(null, 'SIGKILL', ''),
    'the plain tfjs process was killed (SIGKILL) before it gave figures: most likely out of memory (the kernel kills the largest process); time it with a smaller --batch',
  );
  assert.equal(plainEnded(null, 'SIGTERM', ''), 'the plain tfjs process was stopped by SIGTERM before it gave figures');
  assert.equal(plainEnded(134, null, 'a\nb\nc\nd\n'), 'the plain tfjs process ended (exit 134) without figures: b / c / d');
});
