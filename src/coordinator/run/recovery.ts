// What the run does when workers fail during a step or an eval (reliability.onWorkerFailure):
//   restart  a new worker on the same GPU takes the failed rank's place (it loads the current
//            weights at its next step); a replacement that fails to start costs a restart too
//   reshard  the failed rank is retired and the survivors share the same global batch
//   abort    the failure propagates: the loop checkpoints the last completed step and exits
// After `recover` returns, the caller runs the failed step (or eval) again.
// StartupRecovery does the same for a worker that fails to start (init, or the first attach):
// restart counts in maxRestarts; reshard starts the run with the others when one is left; a rank
// that fails to start twice with the same error is not retried (a model module that crashes the
// process would fail forever), and the run ends with that error.
import type { Config } from '../../config/types.ts';
import { MgpuError, WorkerError, messageOf } from '../../shared/errors.ts';
import { rowsPerRank } from '../../shared/shard.ts';
import type { WorkerDevice } from '../devices/devices.ts';
import type { MetricsLog } from './metrics-log.ts';
import type { Progress } from '../console/progress.ts';
import type { Session } from '../engine/session.ts';
import { GroupFailure } from '../engine/worker-group.ts';

export interface StartupFailure {
  rank: number;
  message: string;
  action: 'restart' | 'reshard';
}

export class StartupRecovery {
  /** Restarts used so far, those of a resumed checkpoint included. */
  restarts: number;
  /** What happened, for metrics.jsonl once it is open. */
  readonly failures: StartupFailure[] = [];
  private readonly lastReason = new Map<number, string>();

  constructor(
    private readonly cfg: Config,
    private readonly out: Progress,
    restartsUsed: number,
  ) {
    this.restarts = restartsUsed;
  }

  /** A WorkerGroup StartFailurePolicy: 'restart' or 'retire', or throws to end the run. */
  readonly decide = (f: WorkerError, device: WorkerDevice): 'restart' | 'retire' => {
    const policy = this.cfg.reliability.onWorkerFailure;
    // A user-facing error raised in a worker (a bad model, a missing kernel) is no crash to retry.
    if (f.code !== 'E_WORKER' || policy === 'abort') throw f;
    this.out.line(`start-up: ${f.message}`);
    if (this.lastReason.get(f.rank) === f.reason) {
      this.out.line(`rank ${f.rank} failed to start twice with the same error; it is not retried`);
      throw f;
    }
    this.lastReason.set(f.rank, f.reason);
    if (policy === 'reshard') {
      this.failures.push({ rank: f.rank, message: f.message, action: 'reshard' });
      this.out.line(`rank ${f.rank} retired; the run starts with the other ranks`);
      return 'retire';
    }
    const max = this.cfg.reliability.maxRestarts;
    if (this.restarts >= max) throw new MgpuError('E_WORKER', `${f.message}; reliability.maxRestarts (${max}) restarts already used`, { hint: f.hint });
    this.restarts++;
    this.failures.push({ rank: f.rank, message: f.message, action: 'restart' });
    this.out.line(`restarting rank ${f.rank} on ${device.label} (restart ${this.restarts} of ${max}) during start-up`);
    return 'restart';
  };
}

export class Recovery {
  constructor(
    protected readonly s: Session,
    protected readonly cfg: Config,
    protected readonly out: Progress,
    private readonly metrics: MetricsLog,
    /** Restarts used so far (carried over by checkpoints). */
    public restarts: number,
    /** The largest batch a rank must hold after a reshard (train or eval). */
    private readonly maxBatch: number,
  ) {}

  async recover(err: unknown, step: number): Promise<void> {
    if (!(err instanceof GroupFailure)) throw err;
    const policy = this.cfg.reliability.onWorkerFailure;
    // A user-facing error raised in a worker (a bad model, a missing kernel) is no crash to retry.
    const userError = err.failures.find((f) => f.code !== 'E_WORKER');
    if (userError || policy === 'abort') throw userError ?? err;
    for (const f of err.failures) {
      this.out.line(`step ${step}: ${f.message}`);
      if (policy === 'restart') {
        await this.restart(f.rank, step).catch((e: unknown) => {
          throw new MgpuError('E_WORKER', `${f.message}; ${messageOf(e)}`, { hint: f.hint });
        });
      } else {
        await this.s.group.retire(f.rank);
        if (this.s.group.active.length === 0) throw err;
        this.out.line(
          `rank ${f.rank} retired; ranks ${this.s.group.active.join(', ')} share the global batch ${this.cfg.training.batchSize}; step ${step} runs again`,
        );
      }
      this.metrics.write({ type: 'failure', step, ranks: [f.rank], message: f.message, action: policy });
    }
    if (policy === 'reshard') await this.s.growInputs(rowsPerRank(this.maxBatch, this.s.group.active.length));
  }

  private async restart(rank: number, step: number): Promise<void> {
    const max = this.cfg.reliability.maxRestarts;
    for (;;) {
      if (this.restarts >= max) throw new MgpuError('E_WORKER', `reliability.maxRestarts (${max}) restarts already used`);
      this.restarts++;
      this.out.line(`restarting rank ${rank} on ${this.s.group.device(rank).label} (restart ${this.restarts} of ${max}); step ${step} runs again`);
      try {
        await this.s.group.restart(rank, this.s.attachMessage());
        return;
      } catch (err) {
        if (!(err instanceof WorkerError) || err.code !== 'E_WORKER') throw err;
        this.out.line(`the new rank ${rank} failed to start: ${err.message}`);
      }
    }
  }
}
