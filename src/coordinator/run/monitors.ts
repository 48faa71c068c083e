// What watches a run's evaluations, as Keras's callbacks do at the end of an epoch:
//
//   BestTracker    checkpoint.best (ModelCheckpoint with save_best_only): a strictly better
//                  value than the best so far is a new best; a tie is not (the earlier step stays).
//   EarlyStopper   training.earlyStopping (EarlyStopping): an improvement is a change of more
//                  than minDelta from the best; `wait` counts the evaluations since the last one,
//                  and the run stops once wait >= patience (never at the first evaluation).
//   PlateauLr      schedule 'plateau' (ReduceLROnPlateau): after `patience` evaluations without
//                  an improvement of more than minDelta, lr = max(lr * factor, minLr), then
//                  `cooldown` as Keras counts it (see observe).
//
// Each is a pure state machine fed one value per evaluation, written here from Keras's own code
// (keras/src/callbacks/{model_checkpoint,early_stopping,reduce_lr_on_plateau}.py), with the same
// comparisons in the same float64 arithmetic. Its state is plain JSON, saved in every checkpoint's
// trainer-state.json, so a resumed run continues it exactly. The machines of a cluster feed the
// same values (evaluation sums are allreduced) and so take the same decisions.
import type { EarlyStoppingConfig, MonitorMode, ScheduleConfig } from '../../config/types.ts';
import { MgpuError } from '../../shared/errors.ts';
import type { EvalResult } from '../engine/eval-result.ts';
import type { BestState, EarlyStoppingState, JsonNumber, PlateauState } from './trainer-state.ts';

/**
 * The monitored figure of an evaluation: `eval.loss` -> r.loss, `eval.f1_macro` -> the config
 * metric f1_macro, `eval.mine.hits` -> the custom metric mine's value hits; with several outputs,
 * `eval.accuracy.class` -> r.outputs.class.accuracy (loss, accuracy, top_k, mae) and
 * `eval.f1_macro.class` -> the metric's value for that output; NaN when the value is null (not
 * defined for this evaluation). A custom metric that returns no value of that key is E_METRIC,
 * naming the values it did return.
 */
export function monitoredValue(r: EvalResult, monitor: string): number {
  const field = monitor.replace(/^eval\./, '');
  let v = field === 'loss' ? r.loss : field === 'accuracy' ? r.accuracy : field === 'top_k' ? r.topK : field === 'mae' ? r.mae : undefined;
  for (const [name, o] of Object.entries(r.outputs ?? {})) {
    if (v !== undefined) break;
    const figure = field.endsWith(`.${name}`) ? field.slice(0, -name.length - 1) : null;
    v = figure === 'loss' ? o.loss : figure === 'accuracy' ? o.accuracy : figure === 'top_k' ? o.topK : figure === 'mae' ? o.mae : undefined;
  }
  if (v === undefined && r.metrics && Object.hasOwn(r.metrics, field)) v = r.metrics[field];
  if (v === undefined) {
    const dot = field.indexOf('.');
    const mine = dot > 0 && r.metrics ? Object.keys(r.metrics).filter((k) => k.startsWith(field.slice(0, dot + 1))) : [];
    if (dot > 0) {
      throw new MgpuError(
        'E_METRIC',
        `the monitor ${monitor} names no value of custom metric '${field.slice(0, dot)}': it returned ${mine.length ? mine.join(', ') : 'none'}`,
        {
          hint: `monitor one of ${mine.length ? mine.map((k) => `eval.${k}`).join(', ') : 'the values it returns'}`,
        },
      );
    }
    throw new MgpuError('E_INTERNAL', `no eval figure ${monitor}`);
  }
  return v ?? NaN;
}

// ±Infinity and NaN are saved as strings (JsonNumber).
const enc = (x: number): JsonNumber => (Number.isFinite(x) ? x : String(x));
const dec = (x: JsonNumber): number => (typeof x === 'string' ? Number(x) : x);

/** Keras starts every monitor at the worst value: +Infinity for min, -Infinity for max. */
const worst = (mode: MonitorMode) => (mode === 'min' ? Infinity : -Infinity);

export class BestTracker {
  best: number;
  step: number | null;
  epoch: number | null;
  constructor(
    readonly monitor: string,
    readonly mode: MonitorMode,
    saved?: BestState,
  ) {
    this.best = saved ? dec(saved.best) : worst(mode);
    this.step = saved?.step ?? null;
    this.epoch = saved?.epoch ?? null;
  }

  /** True when `value` is a new best: strictly better (a tie keeps the earlier step, as Keras). */
  observe(value: number, step: number, epoch: number): boolean {
    const better = this.mode === 'min' ? value < this.best : value > this.best;
    if (!better) return false;
    this.best = value;
    this.step = step;
    this.epoch = epoch;
    return true;
  }

  state(): BestState {
    return { monitor: this.monitor, mode: this.mode, best: enc(this.best), step: this.step, epoch: this.epoch };
  }
}

export interface EarlyStoppingDecision {
  improved: boolean;
  /** restoreBest: keep the current weights (the first evaluation, and every improvement). */
  snapshot: boolean;
  stop: boolean;
}

export class EarlyStopper {
  best: number;
  bestStep: number | null;
  wait: number;
  evaluations: number;
  snapshotStep: number | null;
  constructor(
    readonly cfg: EarlyStoppingConfig,
    saved?: EarlyStoppingState,
  ) {
    this.best = saved ? dec(saved.best) : worst(cfg.mode);
    this.bestStep = saved?.bestStep ?? null;
    this.wait = saved?.wait ?? 0;
    this.evaluations = saved?.evaluations ?? 0;
    this.snapshotStep = saved?.snapshotStep ?? null;
  }

  /** Keras's _is_improvement: monitor_op(value - min_delta, best), min_delta negated for min. */
  isImprovement(value: number): boolean {
    const d = this.cfg.minDelta;
    return this.cfg.mode === 'min' ? value - -d < this.best : value - d > this.best;
  }

  /** Keras's on_epoch_end, for one evaluation at `step`. */
  observe(value: number, step: number): EarlyStoppingDecision {
    let snapshot = false;
    // "If best weights were never set, then the current weights are the best."
    if (this.cfg.restoreBest && this.snapshotStep === null) {
      snapshot = true;
      this.snapshotStep = step;
    }
    const first = this.evaluations === 0;
    this.evaluations++;
    this.wait++;
    if (this.isImprovement(value)) {
      this.best = value;
      this.bestStep = step;
      if (this.cfg.restoreBest) {
        snapshot = true;
        this.snapshotStep = step;
      }
      this.wait = 0;
      return { improved: true, snapshot, stop: false };
    }
    return { improved: false, snapshot, stop: this.wait >= this.cfg.patience && !first };
  }

  state(): EarlyStoppingState {
    return {
      monitor: this.cfg.monitor,
      mode: this.cfg.mode,
      best: enc(this.best),
      bestStep: this.bestStep,
      wait: this.wait,
      evaluations: this.evaluations,
      snapshotStep: this.snapshotStep,
    };
  }
}

export class PlateauLr {
  lr: number;
  best: number;
  wait: number;
  cooldownCounter: number;
  constructor(
    readonly cfg: ScheduleConfig,
    initialLr: number,
    saved?: PlateauState,
  ) {
    this.lr = saved?.lr ?? initialLr;
    this.best = saved ? dec(saved.best) : worst(cfg.mode);
    this.wait = saved?.wait ?? 0;
    this.cooldownCounter = saved?.cooldownCounter ?? 0;
  }

  private better(value: number): boolean {
    return this.cfg.mode === 'min' ? value < this.best - this.cfg.minDelta : value > this.best + this.cfg.minDelta;
  }

  /**
   * Keras's on_epoch_end, for one evaluation; returns the change of rate, if any. As in Keras,
   * the cooldown counter is counted down before the value is compared, so after a reduction
   * `cooldown: k` leaves k - 1 evaluations uncounted (1 is the same as 0).
   */
  observe(value: number): { from: number; to: number } | null {
    if (this.cooldownCounter > 0) {
      this.cooldownCounter--;
      this.wait = 0;
    }
    if (this.better(value)) {
      this.best = value;
      this.wait = 0;
    } else if (!(this.cooldownCounter > 0)) {
      this.wait++;
      if (this.wait >= this.cfg.patience && this.lr > this.cfg.minLr) {
        const from = this.lr;
        this.lr = Math.max(from * this.cfg.factor, this.cfg.minLr);
        this.cooldownCounter = this.cfg.cooldown;
        this.wait = 0;
        return { from, to: this.lr };
      }
    }
    return null;
  }

  state(): PlateauState {
    return { monitor: this.cfg.monitor, mode: this.cfg.mode, lr: this.lr, best: enc(this.best), wait: this.wait, cooldownCounter: this.cooldownCounter };
  }
}
