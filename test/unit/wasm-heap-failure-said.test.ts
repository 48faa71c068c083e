// A wasm step that needs more than the 4 GB heap one wasm process addresses is said as that, with
// the samples computed at once and training.accumulateSteps as the fix; a trap on a small heap is
// not blamed on memory; any other error is left as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapFailure } from '../../src/worker/wasm-heap-failure.ts';

const RuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly.RuntimeError;
const GB = 1024 ** 3;
const shard = { samples: 64, micro: 2 };

test('a tensor whose view does not fit the heap: out of memory, with its size and the rows at once', () => {
  const said = heapFailure(new RangeError('Invalid typed array length: 1073741824'), 0.1 * GB, shard);
  assert.ok(said);
  assert.match(
    said.message,
    /^the wasm backend ran out of memory \(one wasm process addresses 4 GB at most\): a tensor of 4\.0 GB does not fit beside the 0\.1 GB in use, computing 32 samples at once \(a shard of 64 in 2 micro-batches\)/,
  );
  assert.match(said.hint, /training\.accumulateSteps/);
});

test('a trap with a large heap: most likely an allocation that did not fit', () => {
  const said = heapFailure(new RuntimeError('memory access out of bounds'), 2.6 * GB, null);
  assert.ok(said);
  assert.equal(
    said.message,
    'the wasm backend stopped with its heap at 2.6 GB: most likely an allocation that did not fit in the 4 GB one wasm process addresses (memory access out of bounds)',
  );
});

test('"Aborted(). Build with -sASSERTIONS ..." is said without the build advice', () => {
  const said = heapFailure(new RuntimeError('Aborted(). Build with -sASSERTIONS for more info.'), 3.9 * GB, shard);
  assert.match(said!.message, /\(Aborted\(\)\)$/);
});

test('a trap with a small heap is not blamed on memory', () => {
  const said = heapFailure(new RuntimeError('table index is out of bounds'), 0.2 * GB, shard);
  assert.match(said!.message, /^the wasm backend failed \(table index is out of bounds\) with its heap at 0\.2 GB, far from its 4 GB/);
  assert.match(said!.hint, /not the heap running out/);
});

test('other errors are left as they are', () => {
  assert.equal(heapFailure(new Error('memory access out of bounds'), 3 * GB, shard), null);
  assert.equal(heapFailure(new RangeError('Invalid array length'), 3 * GB, shard), null);
  assert.equal(heapFailure(new TypeError('x is not a function'), 3 * GB, shard), null);
});
