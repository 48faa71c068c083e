// trainer-state.json, the file beside every checkpoint's model (checkpoint.ts): where the run
// stands, the resolved config it trains with, and the state of what watches its evaluations
// (monitors.ts), plain JSON so that a resumed run continues exactly.
import type { Config, MonitorMode, OptimizerConfig } from '../../config/types.ts';
import type { VariableSpec } from '../../shared/layout.ts';
import type { DataRecord } from '../../data/split-record.ts';

export interface TrainerState {
  format: 'mgpu-train-checkpoint';
  version: 1;
  step: number; // updates applied: the next step to run
  epoch: number; // the epoch of the next step
  seed: number; // the shuffle seed: with `step`, the data cursor
  batchSize: number;
  workers: number; // how many workers trained it (a resume may use another number)
  backend: string; // the tfjs backend the workers used
  optimizer: OptimizerConfig;
  ema: number | null;
  skippedSteps: number[];
  restarts: number;
  variables: VariableSpec[];
  config: Config;
  savedAt: string;
  /** What watches the evaluations (monitors.ts); absent in checkpoints older than them. */
  monitors?: MonitorStates;
  /** Set when early stopping ended the run at this step: a resume has nothing left to do. */
  stopped?: StopRecord | null;
  /** What it was trained on (data-record.ts), compared on resume (resume-data.ts); absent in checkpoints older than it. */
  data?: DataRecord;
}

export interface MonitorStates {
  best: BestState | null;
  earlyStopping: EarlyStoppingState | null;
  plateau: PlateauState | null;
}

export interface StopRecord {
  step: number;
  reason: 'early_stopping';
  message: string;
}

/** ±Infinity and NaN do not survive JSON: they are written as strings. */
export type JsonNumber = number | string;

export interface BestState {
  monitor: string;
  mode: MonitorMode;
  best: JsonNumber;
  step: number | null; // the step of the best evaluation; null before the first improvement
  epoch: number | null;
}

export interface EarlyStoppingState {
  monitor: string;
  mode: MonitorMode;
  best: JsonNumber;
  bestStep: number | null; // the step of the last improvement
  wait: number; // evaluations since the last improvement
  evaluations: number; // evaluations seen (Keras never stops at the first)
  snapshotStep: number | null; // restoreBest: the step of the weights kept
}

export interface PlateauState {
  monitor: string;
  mode: MonitorMode;
  lr: number; // the base rate the schedule now gives (warmup, if any, ramps up to it)
  best: JsonNumber;
  wait: number;
  cooldownCounter: number;
}
