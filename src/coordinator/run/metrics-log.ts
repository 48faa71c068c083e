// runs/<name>/metrics.jsonl: one JSON object a line, appended as the run goes, so a crash
// loses at most the line being written.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from '../../shared/atomic-write.ts';
import type { BadSampleLine, EvalLine, EventLine, TrainLine, WatchLine } from '../../shared/metrics-lines.ts';
import { EventWriter, trimEventFiles } from './tensorboard.ts';

// train.ts imports these two from here.

export class MetricsLog {
  private readonly fd: number;
  /** `keepThrough`: on resume, lines after this step (from the interrupted run) are dropped. */
  constructor(
    readonly file: string,
    keepThrough: number | null = null,
  ) {
    if (keepThrough !== null && fs.existsSync(file)) {
      const kept = fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => {
          if (!l.trim()) return false;
          try {
            return (JSON.parse(l) as { step: number }).step <= keepThrough;
          } catch {
            return false; // a line torn by the crash
          }
        });
      writeFileAtomically(file, kept.map((l) => l + '\n').join(''));
      trimEventFiles(path.dirname(file), keepThrough, writeFileAtomically);
    }
    this.fd = fs.openSync(file, 'a');
    this.events = new EventWriter(path.dirname(file));
  }
  private readonly events: EventWriter;
  write(line: TrainLine | EvalLine | EventLine | WatchLine | BadSampleLine): void {
    fs.writeSync(this.fd, JSON.stringify(line) + '\n');
    // The same figures for TensorBoard: every number of a train or eval line, as <type>/<field>.
    if (line.type === 'train' || line.type === 'eval') this.events.scalars(line.step, scalarsOf(line));
  }
  close(): void {
    fs.closeSync(this.fd);
    this.events.close();
  }
}

const NOT_SCALARS = new Set(['type', 'step', 'epoch', 'k']);

/** The numbers of a line as TensorBoard tags (one level of nesting flattened: eval/metrics/f1). */
function scalarsOf(line: object): Record<string, number> {
  const out: Record<string, number> = {};
  const type = (line as { type: string }).type;
  const add = (prefix: string, o: object) => {
    for (const [k, v] of Object.entries(o) as [string, unknown][]) {
      if (NOT_SCALARS.has(k)) continue;
      if (typeof v === 'number') out[`${prefix}/${k}`] = v;
      else if (v && typeof v === 'object' && !Array.isArray(v) && prefix === type) add(`${prefix}/${k}`, v);
    }
  };
  add(type, line);
  return out;
}
