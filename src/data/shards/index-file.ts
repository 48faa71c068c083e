// The binary form of a shard's record index: a 48-byte header, then the keys it was checked for
// (UTF-8), then three typed arrays of `count` entries: each record's byte offset (float64, exact
// below 2^53), its data length (uint32) and its label (int32, 0 when no label key was asked for).
// 16 bytes a record: a million records are 16 MB, read at once into three arrays, no object per
// record. The header keeps the shard's size, mtime and the CRC-32C of its first and last 64 KiB
// (file-fingerprint.ts: a changed shard is a stale index, whatever its mtime says, and a copy of
// the index beside a copy of the shard, e.g. uploaded beside it on a server, is checked against
// the bytes it describes), a version (an index of another layout is rebuilt, never misread), and
// the CRC-32C of the index itself (its own field read as 0): an index edited by hand or damaged
// is rebuilt, never read for its labels.
import { crc32c } from '../../shared/crc32c.ts';
import { FINGERPRINT_END_BYTES } from '../file-fingerprint.ts';

export const INDEX_MAGIC = 'MGTFRIDX';
export const INDEX_VERSION = 2;
// magic 8, version u32, count u32, shard size f64, shard mtimeMs f64, keys length u32, unknown u32, shard ends' CRC u32, index CRC u32
const HEADER = 48;
const INDEX_CRC_AT = 44;

/** A shard's records: offsets[i] is where record i's 12-byte header starts, lengths[i] its data bytes. */
export interface RecordIndex {
  count: number;
  offsets: Float64Array;
  lengths: Uint32Array;
  labels: Int32Array;
  unknown?: number; // members passed over (a tar shard's of unknown extensions)
  fingerprint?: number; // the CRC-32C of the shard's ends it was built from (file-fingerprint.ts's endsCrc)
}

/**
 * What an index was built from: the shard's size and mtime, and the feature keys each record was
 * checked for. A URL's shard has no mtime: its `identity` (the ETag or Last-Modified its HEAD
 * gave) is kept in the mtime's place as a number made from it (identityNumber), and `mtimeMs: null`
 * checks the size, keys and fingerprint alone (an index fetched from beside the shard was written
 * where the shard was local, with that file's mtime).
 */
export interface IndexStamp {
  size: number;
  mtimeMs: number | null;
  keys: string;
  identity?: string; // a URL's: what its mtime number stands for, for messages
  fingerprint: number | null; // the CRC-32C of the shard's ends now (null: not checked here; the caller compares the index's)
}

const pad8 = (n: number) => (n + 7) & ~7;

export function encodeIndex(index: RecordIndex, stamp: IndexStamp): Uint8Array {
  const keys = new TextEncoder().encode(stamp.keys);
  const n = index.count;
  const at = HEADER + pad8(keys.length);
  const out = new Uint8Array(at + n * 16);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode(INDEX_MAGIC), 0);
  v.setUint32(8, INDEX_VERSION, true);
  v.setUint32(12, n, true);
  v.setFloat64(16, stamp.size, true);
  v.setFloat64(24, stamp.mtimeMs ?? 0, true);
  v.setUint32(32, keys.length, true);
  v.setUint32(36, index.unknown ?? 0, true);
  v.setUint32(40, stamp.fingerprint ?? index.fingerprint ?? 0, true);
  out.set(keys, HEADER);
  out.set(new Uint8Array(index.offsets.buffer, index.offsets.byteOffset, n * 8), at);
  out.set(new Uint8Array(index.lengths.buffer, index.lengths.byteOffset, n * 4), at + n * 8);
  out.set(new Uint8Array(index.labels.buffer, index.labels.byteOffset, n * 4), at + n * 12);
  v.setUint32(INDEX_CRC_AT, crc32c(out), true); // its own field 0 while summed
  return out;
}

/** The CRC-32C of an index's bytes with its own CRC field read as 0. */
function ownCrc(bytes: Uint8Array): number {
  const copy = bytes.slice();
  new DataView(copy.buffer, copy.byteOffset).setUint32(INDEX_CRC_AT, 0, true);
  return crc32c(copy);
}

/** The index in `bytes`, or why it cannot be used for a shard of `stamp` (another version, a changed shard, other keys, not an index). */
export function decodeIndex(bytes: Uint8Array, stamp: IndexStamp): RecordIndex | string {
  if (bytes.length < HEADER || new TextDecoder().decode(bytes.subarray(0, 8)) !== INDEX_MAGIC) return 'it is not an mgpu-train record index';
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const version = v.getUint32(8, true);
  if (version !== INDEX_VERSION) return `it is of index version ${version}, not ${INDEX_VERSION}`;
  if (v.getUint32(INDEX_CRC_AT, true) !== ownCrc(bytes)) return 'its own CRC-32C does not match: it was edited or damaged after it was written';
  const n = v.getUint32(12, true);
  const size = v.getFloat64(16, true);
  const mtimeMs = v.getFloat64(24, true);
  if (stamp.identity !== undefined && (size !== stamp.size || (stamp.mtimeMs !== null && mtimeMs !== stamp.mtimeMs)))
    return `the shard changed since it was indexed (then ${size} bytes; now ${stamp.size} bytes${stamp.mtimeMs === null ? '' : `, ${stamp.identity || 'no ETag or Last-Modified'}${size === stamp.size ? ', not the one it was indexed at' : ''}`})`;
  if (size !== stamp.size || (stamp.mtimeMs !== null && mtimeMs !== stamp.mtimeMs))
    return `the shard changed since it was indexed (then ${size} bytes, mtime ${new Date(mtimeMs).toISOString()}; now ${stamp.size} bytes, mtime ${new Date(stamp.mtimeMs ?? 0).toISOString()})`;
  const fingerprint = v.getUint32(40, true);
  if (stamp.fingerprint !== null && fingerprint !== stamp.fingerprint)
    return `the shard changed since it was indexed (the CRC-32C of its ${size > 2 * FINGERPRINT_END_BYTES ? 'first and last 64 KiB' : 'bytes'} is ${hex(stamp.fingerprint)}, not ${hex(fingerprint)})`;
  const keyBytes = v.getUint32(32, true);
  if (HEADER + keyBytes > bytes.length) return 'it is cut short';
  const keys = new TextDecoder().decode(bytes.subarray(HEADER, HEADER + keyBytes));
  if (keys !== stamp.keys) return `it was checked for other feature keys or tar parts (${keys}, not ${stamp.keys})`;
  const at = bytes.byteOffset + HEADER + pad8(keyBytes);
  if (bytes.byteOffset + bytes.length !== at + n * 16) return `it is ${bytes.length} bytes, not the ${at - bytes.byteOffset + n * 16} of ${n} records`;
  const buf = bytes.buffer.slice(at, at + n * 16); // aligned copies: the typed arrays need offsets that are multiples of 8
  return {
    count: n,
    offsets: new Float64Array(buf, 0, n),
    lengths: new Uint32Array(buf, n * 8, n),
    labels: new Int32Array(buf, n * 12, n),
    unknown: v.getUint32(36, true),
    fingerprint,
  };
}

const hex = (n: number) => n.toString(16).padStart(8, '0');
