// Two machines on separate network stacks (scripts/two-machines.sh): network namespaces node-a
// and node-b, each with its own hostname and /dev/shm, joined over a bridge by link-local TCP.
// `twoMachines(t)` sets them up for one test and tears them down after it, whether it passed or
// failed (and on the test process's exit); a crashed earlier run's leftovers are removed by the
// next set-up. Skips with the reason where it lacks root or `ip`/`tc` or MPI, and fails instead
// under MGPU_REQUIRE_MPI=1 (CI runs as root with it set).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { MPI_ENV, mpiUnavailable, type MpiRun } from './mpi.ts';

export const SCRIPT = fileURLToPath(new URL('../../scripts/two-machines.sh', import.meta.url));
export const RSH = fileURLToPath(new URL('../../scripts/two-machines-rsh.sh', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
export const HOSTS = ['node-a', 'node-b'] as const;
export type Host = (typeof HOSTS)[number];

/** mpirun settings that keep Open MPI on the bridge, over TCP alone. */
export const NET_MCA = [
  ['plm_rsh_agent', RSH],
  ['plm_rsh_no_tree_spawn', '1'],
  ['btl', 'tcp,self'],
  ['btl_tcp_if_include', '169.254.77.0/24'],
  ['oob_tcp_if_include', '169.254.77.0/24'],
].flatMap(([k, v]) => ['--mca', k!, v!]);

let count = 0;

export interface Run extends MpiRun {
  /** When the command exited, and when the last process holding its output was gone (Date.now()). */
  exitedAt: number;
  closedAt: number;
}

/** A qdisc's counters: its kind (tbf, noqueue...), bytes and packets sent, packets dropped, and overlimits (times a packet had to wait). */
export interface QdiscStats {
  kind: string;
  bytes: number;
  packets: number;
  dropped: number;
  overlimits: number;
}

export class TwoMachines {
  readonly env: NodeJS.ProcessEnv;
  constructor(
    readonly id: string,
    loss = 0,
  ) {
    this.env = { ...process.env, ...MPI_ENV, MGPU_NET_ID: id, MGPU_NET_OWNER: String(process.pid), MGPU_NET_LOSS: loss ? String(loss) : '' };
  }

  private sh(args: string[]): string {
    return execFileSync(SCRIPT, args, { env: this.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }
  up(): void {
    this.sh(['up']);
  }
  down(): void {
    spawnSync(SCRIPT, ['down'], { env: this.env, stdio: 'ignore' });
  }
  link(host: Host, state: 'up' | 'down'): void {
    this.sh(['link', host, state]);
  }
  /** `tc qdisc replace dev eth0 root <qdisc>` on the host; [] removes it. */
  shape(host: Host, qdisc: string[]): void {
    this.sh(['shape', host, ...(qdisc.length ? qdisc : ['none'])]);
  }
  /** The counters of the qdisc at the root of the host's eth0 (`tc -s qdisc show`): what its shaper sent and held back. */
  qdisc(host: Host): QdiscStats {
    const out = this.sh(['stats', host]);
    const m = /^qdisc (\S+) \S+ root[^\n]*\n\s*Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)/m.exec(out);
    if (!m) throw new Error(`no root qdisc with counters in the stats of ${host}:\n${out}`);
    return { kind: m[1]!, bytes: Number(m[2]), packets: Number(m[3]), dropped: Number(m[4]), overlimits: Number(m[5]) };
  }
  /** Frames node-b's lossy cable (MGPU_NET_LOSS) passed and dropped so far. */
  lossyCounts(): { passed: number; dropped: number } {
    const m = /lossy cable: passed (\d+) dropped (\d+)/.exec(this.sh(['stats', 'node-b']));
    return { passed: Number(m?.[1] ?? 0), dropped: Number(m?.[2] ?? 0) };
  }
  /** Every process running on the host (in its network namespace). */
  pids(host: Host): number[] {
    return this.sh(['pids', host]).split('\n').filter(Boolean).map(Number);
  }
  /** The files left in the host's /dev/shm. */
  shmFiles(host: Host): string[] {
    return fs.readdirSync(this.sh(['shm', host]).trim());
  }

  /** `cmd` on `host`, to its end (killed after timeoutMs); onStart gets its pid. */
  run(host: Host, cmd: string[], opts: { timeoutMs?: number; onStart?: (pid: number) => void } = {}): Promise<Run> {
    const child = spawn(SCRIPT, ['run', host, ...cmd], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let exitedAt = 0;
    child.on('exit', () => (exitedAt = Date.now()));
    opts.onStart?.(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    return new Promise((resolve) =>
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, exitedAt, closedAt: Date.now() });
      }),
    );
  }

  /** `mgpu-train launch -H node-a,node-b -np 2 <mpirun args> -- <mgpu-train args>`, started on node-a. */
  launch(mpirunArgs: string[], args: string[], opts: { timeoutMs?: number; onStart?: (pid: number) => void } = {}): Promise<Run> {
    const line = [process.execPath, BIN, 'launch', '-H', HOSTS.join(','), '-np', '2', ...NET_MCA, ...mpirunArgs, '--', ...args];
    return this.run('node-a', line, opts);
  }
}

export function twoMachinesUnavailable(loss = 0): string | null {
  const r = spawnSync(SCRIPT, ['check'], { encoding: 'utf8' });
  if (r.status !== 0) return `two machines on network namespaces: ${(r.stdout || r.stderr || String(r.error)).trim()}`;
  if (loss && spawnSync('python3', ['--version']).status !== 0) return 'a lossy cable (scripts/lossy-wire.py) needs python3';
  return mpiUnavailable();
}

/**
 * Two fresh machines for this test, gone after it; null (skipped) where they cannot be made.
 * `loss`: node-b's cable drops that fraction of the packets each way.
 */
export function twoMachines(t: TestContext, opts: { loss?: number } = {}): TwoMachines | null {
  const why = twoMachinesUnavailable(opts.loss);
  if (why !== null) {
    if (process.env.MGPU_REQUIRE_MPI === '1') throw new Error(`MGPU_REQUIRE_MPI=1 but ${why}`);
    t.skip(why);
    return null;
  }
  const m = new TwoMachines(`${process.pid % 1_000_000}${count++}`, opts.loss);
  const onExit = () => m.down();
  process.on('exit', onExit);
  t.after(() => {
    m.down();
    process.off('exit', onExit);
  });
  m.up();
  return m;
}
