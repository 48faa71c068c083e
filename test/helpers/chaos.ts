// Helpers of the chaos tests (test/integration/chaos-*.test.ts): find the worker processes of a
// run, wait for a run to reach a step, kill things, and run the CLI as a child that can be
// signalled while it trains.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));

/** The worker processes whose parent is `parentPid` (a coordinator): rank -> pid, from MGPU_RANK. */
export function workerPids(parentPid: number): Map<number, number> {
  const r = spawnSync('ps', ['--ppid', String(parentPid), '-o', 'pid=,args='], { encoding: 'utf8' });
  const out = new Map<number, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m || !m[2]!.includes('worker/main')) continue;
    const pid = Number(m[1]);
    if (!isAlive(pid)) continue;
    let env: string;
    try {
      env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const rank = /(?:^|\0)MGPU_RANK=(\d+)(?:\0|$)/.exec(env)?.[1];
    if (rank !== undefined) out.set(Number(rank), pid);
  }
  return out;
}

/** True while the process exists and is not a zombie (an exited child nobody has reaped yet). */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S ...": the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** The process state letter (R, S, T for stopped, Z...), or null when it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `cond` every 15 ms until it returns a truthy value; fails after `timeoutMs` naming `what`. */
export async function waitFor<T>(cond: () => T | null | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(15);
  }
}

export type MetricsLine = { type: string; step: number; ranks?: number[]; message?: string; action?: string; [k: string]: unknown };

/** The complete lines of a metrics.jsonl (a torn last line is ignored); [] while it does not exist. */
export function readMetrics(file: string): MetricsLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((l) => {
    try {
      return l.trim() ? [JSON.parse(l) as MetricsLine] : [];
    } catch {
      return [];
    }
  });
}

/** The last step with a 'train' line (log.every must be 1 for this to follow every step). */
export function lastTrainStep(file: string): number {
  let last = 0;
  for (const l of readMetrics(file)) if (l.type === 'train') last = Math.max(last, l.step);
  return last;
}

/** Waits until the run writing `metricsFile` has completed at least `step` steps. */
export function waitForStep(metricsFile: string, step: number, timeoutMs = 60_000): Promise<number> {
  return waitFor(
    () => {
      const s = lastTrainStep(metricsFile);
      return s >= step ? s : null;
    },
    timeoutMs,
    `step ${step} in ${metricsFile}`,
  );
}

/** How long waitForRunStep waits at most: a net for a run that hangs, far above what a loaded machine needs. */
export const SAFETY_NET_MS = 600_000;

/**
 * Waits until the run writing `metricsFile` has completed at least `step` steps, for as long as
 * that run goes on: when `run` settles first, it fails at once with the run's exit and stderr
 * (no fixed wall-clock budget that a loaded machine overruns). `safetyNetMs` only ends a wait on
 * a run that hangs before the step.
 */
export async function waitForRunStep(
  run: Promise<{ code: number | null; stderr: string }>,
  metricsFile: string,
  step: number,
  safetyNetMs = SAFETY_NET_MS,
): Promise<number> {
  let ended: { code: number | null; stderr: string } | null = null;
  void run.then((r) => (ended = r));
  return waitFor(
    () => {
      const s = lastTrainStep(metricsFile);
      if (s >= step) return s;
      if (ended) throw new Error(`the run ended (exit ${ended.code}) at step ${s}, before step ${step}:\n${ended.stderr}`);
      return null;
    },
    safetyNetMs,
    `step ${step} in ${metricsFile}`,
  );
}

export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts `mgpu-train <args>` as a child process (not waited for); `ownProcessGroup`: as the
 * leader of a new process group (its pid is the group id), as a shell starts a job.
 */
export function startCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; ownProcessGroup?: boolean } = {}): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.ownProcessGroup ?? false,
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err }));
  });
  return { child, stdout: () => out, stderr: () => err, done };
}

/** Runs the CLI to its end, with a generous timeout. */
export async function runCliAsync(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  const run = startCli(args, opts);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  const r = await run.done;
  clearTimeout(timer);
  return r;
}

/** Writes a JSON experiment config; returns its path. */
export function writeConfigFile(dir: string, name: string, config: Record<string, unknown>): string {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(config, null, 1));
  return file;
}

/** The final weights file of a CLI run. */
export function finalWeights(runDir: string): Buffer {
  return fs.readFileSync(path.join(runDir, 'final', 'weights.bin'));
}

/** Complete checkpoint directories (step-<k>) of a run, as step numbers, ascending. */
export function checkpointSteps(runDir: string): number[] {
  const root = path.join(runDir, 'checkpoints');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .map((n) => /^step-(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null && fs.existsSync(path.join(root, m[0], 'trainer-state.json')))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}
