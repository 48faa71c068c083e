// The multi-machine tests run several "machines" on this one: `mpirun -np M mgpu-train train ...`,
// each rank a coordinator with its own simulated GPUs. They need Open MPI (mpirun) and the
// project's MPI binding (npm run build:mpi); without them they are skipped with the reason, and
// with MGPU_REQUIRE_MPI=1 (set by .ci/run) they fail instead.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { loadAddon } from '../../src/shared/native-addon.ts';

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));

export function mpiUnavailable(): string | null {
  try {
    execFileSync('mpirun', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'mpirun is not on PATH (apt-get install openmpi-bin libopenmpi-dev)';
  }
  const got = loadAddon('mgpu_mpi', 'MPI', ['init'], 'native/mpi');
  return got.addon ? null : `${got.reason} (npm run build:mpi)`;
}

/** Skips (or under MGPU_REQUIRE_MPI=1 fails) when MPI is missing; true when the test may run. */
export function needMpi(t: TestContext): boolean {
  const why = mpiUnavailable();
  if (why === null) return true;
  if (process.env.MGPU_REQUIRE_MPI === '1') throw new Error(`MGPU_REQUIRE_MPI=1 but ${why}`);
  t.skip(why);
  return false;
}

export const MPI_ENV = {
  // CI runs as root; Open MPI refuses that unless told; and this machine has fewer cores than ranks.
  OMPI_ALLOW_RUN_AS_ROOT: '1',
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
  OMPI_MCA_rmaps_base_oversubscribe: '1',
};

export interface MpiRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `mpirun -np M mgpu-train <args>` (or an MPMD line: one argument list per rank), to its end;
 * `rankEnv`: variables for one rank of an MPMD line alone (set through env(1)).
 */
export function runMpi(
  ranks: number | string[][],
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; rankEnv?: Array<Record<string, string>>; onStart?: (pid: number) => void } = {},
): Promise<MpiRun> {
  const own = (i: number) => Object.entries(opts.rankEnv?.[i] ?? {}).map(([k, v]) => `${k}=${v}`);
  const line =
    typeof ranks === 'number'
      ? ['-np', String(ranks), process.execPath, BIN, ...args]
      : ranks.flatMap((a, i) => [...(i ? [':'] : []), '-np', '1', ...(own(i).length ? ['env', ...own(i)] : []), process.execPath, BIN, ...a]);
  const child = spawn('mpirun', line, { env: { ...process.env, ...MPI_ENV, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  opts.onStart?.(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The final weights of a CLI run (runDir/final/weights.bin) as floats. */
export function finalFloats(runDir: string): Float32Array {
  const b = fs.readFileSync(path.join(runDir, 'final', 'weights.bin'));
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
