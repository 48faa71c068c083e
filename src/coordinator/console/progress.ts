// What a person watching the run sees: a live bar on a terminal, plain lines in a log file.
// Under an MPI launcher or Slurm, plain lines even on a terminal: Open MPI gives each rank a
// pseudo-terminal, and the job's log would fill with the bar's carriage returns and escape
// codes. `--progress bar|plain` decides instead.
import { launchedSize } from '../../shared/mpi.ts';
import { isClosed } from './closed-output.ts';

export type ProgressStyle = 'bar' | 'plain';
export const PROGRESS_STYLES: readonly ProgressStyle[] = ['bar', 'plain'];

/** The live bar on a terminal, unless under mpirun/srun/Slurm; `asked` (--progress) decides when given. */
export function progressStyle(asked: ProgressStyle | undefined, stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): ProgressStyle {
  if (asked) return asked;
  const launched = launchedSize(env) !== null || env.SLURM_JOB_ID !== undefined;
  return stream.isTTY && !launched ? 'bar' : 'plain';
}

export interface Progress {
  step(step: number, total: number, text: string): void;
  /** `lasting`: a line to keep even when stdout is closed (how to continue a stopped run): then it goes to stderr. */
  line(text: string, lasting?: boolean): void;
  done(): void;
}

/** `1 worker`, `2 workers`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function makeProgress(
  every: number,
  stream: NodeJS.WriteStream = process.stdout,
  fallback: NodeJS.WriteStream = process.stderr,
  style: ProgressStyle = progressStyle(undefined, stream),
): Progress {
  // A lasting line written to the fallback instead: true when stdout is closed.
  const lasting = (text: string): boolean => {
    if (!isClosed(stream)) return false;
    fallback.write(text + '\n');
    return true;
  };
  if (style === 'plain') {
    return {
      step: (step, total, text) => {
        if (step % every === 0 || step === total) stream.write(`step ${step}/${total} ${text}\n`);
      },
      line: (text, keep) => {
        if (!(keep && lasting(text))) stream.write(text + '\n');
      },
      done: () => {},
    };
  }
  let live = false;
  const clear = () => {
    if (live) stream.write('\r\x1b[2K');
    live = false;
  };
  return {
    step(step, total, text) {
      const width = 24;
      const filled = Math.round((step / total) * width);
      const bar = '='.repeat(Math.max(0, filled - 1)) + (filled ? '>' : '') + ' '.repeat(width - filled);
      clear();
      stream.write(`[${bar}] ${step}/${total} ${text}`);
      live = true;
    },
    line(text, keep) {
      if (keep && lasting(text)) return;
      clear();
      stream.write(text + '\n');
    },
    done() {
      if (live) stream.write('\n');
      live = false;
    },
  };
}
