import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DataError } from '../../src/shared/errors.ts';
import { encodeNpy, parseNpy, type NdArray } from '../../src/shared/npy.ts';
import { mulberry32 } from '../../src/shared/rng.ts';

const TYPED = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array };

/** parseNpy must return a self-consistent array or throw a DataError, never anything else. */
function check(bytes: Uint8Array, what: string): 'ok' | 'rejected' {
  let arr: NdArray;
  try {
    arr = parseNpy(bytes, 'fuzz.npy');
  } catch (err) {
    if (err instanceof DataError && err.message.startsWith('fuzz.npy: ')) return 'rejected';
    assert.fail(`${what}: threw ${err instanceof Error ? err.stack : String(err)}`);
  }
  assert.ok(arr.data instanceof TYPED[arr.dtype], `${what}: data type matches dtype`);
  assert.ok(
    arr.shape.every((d) => Number.isSafeInteger(d) && d >= 0),
    `${what}: shape [${arr.shape}]`,
  );
  assert.equal(
    arr.data.length,
    arr.shape.reduce((a, b) => a * b, 1),
    `${what}: data length matches shape`,
  );
  return 'ok';
}

const rng = mulberry32(0x5eed);
const randomBytes = (n: number) => Uint8Array.from({ length: n }, () => rng.below(256));

test('npy parser survives random bytes, truncations and bit flips (seeded)', () => {
  const valid = [
    encodeNpy({ dtype: 'float32', shape: [3, 4], data: new Float32Array(12).fill(1.5) }),
    encodeNpy({ dtype: 'int32', shape: [5], data: Int32Array.of(1, 2, 3, 4, 5) }),
    encodeNpy({ dtype: 'uint8', shape: [], data: Uint8Array.of(7) }),
    encodeNpy({ dtype: 'uint8', shape: [0, 2], data: new Uint8Array(0) }),
  ];
  const counts = { ok: 0, rejected: 0 };

  for (let i = 0; i < 2000; i++) {
    const bytes = randomBytes(rng.below(300));
    if (i % 2 === 0 && bytes.length >= 10) bytes.set(valid[0]!.subarray(0, 8)); // get past the magic
    counts[check(bytes, `random #${i}`)]++;
  }
  for (let i = 0; i < 2000; i++) {
    const base = valid[i % valid.length]!;
    counts[check(base.subarray(0, rng.below(base.length)), `truncation #${i}`)]++;
  }
  for (let i = 0; i < 3000; i++) {
    const bytes = valid[i % valid.length]!.slice();
    for (let f = 1 + rng.below(3); f > 0; f--) bytes[rng.below(bytes.length)]! ^= 1 << rng.below(8);
    counts[check(bytes, `bit flip #${i}`)]++;
  }
  // Both outcomes must be exercised: flips in the data leave a valid file, most others do not.
  assert.ok(counts.ok > 100 && counts.rejected > 3000, JSON.stringify(counts));
});
