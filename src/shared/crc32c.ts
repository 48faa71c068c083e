// CRC-32C (Castagnoli), the checksum TensorFlow uses for its TFRecord event files and its
// checkpoints. One implementation for both of mgpu-train's uses: the TensorBoard event file
// (coordinator/tensorboard.ts) and the checksums beside saved models and checkpoints
// (file-integrity.ts), the records of TFRecord shards (both CRCs of each, as it is read) and the
// fingerprints of data files. In the project's C addon (native/src/crc32c.c: the CPU's crc32
// instruction where it has SSE4.2, about 20x the JavaScript) for all but a few bytes, when it is
// built; else slicing-by-8 here (eight bytes per step through eight tables). The same value either
// way (test/unit/crc32c-native-equals-js.test.ts); MGPU_NATIVE_KERNELS=0 turns the addon off.
import { loadAddon } from './native-addon.ts';

const TABLES = (() => {
  const t = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[0]![i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) for (let k = 1; k < 8; k++) t[k]![i] = (t[k - 1]![i]! >>> 8) ^ t[0]![t[k - 1]![i]! & 0xff]!;
  return t;
})();
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];

const NATIVE_FROM = 256; // bytes: below this the call into the addon costs more than the loop
const native = process.env.MGPU_NATIVE_KERNELS === '0' ? null : loadAddon<CrcAddon>('mgpu_crc32c', 'CRC-32C', ['crc32c', 'which']).addon;

interface CrcAddon {
  crc32c(bytes: Uint8Array): number;
  which(): string;
}

/** Which computes the CRC-32C of a large array: "sse4.2" or "table" (the C addon), "js" (no addon). */
export const crc32cKind = (): string => native?.which() ?? 'js';

export function crc32c(bytes: Uint8Array): number {
  return native && bytes.length >= NATIVE_FROM ? native.crc32c(bytes) : crc32cJs(bytes);
}

/** The JavaScript CRC-32C, whatever the addon: the tests' reference for it. */
export function crc32cJs(bytes: Uint8Array): number {
  let c = 0xffffffff;
  let i = 0;
  const n = bytes.length;
  for (; i + 8 <= n; i += 8) {
    const lo = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    c =
      T7[lo & 0xff]! ^
      T6[(lo >>> 8) & 0xff]! ^
      T5[(lo >>> 16) & 0xff]! ^
      T4[lo >>> 24]! ^
      T3[bytes[i + 4]!]! ^
      T2[bytes[i + 5]!]! ^
      T1[bytes[i + 6]!]! ^
      T0[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = T0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
