// What an evaluation and a prediction return (evaluate.ts): the figures over the whole eval
// set, and every output of the model for every row.

/** One output's figures, for a model with several (EvalResult.outputs). */
export interface OutputFigures {
  loss: number; // its mean loss, weighted by the eval set's sample weights, without its loss weight
  accuracy: number | null; // null when its loss has no classes (mean squared error)
  topK: number | null; // top-k accuracy; null unless its loss is categorical with more classes than k
  mae: number;
}

export interface EvalResult {
  samples: number;
  loss: number; // mean per-sample loss (regularisation not included)
  accuracy: number | null; // null for losses without classes (mean squared error), and with several outputs (see outputs)
  topK: number | null; // top-k accuracy; null without classes or with k >= classes, and with several outputs
  k: number;
  mae: number; // NaN for a model with several outputs (metrics.jsonl writes null; each output's is in outputs)
  /** A model with several outputs: each output's mean loss (without its loss weight), by output name; else null. */
  outputLosses: Record<string, number> | null;
  /** A model with several outputs: each output's figures, by output name, in the model's order; else null. */
  outputs: Record<string, OutputFigures> | null;
  /**
   * The config's metrics, keyed as metrics.jsonl logs them, in its order (several outputs: each
   * metric per output it suits, `<key>.<output>`); null without `metrics`.
   */
  metrics: Record<string, number | null> | null;
}

/** One output of the model over every predicted row: float32 [rows, ...its shape]. */
export interface PredictedOutput {
  name: string; // the output's layer name (model.outputNames)
  values: Float32Array;
  shape: number[];
}
