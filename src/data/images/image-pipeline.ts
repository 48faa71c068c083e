// The RowPipeline of an image split: the rows a step will stage are decoded ahead in a piscina
// pool (data.threads), each (epoch, sample) into its slot (thread-rows.ts), and copied from there
// by the split's 'made' column when the step stages them: from image files, or from the records of
// TFRecord shards. A file (a record) that fails to decode rejects ready() with a DataError naming it.
import { DataError, messageOf, MgpuError } from '../../shared/errors.ts';
import type { ShardHttpOptions } from '../../config/types.ts';
import type { DecodeItem, DecodeTask, DecodeThreadData } from './decode-thread.ts';
import { rowBytesOf, type DecodeSpec } from './decode-spec.ts';
import { describeJpegDecoder } from './jpeg-native.ts';
import type { RowPipeline } from '../columns.ts';
import { ThreadRows, type SlotResult } from '../thread-rows.ts';

/** What the rows are decoded from: an image folder's paths (path-table.ts), a tfrecord split's records (shards/record-table.ts). */
export interface ImageItems {
  count: number;
  slice(indices: ArrayLike<number>): DecodeItem[];
}

export class ImagePipeline extends ThreadRows implements RowPipeline {
  constructor(
    private readonly paths: ImageItems,
    spec: DecodeSpec,
    threads: number,
    private readonly header: string,
    private readonly skipBad = false, // data.onBadSample: skip: ready() resolves; failed() names the rows
    http: ShardHttpOptions | null = null, // how the threads read shards that are URLs (data.<split>.http; null: the defaults)
  ) {
    super('data/images/decode-thread', { spec, http, threads } satisfies DecodeThreadData, threads, rowBytesOf(spec), paths.count);
  }

  protected taskOf(samples: number[]): Pick<DecodeTask, 'files'> {
    return { files: this.paths.slice(samples) };
  }

  protected threadFailed(err: unknown): string {
    return `the image decoding thread failed: ${messageOf(err)}`;
  }

  protected settle(_sample: number, bad: SlotResult[number]): string | null {
    if (bad && this.skipBad && !bad.threadFailed) return bad.message;
    if (bad) throw new DataError(bad.message, bad.hint);
    return null;
  }

  /** The bytes of a ready row (for the 'made' column). */
  row(sample: number, epoch: number): Uint8Array {
    const row = this.madeRow(sample, epoch);
    if (!row) throw new MgpuError('E_INTERNAL', `image row ${sample} of epoch ${epoch} was staged before it was made (ready() was not awaited)`);
    return row;
  }

  describe(): string {
    // sharp's work runs on libuv's pool, one per process, sized at start-up: fewer lanes than threads leaves threads idle.
    const uv = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const lanes = this.threads > uv ? ` (but libuv's pool has ${uv}: start with UV_THREADPOOL_SIZE=${this.threads})` : '';
    // Which decoder made the pixels (jpeg-native.ts): the header of every run says it.
    return `${this.header}; decoded by ${this.threads} thread${this.threads === 1 ? '' : 's'}${lanes}, ${describeJpegDecoder()}`;
  }
}
