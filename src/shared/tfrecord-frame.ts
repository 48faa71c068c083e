// TFRecord framing as TensorFlow writes it (tensorflow/core/lib/io/record_writer.cc), for every
// file of records mgpu-train writes (TensorBoard event files, TFRecord shards) and the checks of
// every one it reads (src/data/shards/tfrecord-framing.ts): each record is
//   uint64 length (LE) | uint32 masked CRC-32C of the length bytes | data | uint32 masked CRC-32C of the data
// The mask is TensorFlow's: rotate right by 15 bits, then add 0xa282ead8.
import { crc32c } from './crc32c.ts';

const MASK_DELTA = 0xa282ead8;

/** TensorFlow's masked CRC-32C of `bytes`. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + MASK_DELTA) >>> 0;
}

/** One TFRecord around `data`. */
export function tfRecord(data: Uint8Array): Buffer {
  const out = Buffer.alloc(8 + 4 + data.length + 4);
  out.writeBigUInt64LE(BigInt(data.length), 0);
  out.writeUInt32LE(maskedCrc32c(out.subarray(0, 8)), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return out;
}
