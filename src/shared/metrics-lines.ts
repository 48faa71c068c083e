// The lines of runs/<name>/metrics.jsonl, one JSON object a line: what the coordinator's
// MetricsLog (src/coordinator/run/metrics-log.ts) writes and `mgpu-train report` reads back.

export interface TrainLine {
  type: 'train';
  step: number; // updates applied so far (1-based: the line is written after step `step`)
  epoch: number;
  loss: number; // mean training loss over the steps since the previous line
  lr: number;
  samples_per_sec: number;
  compute_max_ms: number; // per step, averaged since the previous line: slowest worker
  compute_min_ms: number; // fastest worker
  refresh_ms: number; // slowest worker: new weights from the slab into its model
  write_ms: number; // slowest worker: gradients out of tfjs into the slab
  sync_ms: number; // coordinator: reduce + optimizer + publish
  data_ms: number; // staging the next shards into the slab
  data_wait_ms?: number; // of data_ms: waiting for rows made on demand (decoded images); 0 for arrays
  step_ms: number; // wall time of a step
  grad_norm: number; // global L2 norm of the summed gradient (before clipping), last step
}

/**
 * A step that was not applied, a worker that failed, or a stop the library API asked for (its
 * AbortSignal or a callback), and what the run did about it.
 */
export interface EventLine {
  type: 'skip' | 'failure' | 'stop';
  step: number;
  ranks: number[];
  message: string;
  action: string;
}

/** A training sample left out of its batch (data.onBadSample: skip): which, in which step, and why. */
export interface BadSampleLine {
  type: 'bad-sample';
  step: number;
  epoch: number;
  sample: number; // its index in the training split
  message: string; // the file and what its decoder said
}

export interface EvalLine {
  type: 'eval';
  step: number;
  epoch: number;
  samples: number;
  loss: number;
  accuracy: number | null;
  top_k: number | null;
  k: number;
  mae: number; // null in the file for a model with several outputs (each output's is mae.<output>)
  /**
   * The config's metrics, by key (precision_macro, auc, <module>.<key>, ...; with several outputs
   * <key>.<output> and <module>.<key>.<output>); absent without `metrics`.
   */
  metrics?: Record<string, number | null>;
  /**
   * A model with several outputs: each output's figures, as its loss measures them (accuracy only
   * with classes, top_k only with a categorical loss and more classes than k; a figure the output
   * does not have is absent): its mean loss (its loss weight not applied), accuracy, top-k
   * accuracy and mean absolute error. accuracy and top_k above are then null.
   */
  [output: `loss.${string}`]: number;
  [output: `accuracy.${string}`]: number;
  [output: `top_k.${string}`]: number;
  [output: `mae.${string}`]: number;
}

/** checkpoint.best: runs/<name>/best/ now holds the weights of this evaluation's step. */
export interface BestLine {
  type: 'best';
  step: number;
  epoch: number;
  monitor: string; // eval.loss, eval.accuracy, ...
  mode: 'min' | 'max';
  value: number;
  previous_step: number | null; // the best before this one
  previous_value: number | null;
}

/** Early stopping ended the run after this step. */
export interface StopLine {
  type: 'stop';
  step: number;
  epoch: number;
  reason: 'early_stopping';
  monitor: string;
  mode: 'min' | 'max';
  patience: number;
  min_delta: number;
  wait: number; // evaluations without an improvement
  best_step: number | null;
  best_value: number | null;
  message: string;
}

/** The plateau schedule lowered the learning rate after this evaluation. */
export interface LrLine {
  type: 'lr';
  step: number;
  epoch: number;
  monitor: string;
  value: number; // the monitored value of the evaluation that lowered it
  from: number;
  to: number;
}

/** restoreBest: final/ holds the weights of `from_step`, not those of the last step. */
export interface RestoreLine {
  type: 'restore';
  step: number; // the run's last step
  from_step: number;
  monitor: string;
  value: number | null; // the monitored value at from_step
}

export type WatchLine = BestLine | StopLine | LrLine | RestoreLine;
