// A run directory whose run trained no step: it failed or was stopped at its first step (an
// input error met by step 1, a worker that never finished it), so it holds only what a run
// writes as it starts — config.yaml, metrics.jsonl with no line past step 0, the TensorBoard
// event file — and no checkpoint or model. Nothing in it can be resumed, and nothing of a run
// that trained is lost by replacing it: the same command, run again once its input is fixed,
// takes its place (run-dir.ts), and --resume there says so (checkpoint.ts).
import fs from 'node:fs';
import path from 'node:path';

/** The only files of a run that trained no step. */
const STARTED = (name: string) => name === 'config.yaml' || name === 'metrics.jsonl' || name.startsWith('events.out.tfevents.');

/**
 * Whether `names` (mgpu-train's files at the top of `runDir`) are those of a run that trained
 * no step: nothing but what a run writes as it starts, and no line of metrics.jsonl past step 0
 * (a line that does not parse counts as one: it may be a later step's, torn).
 */
export function trainedNoStep(runDir: string, names: readonly string[]): boolean {
  if (names.length === 0 || !names.every(STARTED)) return false;
  const metrics = path.join(runDir, 'metrics.jsonl');
  if (!fs.existsSync(metrics)) return true;
  return fs
    .readFileSync(metrics, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .every((l) => {
      try {
        const step = (JSON.parse(l) as { step?: unknown }).step;
        return typeof step === 'number' && step <= 0;
      } catch {
        return false;
      }
    });
}
