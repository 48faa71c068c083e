// Fixtures for the tests of what watches the evaluations (best/, early stopping, the plateau
// schedule): one small learnable run whose eval values move enough to trigger each, its
// metrics.jsonl read back, and Keras's rules written out again here, from Keras's code
// (keras/src/callbacks/early_stopping.py, reduce_lr_on_plateau.py), independently of
// src/coordinator/run/monitors.ts, so a test can predict from the logged eval values what the run
// must have done.
import fs from 'node:fs';
import path from 'node:path';
import { noSignals, type SignalWatch } from '../../src/coordinator/console/signals.ts';
import { silent, writeDataset, writeModelModule } from './train-fixture.ts';

/**
 * The run: 40 training samples, batch 8 (5 steps an epoch), 20 eval samples, the 6-8-3 MLP,
 * sgd at 0.5; 12 epochs, an evaluation per epoch (the default with an eval set); a train line
 * per step. `over` replaces whole sections (and keys at the top).
 */
export function scenario(dir: string, name: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const model = path.join(dir, 'mlp.mjs');
  if (!fs.existsSync(model)) writeModelModule(dir, 'mlp');
  const train = path.join(dir, 'train-x.npy');
  return {
    name,
    model: { module: model },
    loss: 'categoricalCrossentropy',
    data: {
      train: fs.existsSync(train) ? { type: 'npy', features: train, labels: path.join(dir, 'train-y.npy') } : writeDataset(dir, 'train', 40, 'onehot', 5),
      eval: fs.existsSync(path.join(dir, 'eval-x.npy'))
        ? { type: 'npy', features: path.join(dir, 'eval-x.npy'), labels: path.join(dir, 'eval-y.npy') }
        : writeDataset(dir, 'eval', 20, 'onehot', 6),
    },
    training: { batchSize: 8, epochs: 12, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    log: { every: 1 },
    runDir: path.join(dir, name),
    ...over,
  };
}

export interface Line {
  type: string;
  step: number;
  [k: string]: unknown;
}

/** metrics.jsonl of a run, and its eval and train lines. */
export function metricsOf(runDir: string): { lines: Line[]; evals: Line[]; train: Line[]; of(type: string): Line[] } {
  const lines = fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  const of = (type: string) => lines.filter((l) => l.type === type);
  return { lines, evals: of('eval'), train: of('train'), of };
}

/** A Ctrl-C that arrives once `after` steps are done: the run checkpoints that step and stops. */
export function interruptAfter(after: number): { signals: SignalWatch; progress: typeof silent } {
  let stop = false;
  return {
    signals: { ...noSignals, requested: () => (stop ? 'SIGINT' : null) },
    progress: {
      ...silent,
      step: (done: number) => {
        if (done >= after) stop = true;
      },
    },
  };
}

/** A Ctrl-C that is there before the first step. */
export const interruptAtOnce = { signals: { ...noSignals, requested: () => 'SIGINT' as const }, progress: silent };

/**
 * Keras's EarlyStopping over a run's eval values (start_from_epoch 0, no baseline): the index
 * of the evaluation that stops the run (-1: none), and of the last improvement.
 */
export function kerasEarlyStopping(values: number[], o: { mode: 'min' | 'max'; patience: number; minDelta: number }): { stop: number; best: number } {
  const less = o.mode === 'min';
  const minDelta = less ? -Math.abs(o.minDelta) : Math.abs(o.minDelta);
  let best = less ? Infinity : -Infinity;
  let bestAt = -1;
  let wait = 0;
  for (let epoch = 0; epoch < values.length; epoch++) {
    const current = values[epoch]!;
    wait += 1;
    const shifted = current - minDelta;
    if (less ? shifted < best : shifted > best) {
      best = current;
      bestAt = epoch;
      wait = 0;
      continue;
    }
    if (wait >= o.patience && epoch > 0) return { stop: epoch, best: bestAt };
  }
  return { stop: -1, best: bestAt };
}

export interface PlateauOptions {
  mode: 'min' | 'max';
  factor: number;
  patience: number;
  cooldown: number;
  minLr: number;
  minDelta: number;
}

/** One evaluation of Keras's ReduceLROnPlateau: what it did. */
export interface PlateauEvent {
  lr: number; // after this evaluation
  reduced: boolean;
  inCooldownUncounted: boolean; // not improved, and not counted because of the cooldown
  countedAsCooldownEnds: boolean; // not improved, and counted at the evaluation where the cooldown ran out
  heldAtMinLr: boolean; // wait >= patience, but lr is at minLr already
}

/** Keras's ReduceLROnPlateau over a run's eval values, starting at `lr`. */
export function kerasPlateau(values: number[], lr: number, o: PlateauOptions): PlateauEvent[] {
  const op = o.mode === 'min' ? (a: number, b: number) => a < b - o.minDelta : (a: number, b: number) => a > b + o.minDelta;
  let best = o.mode === 'min' ? Infinity : -Infinity;
  let cooldownCounter = 0;
  let wait = 0;
  return values.map((current) => {
    const ev: PlateauEvent = { lr, reduced: false, inCooldownUncounted: false, countedAsCooldownEnds: false, heldAtMinLr: false };
    const ending = cooldownCounter === 1;
    if (cooldownCounter > 0) {
      cooldownCounter -= 1;
      wait = 0;
    }
    if (op(current, best)) {
      best = current;
      wait = 0;
    } else if (!(cooldownCounter > 0)) {
      ev.countedAsCooldownEnds = ending;
      wait += 1;
      if (wait >= o.patience) {
        const oldLr = lr;
        if (oldLr > o.minLr) {
          lr = Math.max(oldLr * o.factor, o.minLr);
          cooldownCounter = o.cooldown;
          wait = 0;
          ev.reduced = true;
        } else {
          ev.heldAtMinLr = true;
        }
      }
    } else {
      ev.inCooldownUncounted = true;
    }
    ev.lr = lr;
    return ev;
  });
}

/** The float32 weights of a LayersModel directory's weights.bin (model.weights order). */
export function weightsBin(dir: string): Float32Array {
  const b = fs.readFileSync(path.join(dir, 'weights.bin'));
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
