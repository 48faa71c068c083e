// One 512-byte POSIX tar header (ustar, GNU and pax share its layout): its checksum verified (the
// unsigned sum of its bytes with the checksum field read as eight spaces), its name (ustar's
// prefix joined to it), its type flag and its size, in octal or, for GNU's large members,
// base-256 (the first byte's top bit set, then a big-endian number). A header whose checksum does
// not match is a DataError naming the shard and the byte where it starts.
import { DataError } from '../../shared/errors.ts';

export const BLOCK = 512;

export interface TarHeader {
  name: string;
  type: string; // '0' (or '\0') a file, '5' a folder, 'x' / 'g' pax, 'L' a GNU long name, ...
  size: number; // of its data, which starts at the next block
}

const DAMAGED = 'the shard is damaged or is not a tar file: write it again (or leave it out of files:), then run again';

/** Whether `block` is all zeros: the first of the two such blocks that end an archive ends the scan. */
export const isZeroBlock = (block: Uint8Array): boolean => block.every((b) => b === 0);

/** Bytes up to the first NUL, as UTF-8. */
export function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** A numeric field: octal text (spaces or NULs around it), or base-256 when its first byte's top bit is set. */
export function tarNumber(field: Uint8Array): number | null {
  if (field[0]! & 0x80) {
    if (field[0] === 0xff) return null; // negative
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return Number.isSafeInteger(n) ? n : null;
  }
  const text = new TextDecoder().decode(field).replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : null;
}

/** Why a size field tarNumber could not read is no size: negative, past 2^53 - 1 bytes, or not octal. */
function sizeProblem(field: Uint8Array): string {
  if (field[0]! & 0x80) {
    if (field[0] === 0xff) return 'its size field is negative (base-256)';
    return 'its size field (base-256) is 2^53 bytes or more, larger than any file: a damaged header';
  }
  const shown = Array.from(field, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : b === 0 ? '\\0' : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
  return `its size field is not an octal number ('${shown}')`;
}

/** The header in `block` (512 bytes at byte `offset` of `shard`), its checksum verified. */
export function parseHeader(block: Uint8Array, shard: string, offset: number): TarHeader {
  const where = `shard ${shard}: the tar header at byte ${offset}`;
  const want = tarNumber(block.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  if (want !== sum) {
    const notTar = offset === 0 && cString(block.subarray(257, 262)) !== 'ustar';
    throw new DataError(
      notTar
        ? `shard ${shard} is not a tar file (its first 512 bytes are not a tar header: no ustar magic, checksum does not match)`
        : `${where}: its checksum does not match (field ${want === null ? 'unreadable' : want}, bytes sum to ${sum}): a damaged header`,
      DAMAGED,
    );
  }
  const size = tarNumber(block.subarray(124, 136));
  if (size === null) throw new DataError(`${where}: ${sizeProblem(block.subarray(124, 136))}`, DAMAGED);
  const name = cString(block.subarray(0, 100));
  const posix = cString(block.subarray(257, 263)) === 'ustar' && block[262] === 0; // GNU's magic is 'ustar  ': no prefix field
  const prefix = posix ? cString(block.subarray(345, 500)) : '';
  return { name: prefix ? `${prefix}/${name}` : name, type: String.fromCharCode(block[156]!), size };
}

/** The `path` record of a pax extended header's data ("<len> path=<name>\n" records), or null. */
export function paxPath(data: Uint8Array): string | null {
  let path: string | null = null;
  for (let at = 0; at < data.length;) {
    const space = data.indexOf(0x20, at);
    const len = space < 0 ? NaN : Number(new TextDecoder().decode(data.subarray(at, space)));
    if (!Number.isSafeInteger(len) || len <= 0 || at + len > data.length) break;
    const record = new TextDecoder().decode(data.subarray(space + 1, at + len - 1));
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') path = record.slice(eq + 1);
    at += len;
  }
  return path;
}
