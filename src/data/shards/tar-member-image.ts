// One tar sample's image to its row, in a decoding thread: the image member's own header (the 512
// bytes before its data) read again with its data, its checksum and size verified (a shard damaged
// since it was indexed is named, not decoded), and the data decoded by the image pipeline's own
// decoder. An image that does not decode is a DataError naming the shard, the sample and the member.
import { DataError } from '../../shared/errors.ts';
import { decodeBytesInto, decoderSays } from '../images/decode-image.ts';
import { BAD_FILE_HINTS, type DecodeSpec } from '../images/decode-spec.ts';
import type { Sharp } from '../images/sharp-module.ts';
import { readShardRange } from './shard-range.ts';
import { BLOCK, parseHeader } from './tar-header.ts';
import { splitName } from './tar-samples.ts';

/** Where a sample's image member is: a plain object (it crosses to the decoding threads). */
export interface MemberRef {
  shard: string;
  sample: number; // its number in the shard
  offset: number; // of its image member's data
  length: number;
  identity?: string; // a URL shard's as indexed (shard-http.ts)
}

export async function decodeMemberInto(
  sharp: Sharp,
  ref: MemberRef,
  bytes: Promise<Buffer>, // readMember(ref), started before (a thread's reads are in flight together)
  spec: DecodeSpec,
  epoch: number,
  sample: number,
  table: Float32Array,
  out: Uint8Array,
): Promise<void> {
  const { image, key } = memberImage(ref, await bytes);
  try {
    await decodeBytesInto(sharp, image, spec, epoch, sample, table, out);
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`${sampleAt(ref, key)}: cannot decode its image (${image.length} bytes at byte ${ref.offset}): ${decoderSays(err)}`, hint(spec));
  }
}

/** "shard <file> sample <key> (sample <n>)", for messages. */
const sampleAt = (ref: MemberRef, key: string) => `shard ${ref.shard} sample ${key} (sample ${ref.sample})`;

/** The image member's own header and its data. */
export function readMember(ref: MemberRef): Promise<Buffer> {
  return readShardRange(
    ref.shard,
    ref.offset - BLOCK,
    BLOCK + ref.length,
    `sample ${ref.sample} (its image member's header at byte ${ref.offset - BLOCK})`,
    ref.identity,
  );
}

/** The image bytes of a member and its sample's key (from the member's own header), its header verified again. */
function memberImage(ref: MemberRef, bytes: Buffer): { image: Buffer; key: string } {
  const header = parseHeader(bytes.subarray(0, BLOCK), ref.shard, ref.offset - BLOCK);
  if (header.size !== ref.length)
    throw new DataError(
      `${sampleAt(ref, splitName(header.name).key)}: its image member ${header.name} is ${header.size} bytes, not the ${ref.length} it was indexed with (the shard changed)`,
      'run again: its index is rebuilt when the shard changed size or mtime',
    );
  return { image: bytes.subarray(BLOCK), key: splitName(header.name).key };
}

const hint = (spec: DecodeSpec) =>
  (spec.badFileHint ?? BAD_FILE_HINTS.train).replace('replace or remove that file', 'write that sample again (or leave its shard out of files:)');
