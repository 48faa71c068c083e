// Reading a range of a shard's bytes, for the decoding threads (record-image.ts,
// tar-member-image.ts): the one place a record or a tar member is read once its shard is indexed.
// A shard gone since it was indexed, or shorter than it was, is a DataError naming it.
import fs from 'node:fs';
import { DataError, messageOf } from '../../shared/errors.ts';
import { readFully } from '../../shared/read-fully.ts';

/** `length` bytes of `shard` from byte `offset`. */
export async function readShardRange(shard: string, offset: number, length: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length);
  let fd: number;
  try {
    fd = fs.openSync(shard, 'r');
  } catch (err) {
    throw new DataError(`cannot read shard ${shard}: ${messageOf(err)} (it was there when it was indexed)`, 'put the shard back, then run again');
  }
  try {
    readFully(fd, bytes, offset, { file: shard, why: 'it is shorter than when it was indexed', error: (m) => new DataError(`shard ${m}`) });
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}
