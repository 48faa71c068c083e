// A tiny run for the tests of what a run directory holds (run-dir-*.test.ts) and of damaged
// checkpoints (checkpoint-*.test.ts): a 6-8-3 softmax model, 24 samples, 4 steps of batch 8 on
// one simulated cpu worker, a checkpoint every 2 steps, eval data; `over` replaces top-level keys.
import fs from 'node:fs';
import path from 'node:path';
import { writeConfigFile } from './chaos.ts';
import { tempDir, writeDataset, writeModelModule } from './train-fixture.ts';

export function tinyRun(tag: string, over: Record<string, unknown> = {}): { dir: string; runDir: string; config: string } {
  const dir = tempDir(tag);
  const runDir = path.join(dir, 'run');
  const config = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 4), eval: writeDataset(dir, 'eval', 8, 'onehot', 5) },
    training: { batchSize: 8, steps: 4 },
    optimizer: { name: 'adam', learningRate: 0.05 },
    checkpoint: { every: 2 },
    devices: { simulate: 1, backend: 'cpu' },
    runDir,
    ...over,
  });
  return { dir, runDir, config };
}

/** Every file under `dir` with its bytes (base64) and mtime, sorted: equal before and after means nothing was touched. */
export function snapshotFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const p = path.join(e.parentPath, e.name);
      return `${p} ${fs.statSync(p).mtimeMs} ${fs.readFileSync(p).toString('base64')}`;
    })
    .sort();
}

/** A copy of a finished run to damage: `--run-dir <copy>` continues it (resume checks the directory). */
export function copyRun(runDir: string, name: string): string {
  const copy = path.join(path.dirname(runDir), name);
  fs.cpSync(runDir, copy, { recursive: true });
  return copy;
}

/** Cuts `file` to its first `bytes` bytes. */
export function truncate(file: string, bytes: number): void {
  fs.writeFileSync(file, fs.readFileSync(file).subarray(0, bytes));
}
