// The file members of a tar shard, in order, read by one pass over its headers (the data of a
// member is skipped, never read, except a pax header's or a GNU long name's): each member's name
// (a pax `path` or a GNU `L` record before it overriding its header's), where its data starts and
// its size. Data is padded to 512 bytes; a zero block (the first of the two that end an archive, or
// the file's end at a block boundary) ends the scan, as GNU tar and Python's tarfile stop there.
// Folders, links and pax global headers are passed over. A member whose data runs
// past the shard's end is a DataError naming the shard and the member.
//
// Why by hand and not tar-stream's extract(): extract() is asynchronous (streamx schedules each
// write on a microtask, and a member's data must be drained before the next header is read), while
// this scan is a synchronous generator that a local shard's indexing runs over pread
// (shard-index.ts); and extract() takes a size field such as '0000000017a' as 15 bytes, where this
// scan refuses the header by its byte. tar-stream finds the same members at the same offsets
// (test/unit/tar-members-agree-with-tar-stream.test.ts), at about the same speed.
import { DataError } from '../../shared/errors.ts';
import { readExactly, type Scan } from './scan-reads.ts';
import { BLOCK, cString, isZeroBlock, parseHeader, paxPath } from './tar-header.ts';

export interface TarMember {
  name: string;
  header: number; // the byte where its own (ustar) header starts
  offset: number; // the byte where its data starts
  size: number;
}

const TRUNCATED = 'the shard was cut short: write it again (or leave it out of files:), then run again';
const padded = (n: number) => Math.ceil(n / BLOCK) * BLOCK;

/**
 * Calls `each` with every file member of the shard `file` (of `size` bytes), in order, as a scan
 * (scan-reads.ts): `each` may itself read (a member's data, before the scan moves past it).
 */
export function* forEachMember(file: string, size: number, each: (m: TarMember) => Scan<void> | void): Scan<void> {
  let longName: string | null = null;
  for (let at = 0; at + BLOCK <= size;) {
    const block = yield* readExactly(at, BLOCK, { file, why: 'it shrank while it was indexed', error: (m) => new DataError(m) });
    if (isZeroBlock(block)) return;
    const h = parseHeader(block, file, at);
    const name = longName ?? h.name;
    const offset = at + BLOCK;
    if (offset + h.size > size)
      throw new DataError(
        `shard ${file}: member ${name} (header at byte ${at}) is truncated: its ${h.size} bytes end at byte ${offset + h.size}, past the shard's end at ${size}`,
        TRUNCATED,
      );
    if (h.type === 'x' || h.type === 'L') {
      const data = yield* read(file, offset, h.size);
      longName = h.type === 'x' ? paxPath(data) : cString(data);
    } else {
      longName = null;
      if (h.type === '0' || h.type === '\0' || h.type === '7') {
        const reads = each({ name, header: at, offset, size: h.size });
        if (reads) yield* reads;
      }
    }
    at = offset + padded(h.size);
  }
  if (size % BLOCK !== 0) throw new DataError(`shard ${file}: it ends inside a 512-byte block (at byte ${size}): truncated`, TRUNCATED);
}

/** `size` bytes of a member's data at `offset`. */
export function read(file: string, offset: number, size: number): Scan<Uint8Array> {
  return readExactly(offset, size, { file, why: 'it shrank while it was indexed', error: (m) => new DataError(m) });
}
