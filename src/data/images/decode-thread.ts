// A piscina thread of the image pool: decodes its share of a step's files (or the images in
// TFRecord records: shards/record-image.ts; tar shards' members: shards/tar-member-image.ts) straight into the shared row buffers the 'made'
// column copies from. sharp, the value table and the spec are set
// up once per thread; each image then runs on one libvips thread (sharp.concurrency(1)) with
// libvips's operation cache off (every file is read once per epoch: caching only costs).
import { workerData } from 'piscina';
import { decodeInto } from './decode-image.ts';
import type { ShardHttpOptions } from '../../config/types.ts';
import { SHARD_HTTP_DEFAULTS } from '../../config/validate/shard-http.ts';
import { decodeRecordInto, readRecord, type RecordRef } from '../shards/record-image.ts';
import { useShardHttp } from '../shards/shard-range.ts';
import { decodeMemberInto, readMember, type MemberRef } from '../shards/tar-member-image.ts';
import type { DecodeSpec } from './decode-spec.ts';
import { valueTable } from './place-row.ts';
import { trySharp, type Sharp } from './sharp-module.ts';
import type { SlotResult, SlotTask } from '../thread-rows.ts';

/** An image file's path, or where a TFRecord shard holds the image. */
export type DecodeItem = string | RecordRef | MemberRef;

/** A share of a step's files; `samples`: each file's sample index (its augmentation stream). */
export interface DecodeTask extends SlotTask {
  files: DecodeItem[];
}

/** Per file: null (written), or the DataError's message and hint. */
export type DecodeResult = SlotResult;

/** What every thread of the pool is given (ImagePipeline). */
export interface DecodeThreadData {
  spec: DecodeSpec;
  http: ShardHttpOptions | null; // how URL shards are read (null: the defaults)
  threads: number; // of the pool: each thread takes its share of http.inFlight, at least one
}

let setup: { sharp: Sharp; spec: DecodeSpec; table: Float32Array } | null = null;

function init(): NonNullable<typeof setup> {
  if (setup) return setup;
  const sharp = trySharp();
  if (sharp instanceof Error) throw sharp;
  sharp.concurrency(1);
  sharp.cache(false);
  const { spec, http, threads } = workerData as DecodeThreadData;
  const options = http ?? SHARD_HTTP_DEFAULTS;
  useShardHttp(options, Math.max(1, Math.floor(options.inFlight / threads)));
  setup = { sharp, spec, table: valueTable(spec) };
  return setup;
}

export default async function run(task: DecodeTask): Promise<DecodeResult> {
  const { sharp, spec, table } = init();
  const out: DecodeResult = [];
  // A shard's records are read all at once (a URL's in flight together, up to the thread's share), then decoded in order.
  const reads = task.files.map((item) => (typeof item === 'string' ? null : 'sample' in item ? readMember(item) : readRecord(item)));
  for (const r of reads) r?.catch(() => {}); // each is awaited by its decoding below
  for (let i = 0; i < task.files.length; i++) {
    const row = new Uint8Array(task.buffers[task.at[2 * i]!]!, task.at[2 * i + 1], task.rowBytes);
    try {
      const item = task.files[i]!;
      if (typeof item === 'string') await decodeInto(sharp, item, spec, task.epoch, task.samples[i]!, table, row);
      else if ('sample' in item) await decodeMemberInto(sharp, item, reads[i]!, spec, task.epoch, task.samples[i]!, table, row);
      else await decodeRecordInto(sharp, item, reads[i]!, spec, task.epoch, task.samples[i]!, table, row);
      out.push(null);
    } catch (err) {
      const e = err as { message: string; hint?: string; notSample?: boolean };
      // A shard's server that fails is not the sample's fault: never skipped (shard-http.ts).
      out.push(e.notSample ? { message: e.message, hint: e.hint, threadFailed: true } : { message: e.message, hint: e.hint });
    }
  }
  return out;
}
