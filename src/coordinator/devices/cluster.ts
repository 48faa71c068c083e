// The machines of a run. On one machine (no MPI launcher) a run is a cluster of one and every
// call here is free. Started by mpirun/srun with M processes, one coordinator per machine, each
// running its own workers on its own slab, combines with the others through MPI (the project's
// binding, native/mpi):
//
//   start-up   every rank checks that all ran the same config (devices aside) and the same code,
//              once every machine has started its workers (so within reliability.startTimeout),
//              then learns every machine's worker count: machine m's workers are global workers
//              offset[m] .. offset[m] + count[m] - 1, and a step's batch is split over all of them;
//   each step  `arrive` tells rank 0 who has finished its local step (so a machine that stalls
//              is named); `sum` adds up a few numbers (loss, non-finite ranks, a stop request) so
//              every machine takes the same decision, then is the allreduce of the gradient sum
//              (and of BatchNorm statistics);
//   any error  on one machine ends the job (MPI_Abort): MPI cannot continue with a rank gone, and
//              `--resume` continues from the last checkpoint, written by rank 0 alone.
//
// Every collective is non-blocking and polled from the event loop with a deadline, so a
// coordinator waiting on another machine keeps its signal handlers and can say what it waits for.
import { createHash } from 'node:crypto';
import { sourceHash } from '../../../lib/source-hash.mjs';
import { decodesImages, JPEG_DECODER_ENV, jpegDecoderName } from '../../data/images/jpeg-native.ts';
import type { ReliabilityConfig } from '../../config/types.ts';
import { MgpuError } from '../../shared/errors.ts';
import { launchedSize, loadMpi, type MpiAddon } from '../../shared/mpi.ts';
import { assignShards, type Shard } from '../../shared/shard.ts';
import { armWatchdog } from './mpi-watchdog.ts';
import { RollCallAnswer, ROLL_CALL_MS, silentRanks } from './roll-call.ts';

const ARRIVE_TAG = 0x4d41; // 'MA'

export interface Cluster {
  readonly rank: number;
  readonly size: number;
  readonly hosts: string[];
  /** Global workers of every machine; this machine's start among them. */
  readonly workers: number[];
  readonly offset: number;
  /** `where` names a rank with its host: "rank 1 (node-b)". */
  where(rank: number): string;
  /** Every machine's config and code must match (the config's hash is given); learns the worker counts. */
  join(configHash: string, localWorkers: number, layoutHash: number): Promise<void>;
  /** The batch rows of this machine's workers (`active`: its local ranks, ascending). */
  shards(batch: number, active: readonly number[]): Shard[];
  /** In-place sum over all machines (allreduce). */
  sum(buffer: Float32Array | Float64Array, what: string): Promise<void>;
  /** Rank 0 waits until every rank has finished its local part of `step`, and names those that do not in time. */
  arrive(step: number, point?: number): Promise<void>;
  /** Every machine's copy of `bytes` (same length everywhere), in rank order. */
  gather(bytes: Uint8Array, what: string): Promise<Uint8Array[]>;
  /** Ends the whole job after an error on this machine (MPI cannot go on without a rank). */
  abort(code: number): never;
  close(): void;
}

/** One machine: nothing to combine. */
export function soloCluster(): Cluster {
  let workers = [0];
  return {
    rank: 0,
    size: 1,
    hosts: [''],
    offset: 0,
    get workers() {
      return workers;
    },
    where: () => 'this machine',
    join: async (_h, localWorkers) => void (workers = [localWorkers]),
    shards: (batch, active) => assignShards(batch, active),
    sum: async () => {},
    arrive: async () => {},
    gather: async (bytes) => [bytes],
    abort: (code) => process.exit(code),
    close: () => {},
  };
}

/** How many workers a global batch is split over: every machine's, or this one's active ranks alone. */
export function globalWorkers(c: Cluster, active: readonly number[]): number {
  return c.size > 1 ? c.workers.reduce((a, b) => a + b, 0) : active.length;
}

/**
 * The cluster this process belongs to: MPI's when a launcher started several, else one machine.
 * Its collectives wait reliability.stepTimeout; the start-up check, reliability.startTimeout.
 */
export function openCluster(r: Pick<ReliabilityConfig, 'stepTimeout' | 'startTimeout'>, env: NodeJS.ProcessEnv = process.env): Cluster {
  const launch = launchedSize(env);
  if (!launch || launch.size <= 1) return soloCluster();
  return new MpiCluster(loadMpi(launch), r.stepTimeout * 1000, (r.startTimeout ?? r.stepTimeout) * 1000);
}

class MpiCluster implements Cluster {
  readonly rank: number;
  readonly size: number;
  readonly hosts: string[] = [];
  workers: number[] = [];
  offset = 0;
  private closed = false;
  private readonly answer: RollCallAnswer | null;

  constructor(
    private readonly mpi: MpiAddon,
    private readonly deadlineMs: number,
    private readonly startDeadlineMs: number,
  ) {
    const disarm = armWatchdog('init', `rank ${launchedRank()}`);
    const me = mpi.init();
    disarm();
    this.rank = me.rank;
    this.size = me.size;
    this.hosts = new Array<string>(me.size).fill('?');
    this.hosts[me.rank] = me.host;
    this.answer = me.rank === 0 ? null : new RollCallAnswer(mpi);
  }

  where(rank: number): string {
    return `rank ${rank} (${this.hosts[rank] ?? '?'})`;
  }

  async join(configHash: string, localWorkers: number, layoutHash: number): Promise<void> {
    // 32 bytes config hash, 32 bytes code hash, 4 workers, 4 layout hash, 64 host name, 32 JPEG
    // decoder (what a config hash that differs is told by: configHash holds it for image splits).
    const mine = new Uint8Array(168);
    mine.set(Buffer.from(configHash, 'hex').subarray(0, 32), 0);
    mine.set(Buffer.from(codeHash(), 'hex').subarray(0, 32), 32);
    const view = new DataView(mine.buffer);
    view.setInt32(64, localWorkers, true);
    view.setUint32(68, layoutHash >>> 0, true);
    mine.set(Buffer.from(this.hosts[this.rank]!.slice(0, 63)), 72);
    mine.set(Buffer.from(jpegDecoderName().slice(0, 31)), 136);
    const all = await this.gather(mine, 'the start-up check', this.startDeadlineMs);
    const field = (b: Uint8Array, from: number, to: number) => Buffer.from(b.subarray(from, to)).toString('hex');
    const text = (b: Uint8Array, from: number, to: number) => Buffer.from(b.subarray(from, to)).toString('utf8').replace(/\0+$/, '');
    all.forEach((b, r) => (this.hosts[r] = text(b, 72, 136)));
    for (let r = 1; r < all.length; r++) {
      const [theirs, ours] = [text(all[r]!, 136, 168), text(all[0]!, 136, 168)];
      if (field(all[r]!, 0, 32) !== field(all[0]!, 0, 32) && theirs !== ours) {
        throw new MgpuError('E_CONFIG', `${this.where(r)} decodes JPEGs with ${theirs}, ${this.where(0)} with ${ours}: their images' pixels would differ`, {
          hint: `build the mgpu_jpeg addon on every machine (apt install libturbojpeg0-dev, then npm run build:native), or set ${JPEG_DECODER_ENV}=sharp on every machine`,
        });
      }
      if (field(all[r]!, 0, 32) !== field(all[0]!, 0, 32)) {
        throw new MgpuError('E_CONFIG', `${this.where(r)} runs another config than ${this.where(0)} (its resolved config, devices aside, hashes differently)`, {
          hint: 'start every machine with the same config file and the same --set overrides',
        });
      }
      if (field(all[r]!, 32, 64) !== field(all[0]!, 32, 64)) {
        throw new MgpuError('E_CONFIG', `${this.where(r)} runs another version of mgpu-train than ${this.where(0)} (its source files differ)`, {
          hint: 'install the same mgpu-train version on every machine',
        });
      }
      const layout = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset).getUint32(68, true);
      if (layout(all[r]!) !== layout(all[0]!)) {
        throw new MgpuError('E_LAYOUT', `${this.where(r)} built another model than ${this.where(0)} (the layouts of their variables differ)`, {
          hint: 'the model must not depend on the machine: the same module, the same tfjs version',
        });
      }
    }
    this.workers = all.map((b) => new DataView(b.buffer, b.byteOffset).getInt32(64, true));
    this.offset = this.workers.slice(0, this.rank).reduce((a, b) => a + b, 0);
  }

  shards(batch: number, active: readonly number[]): Shard[] {
    if (active.length !== this.workers[this.rank]) {
      throw new MgpuError('E_INTERNAL', `this machine has ${active.length} active workers, the cluster counts ${this.workers[this.rank]}`);
    }
    return assignShards(batch, active, this.offset, globalWorkers(this, active));
  }

  async sum(buffer: Float32Array | Float64Array, what: string): Promise<void> {
    await this.wait(this.mpi.iallreduceSum(buffer), what);
  }

  async gather(bytes: Uint8Array, what: string, deadlineMs = this.deadlineMs): Promise<Uint8Array[]> {
    const recv = new Uint8Array(bytes.length * this.size);
    await this.wait(this.mpi.iallgather(bytes, recv), what, deadlineMs);
    return Array.from({ length: this.size }, (_, r) => recv.subarray(r * bytes.length, (r + 1) * bytes.length));
  }

  async arrive(step: number, point = 0): Promise<void> {
    const tag = ARRIVE_TAG + point;
    if (this.rank !== 0) {
      // The send completes when rank 0 receives it; nothing waits for it here.
      const id = this.mpi.isendInt(0, tag, step);
      void this.poll(id, Infinity).catch(() => {});
      return;
    }
    const slots = Array.from({ length: this.size - 1 }, (_, i) => {
      const into = new Int32Array(1);
      return { rank: i + 1, into, id: this.mpi.irecvInt(i + 1, tag, into), done: false };
    });
    const started = performance.now();
    for (;;) {
      for (const s of slots) if (!s.done && this.mpi.test(s.id)) s.done = true;
      if (slots.every((s) => s.done)) break;
      if (performance.now() - started > this.deadlineMs) {
        const late = slots.filter((s) => !s.done).map((s) => this.where(s.rank));
        throw new MgpuError(
          'E_WORKER',
          `step ${step}: ${late.join(', ')} did not finish the step within ${(this.deadlineMs / 1000).toFixed(0)} s: that machine stalled`,
          {
            hint: 'see its own output; the job ends, and --resume continues from the last checkpoint',
          },
        );
      }
      await tick(performance.now() - started);
    }
    const wrong = slots.find((s) => s.into[0] !== step);
    if (wrong) throw new MgpuError('E_INTERNAL', `${this.where(wrong.rank)} is at step ${wrong.into[0]}, rank 0 at step ${step}`);
  }

  private async wait(id: number, what: string, deadlineMs = this.deadlineMs): Promise<void> {
    // The other ranks wait a little longer, so that rank 0 has called the roll and named the
    // machine before one of them ends the job.
    const deadline = this.rank === 0 ? deadlineMs : deadlineMs + ROLL_CALL_MS + 1000;
    await this.poll(id, deadline).catch(async (err: unknown) => {
      if (!(err instanceof Stalled)) throw err;
      const silent = this.rank === 0 ? await silentRanks(this.mpi, this.size) : [];
      if (silent.length > 0) {
        throw new MgpuError(
          'E_WORKER',
          `${what}: ${silent.map((r) => this.where(r)).join(', ')} did not take part within ${(deadlineMs / 1000).toFixed(0)} s and does not answer: that machine stalled, died or lost its network`,
          { hint: 'see its own output; the job ends, and --resume continues from the last checkpoint' },
        );
      }
      throw new MgpuError(
        'E_WORKER',
        `${what} did not complete within ${(deadlineMs / 1000).toFixed(0)} s on ${this.where(this.rank)}: another machine stalled or died`,
        {
          hint: 'rank 0 names the machine that stalled; the job ends, and --resume continues from the last checkpoint',
        },
      );
    });
  }

  private async poll(id: number, deadlineMs: number): Promise<void> {
    const started = performance.now();
    while (!this.mpi.test(id)) {
      this.answer?.poll();
      const waited = performance.now() - started;
      if (waited > deadlineMs) throw new Stalled();
      await tick(waited);
    }
  }

  abort(code: number): never {
    armWatchdog('abort', this.where(this.rank));
    return this.mpi.abort(code);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const disarm = armWatchdog('finalize', this.where(this.rank));
    this.mpi.finalize();
    disarm();
  }
}

class Stalled extends Error {}

/** This process's rank as the launcher numbered it (before MPI_Init has said it). */
function launchedRank(env: NodeJS.ProcessEnv = process.env): string {
  return env.OMPI_COMM_WORLD_RANK ?? env.PMIX_RANK ?? env.PMI_RANK ?? env.SLURM_PROCID ?? '?';
}

/** Poll at once for the first milliseconds (an allreduce is usually quick), then every millisecond. */
function tick(waitedMs: number): Promise<void> {
  return new Promise((resolve) => (waitedMs < 5 ? setImmediate(resolve) : setTimeout(resolve, 1)));
}

/** A hash of this installation's source files: machines must run the same mgpu-train. */
export const codeHash = sourceHash;

/**
 * The hash of a resolved config as the machines compare it: every section but `devices`, and,
 * where a split decodes images, the JPEG decoder (jpeg-native.ts): its pixels are the decoder's,
 * so machines that would decode the same files differently refuse to start together.
 */
export function configHash(cfg: object, env: NodeJS.ProcessEnv = process.env): string {
  const { devices: _devices, configPath: _path, ...rest } = cfg as Record<string, unknown>;
  const decoder = decodesImages(rest.data) ? { jpegDecoder: jpegDecoderName(env) } : {};
  return createHash('sha256')
    .update(JSON.stringify({ ...rest, ...decoder }))
    .digest('hex');
}
