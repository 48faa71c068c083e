// One record's image to its row, in a decoding thread: the record is read at its indexed offset,
// both its checksums verified again (a shard damaged since it was indexed is named, not decoded),
// its Example's image feature taken out and decoded by the image pipeline's own decoder. A record
// whose image does not decode is a DataError naming the shard, the record and the feature.
import { DataError } from '../../shared/errors.ts';
import { decodeBytesInto, decoderSays } from '../images/decode-image.ts';
import { BAD_FILE_HINTS, type DecodeSpec } from '../images/decode-spec.ts';
import type { Sharp } from '../images/sharp-module.ts';
import { exampleFeatures } from './record-features.ts';
import { readShardRange } from './shard-range.ts';
import { FOOTER_BYTES, HEADER_BYTES, recordAt, unframe } from './tfrecord-framing.ts';

/** Where a sample's record is: a plain object (it crosses to the decoding threads). */
export interface RecordRef {
  shard: string;
  record: number; // its number in the shard
  offset: number;
  length: number; // of its data
  key: string; // the image feature's key
  identity?: string; // a URL shard's as indexed (shard-http.ts)
  label?: { key: string; indexed: number; index: string }; // the label feature, the label its index gave the record, and that index file
}

/** A record whose label is not the one its index gave it: the shard changed, not the sample (never skipped as a bad one). */
export class StaleIndexError extends DataError {
  readonly notSample = true;
}

export async function decodeRecordInto(
  sharp: Sharp,
  ref: RecordRef,
  framed: Promise<Buffer>, // readRecord(ref), started before (a thread's reads are in flight together)
  spec: DecodeSpec,
  epoch: number,
  sample: number,
  table: Float32Array,
  out: Uint8Array,
): Promise<void> {
  const image = recordImage(ref, await framed);
  try {
    await decodeBytesInto(sharp, image, spec, epoch, sample, table, out);
  } catch (err) {
    if (err instanceof DataError) throw err;
    const where = `${recordAt(ref.shard, ref.record, ref.offset)}: cannot decode its image (feature ${JSON.stringify(ref.key)}, ${image.length} bytes)`;
    throw new DataError(`${where}: ${decoderSays(err)}`, hint(spec));
  }
}

/** The framed record (its header, data and CRC) of `ref`. */
export function readRecord(ref: RecordRef): Promise<Buffer> {
  return readShardRange(ref.shard, ref.offset, HEADER_BYTES + ref.length + FOOTER_BYTES, `record ${ref.record} (at byte ${ref.offset})`, ref.identity);
}

/** The image bytes of a framed record, its framing verified and its label checked against its index's. */
export function recordImage(ref: RecordRef, framed: Buffer): Buffer {
  const data = unframe(framed, ref.shard, ref.record, ref.offset);
  const { image, label } = exampleFeatures(data, { image: ref.key, label: ref.label?.key ?? null }, ref.shard, ref.record, ref.offset);
  if (ref.label && label !== ref.label.indexed)
    throw new StaleIndexError(
      `${recordAt(ref.shard, ref.record, ref.offset)}: its label is ${label}, but its record index ${ref.label.index} says ${ref.label.indexed}: the shard changed since it was indexed (with its size, mtime and first and last 64 KiB kept)`,
      `delete ${ref.label.index} (it is built again from the shard at the next run), then run again`,
    );
  return Buffer.from(image!.buffer, image!.byteOffset, image!.length);
}

const hint = (spec: DecodeSpec) =>
  (spec.badFileHint ?? BAD_FILE_HINTS.train).replace('replace or remove that file', 'write that record again (or leave its shard out of files:)');
