// A run directory holds one run. A new run (not --resume) into a directory that holds another
// run's files is refused (E_RUN_EXISTS, exit 2), naming what is there and the three ways on:
// --resume, another name or --run-dir, or --overwrite, which removes the earlier run's files
// (those in RUN_ENTRIES) and leaves, and names, any others. An empty or absent directory is
// fine, and so is one whose run trained no step (untrained-run.ts: it failed or was stopped at
// its first step, and left no checkpoint): its files are replaced, and the run says so. The
// earlier run's files go only once the new run has passed every check before its first step
// (clearEarlier), so a run refused at start-up leaves them. All of it happens under the run's
// lock (run-lock.ts), which is held until the run ends.
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from '../../shared/errors.ts';
import { listComplete } from './checkpoint.ts';
import { LOCK_FILE, takeRunLock } from './run-lock.ts';
import { trainedNoStep } from './untrained-run.ts';

/** What mgpu-train writes at the top of a run directory, by name and kind (a directory named config.yaml is not its). */
const RUN_ENTRIES: { dir: boolean; match: (name: string) => boolean }[] = [
  { dir: false, match: (n) => n === 'config.yaml' }, // the resolved config
  { dir: false, match: (n) => n === 'metrics.jsonl' },
  { dir: false, match: (n) => n.startsWith('events.out.tfevents.') }, // TensorBoard's
  { dir: true, match: (n) => n === 'checkpoints' },
  { dir: true, match: (n) => /^(final|best)(-ema)?(\.tmp-\d+)?$/.test(n) }, // saved models, and their writes cut off
  { dir: false, match: (n) => n === 'report.html' }, // mgpu-train report's
];

function isRunEntry(dir: string, name: string): boolean {
  const isDir = fs.statSync(path.join(dir, name)).isDirectory();
  return RUN_ENTRIES.some((e) => e.dir === isDir && e.match(name));
}

/** mgpu-train's files at the top of `runDir` (RUN_ENTRIES), sorted. */
function runFiles(runDir: string, names = fs.readdirSync(runDir)): string[] {
  return names.filter((n) => n !== LOCK_FILE && isRunEntry(runDir, n)).sort();
}

/** Whether `dir` holds a run that trained no step (untrained-run.ts), which a new run may take the place of. */
export function holdsUntrainedRun(dir: string): boolean {
  return fs.existsSync(dir) && fs.statSync(dir).isDirectory() && trainedNoStep(dir, runFiles(dir));
}

/** How an entry of the run directory is named in messages: checkpoints with their steps, metrics with their lines. */
function describeEntry(dir: string, name: string): string {
  const full = path.join(dir, name);
  if (name === 'checkpoints') {
    const steps = listComplete(full).map((d) => path.basename(d).slice('step-'.length));
    return steps.length ? `checkpoints/ (${steps.length} checkpoint${steps.length > 1 ? 's' : ''} up to step ${steps[0]})` : 'checkpoints/';
  }
  if (name === 'metrics.jsonl') {
    const lines = fs
      .readFileSync(full, 'utf8')
      .split('\n')
      .filter((l) => l.trim()).length;
    return `metrics.jsonl (${lines} line${lines === 1 ? '' : 's'})`;
  }
  return fs.statSync(full).isDirectory() ? `${name}/` : name;
}

export interface RunDirClaim {
  release(): void;
  /**
   * Removes the earlier run this run replaces (--overwrite, or one that trained no step), if
   * any: called once the run has passed every check before its first step, just before it
   * writes its own files, so a run refused at start-up leaves the earlier one as it was.
   */
  clearEarlier(): void;
}

/**
 * Takes `runDir` for this run: creates it, takes its lock, and (unless `resume`) refuses it when
 * it holds another run, or with `overwrite` notes that run's files for `clearEarlier` to remove.
 * `release` (on every way out of the run) removes the lock, and the directories it created when
 * nothing was written.
 */
export function claimRunDir(runDir: string, opts: { resume: boolean; overwrite: boolean; say: (text: string) => void }): RunDirClaim {
  const created = fs.mkdirSync(runDir, { recursive: true }) ?? null;
  const lock = takeRunLock(runDir, opts.say);
  const release = () => {
    lock.release();
    // A run that wrote nothing leaves nothing: the directories it created go again.
    for (let d = path.resolve(runDir); created && d.startsWith(path.resolve(created)); d = path.dirname(d)) {
      try {
        fs.rmdirSync(d);
      } catch {
        break; // not empty (or gone): keep it and what is above it
      }
    }
  };
  let clear: (() => void) | null = null;
  try {
    if (!opts.resume) clear = earlierRun(runDir, opts.overwrite, opts.say);
  } catch (err) {
    release();
    throw err;
  }
  return {
    release,
    clearEarlier() {
      clear?.();
      clear = null;
    },
  };
}

/** Refuses a directory that holds another run (unless `overwrite`); else what removes that run, or null when there is none. */
function earlierRun(runDir: string, overwrite: boolean, say: (text: string) => void): (() => void) | null {
  const names = fs
    .readdirSync(runDir)
    .filter((n) => n !== LOCK_FILE)
    .sort();
  const ours = runFiles(runDir, names);
  if (ours.length === 0) return null;
  const listed = ours.map((n) => describeEntry(runDir, n)).join(', ');
  const remove = () => {
    for (const n of ours) fs.rmSync(path.join(runDir, n), { recursive: true, force: true });
  };
  if (!overwrite && trainedNoStep(runDir, ours)) {
    return () => {
      remove();
      say(`${runDir} held a run that trained no step and left no checkpoint (${listed}): this run takes its place`);
    };
  }
  if (!overwrite) {
    throw new MgpuError('E_RUN_EXISTS', `${runDir} holds another run: ${listed}`, {
      hint:
        "continue it with --resume (resume: true from code); or give this run another name (the config's name, or --run-dir / runDir); " +
        'or replace it with --overwrite (overwrite: true), which removes those files and keeps any others',
    });
  }
  const others = names.filter((n) => !ours.includes(n));
  return () => {
    remove();
    say(`--overwrite: removed the earlier run in ${runDir} (${listed})${others.length ? `; kept what mgpu-train did not write: ${others.join(', ')}` : ''}`);
  };
}
