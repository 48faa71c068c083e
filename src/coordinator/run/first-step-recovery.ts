// Worker failures in the run's first step that another try would meet again: the same reason
// from every rank of the step at once (the model, a layer or the loss throws on any shard), or
// a reason met before in that step, after a restart or a reshard, with no step finished since.
// Such a failure is not retried (no restart is spent on it) and ends the run at once; no step
// was trained, so it offers no `--resume` either (isResumable in errors.ts). Later steps, and a
// failure that does not repeat (a worker killed once), are recovered by Recovery as before.
import { MgpuError, type WorkerError } from '../../shared/errors.ts';
import { GroupFailure } from '../engine/worker-group.ts';
import { Recovery } from './recovery.ts';

export class FirstStepRecovery extends Recovery {
  /** The reasons of the first step's failures recovered so far. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly firstStep: number, // the run's first step as messages number it: 1, or a resumed checkpoint's step + 1
    ...args: ConstructorParameters<typeof Recovery>
  ) {
    super(...args);
  }

  override async recover(err: unknown, step: number): Promise<void> {
    // Only the step's own failures (an evaluation after the first step has the same number, and a step was trained then).
    if (err instanceof GroupFailure && step === this.firstStep && err.failures.every((f) => f.code === 'E_WORKER' && f.phase === `step ${step}`))
      this.check(err.failures, step);
    return super.recover(err, step);
  }

  /** Throws when these failures would come again; else remembers their reasons. */
  private check(failures: WorkerError[], step: number): void {
    const ranks = this.s.group.active.length;
    const again = failures.find((f) => this.seen.has(f.reason));
    const everyRank = ranks > 1 && failures.length === ranks && failures.every((f) => f.reason === failures[0]!.reason);
    if (this.cfg.reliability.onWorkerFailure === 'abort' || (!again && !everyRank)) {
      for (const f of failures) this.seen.add(f.reason);
      return;
    }
    const f = again ?? failures[0]!;
    for (const x of failures) this.out.line(`step ${step}: ${x.message}`);
    const why = again ? 'the same error again after a restart, before any step finished' : `every rank (${ranks}) failed the same way`;
    this.out.line(`the run's first step fails deterministically (${why}); it is not retried`);
    throw new MgpuError('E_WORKER', `${f.message} (${why}, in the run's first step: it is not retried)`, {
      hint: [
        `no step was trained, so there is nothing to resume: another try fails the same way; fix what the message names (the model, a custom layer or loss, the first batch's data), then run again`,
        f.hint,
      ]
        .filter(Boolean)
        .join('\n  hint: '),
    });
  }
}
