// The RowPipeline of a map-style module with data.threads set: get() runs in a piscina pool of
// that many threads (map-thread.ts), each holding its own import of the module, as PyTorch
// DataLoader's num_workers. The rows a step will stage are made ahead, each (epoch, sample) into
// its slot of shared buffers (thread-rows.ts: no copy comes back), and copied from there when the
// step stages them; a bad sample rejects ready() with the DataError the coordinator's thread gives
// (with data.onBadSample: skip it is left out instead; a module that fails to load never is).
import { DataError, messageOf } from '../shared/errors.ts';
import type { RowPipeline } from './columns.ts';
import { getCall, partBytes } from './map-sample.ts';
import type { MapThreadData } from './map-thread.ts';
import { ThreadRows, type SlotResult } from './thread-rows.ts';

export class MapThreadPipeline extends ThreadRows implements RowPipeline {
  constructor(
    private readonly data: MapThreadData,
    threads: number,
    private readonly header: string,
    private readonly check: (index: number, row: Uint8Array) => void, // the loss's label rules, run here as each row comes
    private readonly skipBad = false, // data.onBadSample: skip: ready() resolves; failed() names the samples get() failed to give
  ) {
    super(
      'data/map-thread',
      data,
      threads,
      data.parts.reduce((sum, p) => sum + partBytes(p), 0),
      data.length,
    );
  }

  protected taskOf(): object {
    return {};
  }

  protected threadFailed(err: unknown): string {
    return `${this.data.where}: the data thread running get() failed: ${messageOf(err)}`;
  }

  protected settle(sample: number, bad: SlotResult[number], row: Uint8Array): string | null {
    if (bad && this.skipBad && !bad.threadFailed) return bad.message;
    if (bad) throw new DataError(bad.message, bad.hint);
    this.check(sample, row);
    return null;
  }

  /** The bytes of a made row, x then y; undefined before it is ready. */
  row(sample: number, epoch: number): Uint8Array | undefined {
    return this.madeRow(sample, epoch);
  }

  /** The first of these samples whose get() has not settled in its thread. */
  unsettled(indices: Uint32Array, epoch: number): string | null {
    const i = this.unsettledSample(indices, epoch);
    return i === null ? null : getCall(this.data.where, i, epoch, this.data.keyPath);
  }

  describe(): string {
    return `${this.header}, get in ${this.threads} thread${this.threads === 1 ? '' : 's'}`;
  }
}
