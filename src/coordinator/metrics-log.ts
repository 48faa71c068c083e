// runs/<name>/metrics.jsonl: one JSON object a line, appended as the run goes, so a crash
// loses at most the line being written.
import fs from 'node:fs';

export interface TrainLine {
  type: 'train';
  step: number; // updates applied so far (1-based: the line is written after step `step`)
  epoch: number;
  loss: number; // mean training loss over the steps since the previous line
  lr: number;
  samples_per_sec: number;
  compute_max_ms: number; // per step, averaged since the previous line: slowest worker
  compute_min_ms: number; // fastest worker
  sync_ms: number; // reduce + optimizer + publish
  data_ms: number; // staging the next shards into the slab
  step_ms: number; // wall time of a step
}

export interface EvalLine {
  type: 'eval';
  step: number;
  epoch: number;
  samples: number;
  loss: number;
  accuracy: number | null;
  mae: number;
}

export class MetricsLog {
  private readonly fd: number;
  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a');
  }
  write(line: TrainLine | EvalLine): void {
    fs.writeSync(this.fd, JSON.stringify(line) + '\n');
  }
  close(): void {
    fs.closeSync(this.fd);
  }
}
