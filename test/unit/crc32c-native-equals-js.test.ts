// CRC-32C: the C addon (the CPU's crc32 instruction, and slicing-by-8 in C) and the JavaScript give
// the values of RFC 3720's test vectors and of the classic "123456789", and the same value as each
// other on arrays of every length up to 600 bytes and at odd byte offsets (a Buffer's slice); the
// exported crc32c takes the addon from 256 bytes. Skipped where the addon is not built (failing
// under MGPU_REQUIRE_NATIVE=1).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { crc32c, crc32cJs, crc32cKind } from '../../src/shared/crc32c.ts';
import { addonFiles } from '../../src/shared/native-addon.ts';
import { nativeSkip } from '../helpers/native.ts';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const file = addonFiles('mgpu_crc32c')
  .map((f) => path.join(root, f))
  .find((f) => fs.existsSync(f));
const skip = nativeSkip(file ? false : 'the CRC-32C addon is not built');
type Crc = (b: Uint8Array) => number;
const addon = file ? (createRequire(import.meta.url)(file) as { crc32c: Crc; crc32cTable: Crc; which(): string }) : null;

const vectors: Array<[string, Uint8Array, number]> = [
  ['"123456789"', new TextEncoder().encode('123456789'), 0xe3069283],
  ['32 zeros', new Uint8Array(32), 0x8a9136aa],
  ['32 x 0xff', new Uint8Array(32).fill(0xff), 0x62a8ab43],
  ['0..31', Uint8Array.from({ length: 32 }, (_, i) => i), 0x46dd794e],
  ['31..0', Uint8Array.from({ length: 32 }, (_, i) => 31 - i), 0x113fdb5c],
  ['empty', new Uint8Array(0), 0],
];

test('the known values, in JavaScript and in C', { skip }, () => {
  for (const [what, bytes, want] of vectors) {
    assert.equal(crc32cJs(bytes), want, `JavaScript, ${what}`);
    assert.equal(addon!.crc32c(bytes), want, `C (${addon!.which()}), ${what}`);
    assert.equal(addon!.crc32cTable(bytes), want, `C (table), ${what}`);
  }
});

test('C and JavaScript agree on every length to 600 and at odd offsets', { skip }, () => {
  const big = Buffer.alloc(700);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  for (let n = 0; n <= 600; n++)
    for (const at of [0, 1, 3, 7]) {
      const bytes = big.subarray(at, at + n);
      assert.equal(addon!.crc32c(bytes), crc32cJs(bytes), `${n} bytes at ${at}`);
      assert.equal(addon!.crc32cTable(bytes), crc32cJs(bytes), `${n} bytes at ${at} (table)`);
    }
});

test('crc32c takes the addon for large arrays and says which ran', { skip }, () => {
  assert.match(crc32cKind(), /^(sse4\.2|table)$/);
  const bytes = new Uint8Array(100_000).map((_, i) => i % 251);
  assert.equal(crc32c(bytes), crc32cJs(bytes));
  assert.throws(() => addon!.crc32c(new Float32Array(4) as unknown as Uint8Array), /crc32c: bytes must be a Uint8Array/);
});
