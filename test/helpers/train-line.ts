// A `train` line of metrics.jsonl as a run writes it, for the report's tests: loss 1/step unless
// told, the other figures fixed; `over` replaces or adds fields (its keys keep the line's order).
export function trainLine(step: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'train',
    step,
    epoch: 0,
    loss: 1 / step,
    lr: 0.01,
    samples_per_sec: 100,
    compute_max_ms: 10,
    compute_min_ms: 9,
    sync_ms: 2,
    data_ms: 1,
    step_ms: 14,
    grad_norm: 0.5,
    ...over,
  };
}
