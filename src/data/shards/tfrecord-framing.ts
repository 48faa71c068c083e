// TFRecord framing as TensorFlow writes it (tensorflow/core/lib/io/record_writer.cc): each record
// is uint64 LE length, masked CRC-32C of those 8 bytes, the data, masked CRC-32C of the data.
// Both checksums are verified: a flipped byte in a length or in the data is named, never read
// as a record. The checksum (TensorFlow's masked CRC-32C) is the writers' own: src/shared/tfrecord-frame.ts.
import { DataError } from '../../shared/errors.ts';
import { maskedCrc32c } from '../../shared/tfrecord-frame.ts';

/** The bytes before a record's data (length 8, its CRC 4) and after it (the data's CRC 4). */
export const HEADER_BYTES = 12;
export const FOOTER_BYTES = 4;
/** Where a record is, for messages: "shard <file> record <n> (byte <offset>)". */
export function recordAt(file: string, record: number, offset: number): string {
  return `shard ${file} record ${record} (at byte ${offset})`;
}

const HINT = 'the shard is damaged or was cut short: write it again (or remove it from files:), then run again';

/**
 * The data length of the record whose 12-byte header is `header` (at byte `offset` of `file`, of
 * `fileSize` bytes), its length CRC verified and its end checked to lie inside the file.
 */
export function recordLength(header: Uint8Array, file: string, record: number, offset: number, fileSize: number): number {
  const where = recordAt(file, record, offset);
  if (header.length < HEADER_BYTES)
    throw new DataError(`${where}: truncated: ${header.length} of the ${HEADER_BYTES} header bytes (length and its CRC) are there`, HINT);
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  if (view.getUint32(8, true) !== maskedCrc32c(header.subarray(0, 8)))
    throw new DataError(`${where}: the CRC-32C of its length does not match (a damaged length, or not a TFRecord file)`, HINT);
  // Summed as BigInt: a length near 2^64 is named exactly, not rounded to a float64.
  const length = view.getBigUint64(0, true);
  const end = BigInt(offset + HEADER_BYTES) + length + BigInt(FOOTER_BYTES);
  if (end > BigInt(fileSize))
    throw new DataError(`${where}: truncated: its ${length} data bytes and CRC end at byte ${end}, past the shard's end at ${fileSize}`, HINT);
  return Number(length); // at most the file's size: exact
}

/** Checks the data CRC of a record's data (`data`) against the 4 bytes after it (`crc`). */
export function checkData(data: Uint8Array, crc: Uint8Array, file: string, record: number, offset: number): void {
  const want = new DataView(crc.buffer, crc.byteOffset, FOOTER_BYTES).getUint32(0, true);
  if (want !== maskedCrc32c(data))
    throw new DataError(`${recordAt(file, record, offset)}: the CRC-32C of its ${data.length} data bytes does not match (damaged data)`, HINT);
}

/** The data of one whole framed record (`framed`: its header, data and CRC), both checksums verified. */
export function unframe(framed: Uint8Array, file: string, record: number, offset: number): Uint8Array {
  const length = recordLength(framed.subarray(0, HEADER_BYTES), file, record, offset, offset + framed.length);
  const data = framed.subarray(HEADER_BYTES, HEADER_BYTES + length);
  checkData(data, framed.subarray(HEADER_BYTES + length, HEADER_BYTES + length + FOOTER_BYTES), file, record, offset);
  return data;
}
