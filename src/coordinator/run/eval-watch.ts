// What a training run does after each evaluation, beyond logging it: the best checkpoint
// (runs/<name>/best/), early stopping and the plateau schedule. The decisions are monitors.ts's;
// this file keeps the weights they need (in memory on every machine, so that all end alike, and
// in each checkpoint, so that a resumed run has them), writes best/ (rank 0 only), and logs and
// prints what happened.
//
//   best/          model.json + weights.bin of the best evaluation's step, and best.json
//                  ({ step, epoch, monitor, mode, value }) inside it, renamed into place together
//   best-ema/      the EMA weights of that step, with training.ema
// (each with labels.json beside model.json when the labels are class names)
import fs from 'node:fs';
import path from 'node:path';
import type { Config, MonitorMode } from '../../config/types.ts';
import { resolveMonitor } from '../../config/monitor-keys.ts';
import { ConfigError } from '../../shared/errors.ts';
import { outputsPerSample, type ModelLayout } from '../../shared/layout.ts';
import { writeLayersModel } from '../../shared/model-files.ts';
import type { Checkpoint, Snapshots } from './checkpoint.ts';
import type { MonitorStates, StopRecord } from './trainer-state.ts';
import type { EvalResult } from '../engine/eval-result.ts';
import type { MetricsLog } from './metrics-log.ts';
import { outputKinds } from '../metrics/index.ts';
import { BestTracker, EarlyStopper, monitoredValue, PlateauLr } from './monitors.ts';
import type { Progress } from '../console/progress.ts';

export const BEST_DIR = 'best';
export const BEST_EMA_DIR = 'best-ema';
export const BEST_FILE = 'best.json';

export interface WatchContext {
  cfg: Config;
  lead: boolean; // rank 0: writes best/ and metrics lines
  out: Progress;
  metrics: MetricsLog;
  layout: ModelLayout;
  master: Float32Array;
  ema: Float32Array | null;
  /** Written beside each model.json (labels.json); default none. */
  modelFiles?: Record<string, string>;
}

/** A value as the lines show it: enough digits to tell two evaluations apart. */
const fmt = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(6)).toString() : String(v));
const json = (v: number): number | null => (Number.isFinite(v) ? v : null);

export class EvalWatch {
  readonly best: BestTracker | null = null;
  readonly stopper: EarlyStopper | null = null;
  readonly plateau: PlateauLr | null = null;
  private bestWeights: Float32Array | null = null;
  private bestEma: Float32Array | null = null;
  private stopWeights: Float32Array | null = null;
  private stopEma: Float32Array | null = null;
  /** The last evaluation: its step, so the end of a run stopped early does not evaluate twice. */
  last: { step: number; result: EvalResult } | null = null;

  constructor(
    private readonly ctx: WatchContext,
    resumed: Checkpoint | null,
  ) {
    const { cfg, out } = ctx;
    const saved = resumed?.state.monitors;
    const snaps = resumed?.snapshots ?? {};
    const same = (a: { monitor: string; mode: string } | null | undefined, b: { monitor: string; mode: string }) =>
      !!a && a.monitor === b.monitor && a.mode === b.mode;
    const dropped = (what: string, s: { monitor: string; mode: string }, now: { monitor: string; mode: string }) =>
      out.line(`${what} now watches ${now.monitor} (${now.mode}); the checkpoint's watched ${s.monitor} (${s.mode}): it starts again`);
    if (cfg.checkpoint.best) {
      const b = cfg.checkpoint.best;
      const keep = same(saved?.best, b) && (saved!.best!.step === null || snaps['best.bin'] !== undefined);
      if (saved?.best && !keep) dropped('checkpoint.best', saved.best, b);
      this.best = new BestTracker(b.monitor, b.mode, keep ? saved!.best! : undefined);
      if (keep && this.best.step !== null) {
        this.bestWeights = snaps['best.bin']!;
        this.bestEma = snaps['best-ema.bin'] ?? null;
      }
    }
    const es = cfg.training.earlyStopping;
    if (es) {
      const keep = same(saved?.earlyStopping, es);
      if (saved?.earlyStopping && !keep) dropped('training.earlyStopping', saved.earlyStopping, es);
      this.stopper = new EarlyStopper(es, keep ? saved!.earlyStopping! : undefined);
      if (es.restoreBest && this.stopper.snapshotStep !== null) {
        if (snaps['early-stopping-best.bin']) {
          this.stopWeights = snaps['early-stopping-best.bin'];
          this.stopEma = snaps['early-stopping-best-ema.bin'] ?? null;
        } else {
          this.stopper.snapshotStep = null; // restoreBest was off then: the next evaluation's weights are kept
        }
      }
    }
    if (cfg.schedule.name === 'plateau') {
      const p = saved?.plateau;
      const keep = same(p, cfg.schedule);
      if (p && !keep) dropped('schedule plateau', p, cfg.schedule);
      // With another monitor the rate reached so far is kept, and the counting starts again.
      this.plateau = new PlateauLr(cfg.schedule, p?.lr ?? cfg.optimizer.learningRate, keep ? p! : undefined);
    }
    // best/ is the best of the run being continued: what a run cut off after the checkpoint
    // wrote there is replaced (a crash can leave best/ ahead of the newest checkpoint).
    if (resumed && ctx.lead && this.best) this.writeBestDir();
  }

  /** The rate the schedule starts from at this point of the run (the plateau's, else the optimizer's). */
  baseLr(): number {
    return this.plateau?.lr ?? this.ctx.cfg.optimizer.learningRate;
  }

  /** After the evaluation at `step` (steps done): returns the stop, when early stopping ends the run here. */
  observe(step: number, epoch: number, r: EvalResult, last: boolean): StopRecord | null {
    const { cfg, out, metrics } = this.ctx;
    this.last = { step, result: r };
    let stop: StopRecord | null = null;
    if (this.best) {
      const b = this.best;
      const previous = { step: b.step, value: b.best };
      if (b.observe(monitoredValue(r, b.monitor), step, epoch)) {
        this.bestWeights = copyInto(this.bestWeights, this.ctx.master);
        this.bestEma = this.ctx.ema ? copyInto(this.bestEma, this.ctx.ema) : null;
        if (this.ctx.lead) this.writeBestDir();
        metrics.write({
          type: 'best',
          step,
          epoch,
          monitor: b.monitor,
          mode: b.mode,
          value: b.best,
          previous_step: previous.step,
          previous_value: previous.step === null ? null : json(previous.value),
        });
        out.line(
          `best ${b.monitor} ${fmt(b.best)} at step ${step}${previous.step === null ? '' : ` (was ${fmt(previous.value)} at step ${previous.step})`}: ${path.join(cfg.runDir, BEST_DIR)}`,
        );
      }
    }
    if (this.stopper) {
      const es = this.stopper;
      const d = es.observe(monitoredValue(r, es.cfg.monitor), step);
      if (d.snapshot) {
        this.stopWeights = copyInto(this.stopWeights, this.ctx.master);
        this.stopEma = this.ctx.ema ? copyInto(this.stopEma, this.ctx.ema) : null;
      }
      // At the last step the run ends anyway: that is not a stop.
      if (d.stop && !last) {
        const c = es.cfg;
        const message =
          `early stopping after step ${step}: ${c.monitor} has not improved${c.minDelta ? ` by more than ${c.minDelta}` : ''} for ${es.wait} evaluation${es.wait === 1 ? '' : 's'} ` +
          `(patience ${c.patience}); best ${fmt(es.best)}${es.bestStep === null ? '' : ` at step ${es.bestStep}`}`;
        stop = { step, reason: 'early_stopping', message };
        metrics.write({
          type: 'stop',
          step,
          epoch,
          reason: 'early_stopping',
          monitor: c.monitor,
          mode: c.mode,
          patience: c.patience,
          min_delta: c.minDelta,
          wait: es.wait,
          best_step: es.bestStep,
          best_value: es.bestStep === null ? null : json(es.best),
          message,
        });
        out.line(message);
      }
    }
    if (this.plateau) {
      const p = this.plateau;
      const value = monitoredValue(r, p.cfg.monitor);
      const change = p.observe(value);
      if (change) {
        metrics.write({ type: 'lr', step, epoch, monitor: p.cfg.monitor, value, from: change.from, to: change.to });
        out.line(
          `${p.cfg.monitor} has not improved by more than ${p.cfg.minDelta} for ${p.cfg.patience} evaluation${p.cfg.patience === 1 ? '' : 's'}: learning rate ${fmt(change.from)} → ${fmt(change.to)}`,
        );
      }
    }
    return stop;
  }

  /** What goes into trainer-state.json. */
  states(): MonitorStates {
    return { best: this.best?.state() ?? null, earlyStopping: this.stopper?.state() ?? null, plateau: this.plateau?.state() ?? null };
  }

  /** The weights kept, for the checkpoint. */
  snapshots(): Snapshots {
    const s: Snapshots = {};
    if (this.bestWeights) s['best.bin'] = this.bestWeights;
    if (this.bestEma) s['best-ema.bin'] = this.bestEma;
    if (this.stopWeights) s['early-stopping-best.bin'] = this.stopWeights;
    if (this.stopEma) s['early-stopping-best-ema.bin'] = this.stopEma;
    return s;
  }

  /**
   * restoreBest (Keras: at the end of training, whether it stopped early or not): the weights of
   * the best evaluation, for final/; null when restoreBest is off or nothing was evaluated.
   */
  restored(completed: number): { weights: Float32Array; ema: Float32Array | null; step: number } | null {
    const es = this.stopper;
    if (!es?.cfg.restoreBest || es.snapshotStep === null || !this.stopWeights) return null;
    const step = es.snapshotStep;
    const value = es.bestStep === step ? json(es.best) : null;
    this.ctx.metrics.write({ type: 'restore', step: completed, from_step: step, monitor: es.cfg.monitor, value });
    this.ctx.out.line(
      `restoreBest: final/ holds the weights of step ${step}${value === null ? '' : ` (${es.cfg.monitor} ${fmt(value)})`}, not those of step ${completed}`,
    );
    return { weights: this.stopWeights, ema: this.stopEma, step };
  }

  /** best/ (and best-ema/) from the weights kept; removed when there is no best yet. */
  private writeBestDir(): void {
    const { cfg, layout } = this.ctx;
    const b = this.best!;
    const dir = path.join(cfg.runDir, BEST_DIR);
    const emaDir = path.join(cfg.runDir, BEST_EMA_DIR);
    if (b.step === null || !this.bestWeights) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(emaDir, { recursive: true, force: true });
      return;
    }
    const record = JSON.stringify({ step: b.step, epoch: b.epoch, monitor: b.monitor, mode: b.mode, value: b.best }, null, 1);
    const files = { ...this.ctx.modelFiles, [BEST_FILE]: record };
    writeLayersModel(dir, layout, this.bestWeights, files);
    if (this.bestEma) writeLayersModel(emaDir, layout, this.bestEma, files);
  }
}

function copyInto(to: Float32Array | null, from: Float32Array): Float32Array {
  const out = to ?? new Float32Array(from.length);
  out.set(from);
  return out;
}

/**
 * What a monitor names must be on the eval line of this model, known once it is built and
 * checked then, before the run directory is written: eval.top_k exists only with more classes
 * than eval.topK; with several outputs, a monitor names eval.loss or one output's figure
 * (eval.accuracy.<output>, eval.f1_macro.<output>, ...), and with one output no per-output one.
 */
export function checkMonitorsFitModel(cfg: Config, layout: ModelLayout): void {
  const classes = outputsPerSample(layout);
  const watchers: Array<[string, { monitor: string; mode: MonitorMode }]> = [];
  if (cfg.checkpoint.best) watchers.push(['checkpoint.best', cfg.checkpoint.best]);
  if (cfg.training.earlyStopping) watchers.push(['training.earlyStopping', cfg.training.earlyStopping]);
  if (cfg.schedule.name === 'plateau') watchers.push(['schedule', cfg.schedule]);
  const outputs = layout.outputs.length > 1 ? outputKinds(cfg, layout) : null;
  for (const [key, w] of watchers) {
    // The mode is settled already (validateConfig): this checks the name against the model's outputs.
    resolveMonitor(key, { ...w }, w.mode, cfg.metrics, outputs, cfg.eval.topK);
    if (w.monitor === 'eval.top_k' && !(classes > cfg.eval.topK)) {
      throw new ConfigError(
        `${key}.monitor`,
        `eval.top_k is not measured: the model has ${classes} output${classes === 1 ? '' : 's'}, not more than eval.topK (${cfg.eval.topK})`,
        'lower eval.topK, or monitor eval.accuracy',
      );
    }
  }
}
