// The gradient allreduce over a network, overlapped with the machine's sum or not (issue #20):
// 2 MPI ranks over TCP, for 1M, 5M and 25M floats: Open MPI's own allreduce from C (the floor,
// mpi-allreduce-floor.c, compiled here), the binding's, the machine's sum then the allreduce
// (MGPU_ALLREDUCE_CHUNK=0) and the two overlapped in chunks; then a 2 x 1 training step of the
// 20M-parameter MLP with and without the overlap. Tables only: nothing here asserts a time.
//   node --import tsx scripts/bench/mpi-overlap.ts [--reps 3] [--steps 8] [--sizes 1e6,5e6,25e6] [--links 10gbit,1gbit]
// The link: the two-machine harness (scripts/two-machines.sh, or MGPU_TWO_MACHINES=<its path>:
// two network namespaces joined by veths), unshaped and shaped by netem to 10 Gbit/s + 0.1 ms
// and 1 Gbit/s + 1 ms (by tbf to the rate alone where the kernel has no netem); --links picks
// among unshaped, 10gbit, 1gbit. Without it (not root, no script), TCP over this machine's
// loopback (--mca btl tcp,self), unshaped only.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_CHUNK } from '../../src/coordinator/engine/overlapped-allreduce.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    steps: { type: 'string', default: '8' },
    sizes: { type: 'string', default: '1e6,5e6,25e6' },
    links: { type: 'string', default: 'unshaped,10gbit,1gbit' }, // which of the harness's shapes
  },
});
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-overlap-'));
const sizes = values.sizes.split(',').map(Number);
const chunks = [1 << 18, 1 << 20, 1 << 22]; // 1, 4 and 16 MiB
const env = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1', OMPI_MCA_rmaps_base_oversubscribe: '1' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** A link's shape: netem's rate and delay, or tbf's rate alone where the kernel lacks netem. */
interface Shape {
  name: string;
  rate: string | null; // tc's rate ('1gbit'); null: unshaped
  delay: string;
  burst: string; // tbf's bucket: above a 64 KiB GSO packet, about 2 ms at the rate
  bytesPerMs: number | null;
}
const unshaped = (name: string): Shape => ({ name, rate: null, delay: '', burst: '', bytesPerMs: null });

interface Link {
  name: string;
  shaped: boolean; // false: loopback, its one unshaped row whatever --links says
  shapes: Shape[];
  mpirun(prog: string[], vars?: Record<string, string>): string[];
  env: NodeJS.ProcessEnv; // what mpirun runs with
  /** Shapes both machines' links (null: unshaped); says how, when it had to fall back. */
  shape(s: Shape | null): string;
  close(): void;
}

const tcp = ['--mca', 'btl', 'tcp,self'];
const exported = (vars: Record<string, string>) => Object.keys(vars).flatMap((k) => ['-x', k]);

/** The two-machine harness's namespaces, or TCP over loopback where it cannot run. */
function openLink(): Link {
  const script = process.env.MGPU_TWO_MACHINES ?? path.join(root, 'scripts', 'two-machines.sh');
  const why = fs.existsSync(script) ? spawnSync('bash', [script, 'check'], { encoding: 'utf8' }) : null;
  if (why?.status === 0) return harnessLink(script);
  console.log(`(no two-machine harness: ${why ? why.stdout.trim() : `${script} is not there`}; TCP over loopback, unshaped)`);
  return {
    name: 'TCP over loopback (one network stack)',
    shaped: false,
    shapes: [unshaped('loopback, unshaped')],
    mpirun: (prog, vars = {}) => ['mpirun', '-np', '2', ...tcp, ...exported(vars), ...prog],
    env,
    shape: () => '',
    close: () => {},
  };
}

/** Machines node-a and node-b of scripts/two-machines.sh (its invocation, as its header gives it). */
function harnessLink(script: string): Link {
  const netEnv = { ...env, MGPU_NET_ID: `ovb${process.pid}`, MGPU_NET_OWNER: String(process.pid) };
  const harness = (...args: string[]) => execFileSync('bash', [script, ...args], { env: netEnv, stdio: 'inherit' });
  harness('up');
  const subnet = '169.254.77.0/24';
  const rsh = path.join(path.dirname(script), 'two-machines-rsh.sh');
  return {
    name: 'two network namespaces joined by veths (two-machines.sh)',
    shaped: true,
    shapes: [
      unshaped('veth, unshaped'),
      { name: '10 Gbit/s + 0.1 ms', rate: '10gbit', delay: '0.1ms', burst: '2500kb', bytesPerMs: 1.25e6 },
      { name: '1 Gbit/s + 1 ms', rate: '1gbit', delay: '1ms', burst: '256kb', bytesPerMs: 1.25e5 },
    ],
    mpirun: (prog, vars = {}) => [
      ...['bash', script, 'run', 'node-a', 'mpirun', '-H', 'node-a,node-b', '-np', '2', '--mca', 'plm_rsh_agent', rsh, ...tcp],
      ...['--mca', 'btl_tcp_if_include', subnet, '--mca', 'oob_tcp_if_include', subnet, ...exported(vars), ...prog],
    ],
    env: netEnv,
    shape: (s) => shapeBoth(script, netEnv, harness, s),
    close: () => harness('down'),
  };
}

/** netem's rate and delay on both machines' eth0, or tbf's rate alone where netem is missing. */
function shapeBoth(script: string, netEnv: NodeJS.ProcessEnv, harness: (...args: string[]) => void, s: Shape | null): string {
  const hosts = ['node-a', 'node-b'];
  if (!s?.rate) {
    hosts.forEach((h) => harness('shape', h, 'none'));
    return '';
  }
  const netem = ['netem', 'delay', s.delay, 'rate', s.rate];
  const tried = spawnSync('bash', [script, 'shape', 'node-a', ...netem], { env: netEnv, encoding: 'utf8' });
  if (tried.status === 0) {
    harness('shape', 'node-b', ...netem);
    return `netem delay ${s.delay} rate ${s.rate}`;
  }
  // This kernel has no netem ("Specified qdisc kind is unknown"): the rate alone, by tbf.
  hosts.forEach((h) => harness('shape', h, 'tbf', 'rate', s.rate!, 'burst', s.burst, 'latency', '50ms'));
  return `tbf rate ${s.rate}, no delay: netem failed here (${tried.stderr.trim()})`;
}

const link = openLink();
process.on('exit', () => {
  link.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130)); // tear the namespaces down
const run = (prog: string[], vars: Record<string, string> = {}) => {
  const [cmd, ...args] = link.mpirun(prog, vars);
  return execFileSync(cmd!, args, { env: { ...link.env, ...vars }, encoding: 'utf8', maxBuffer: 1 << 24 });
};
const jsonLines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, number | boolean>);

const floor = path.join(tmp, 'mpi-allreduce-floor');
execFileSync('mpicc', ['-O2', '-o', floor, path.join(here, 'mpi-allreduce-floor.c')], { stdio: 'inherit' });
const child = [process.execPath, '--import', 'tsx', path.join(here, 'mpi-overlap-child.ts'), values.reps, chunks.join(',')];
const ms = (x: unknown) => Number(x);
const results: Record<string, unknown> = {};
for (const s of link.shapes.filter((s) => !link.shaped || values.links.split(',').includes(s.rate ?? 'unshaped'))) {
  const how = link.shape(s);
  if (how) console.log(`\n(${s.name}: ${how})`);
  const c = jsonLines(run([floor, values.reps, ...sizes.map(String)]));
  const b = jsonLines(run([...child, ...sizes.map(String)]));
  const rows = sizes.map((p) => {
    const cf = c.find((r) => r.params === p)!;
    const mine = b.filter((r) => r.params === p);
    const at = (chunk: number) => mine.find((r) => r.chunk === chunk)!;
    const row: Record<string, string | number> = {
      'floats (M)': p / 1e6,
      'line rate ms': s.bytesPerMs ? (4 * p) / s.bytesPerMs : '-',
      'C MPI_Allreduce ms': ms(cf.allreduce_ms),
      'C Iallreduce+Wait ms': ms(cf.iallreduce_wait_ms),
      'binding allreduce ms': ms(at(0).allreduce_ms),
      'local sum ms': ms(at(0).local_sum_ms),
      'sum, then allreduce ms': ms(at(0).ms),
    };
    for (const chunk of chunks) row[`overlap ${(chunk * 4) / 2 ** 20} MiB ms`] = ms(at(chunk).ms);
    row['same bits'] = mine.every((r) => r.same_bits) ? 'yes' : 'NO';
    return row;
  });
  printTable(`Allreduce of 2 machines over ${s.name} (${link.name}), medians of ${values.reps}`, rows);
  results[s.name] = { rows, step: trainStep(s.name) };
}
link.shape(null);
console.log(`saved ${saveJson('mpi-overlap', { link: link.name, results })}`);

/** A 2 x 1 training step of the 20M-parameter MLP (global batch 16), with the overlap off and on. */
function trainStep(shape: string): Array<Record<string, string | number>> {
  const modes: Array<[string, string]> = [
    ['0', 'off: sum, then one allreduce'],
    [String(DEFAULT_CHUNK), `on: chunks of ${(DEFAULT_CHUNK * 4) / 2 ** 20} MiB`],
  ];
  const rows = modes.map(([chunk, name]) => {
    const runDir = path.join(tmp, `run-${chunk}`);
    const cfg = path.join(tmp, 'exp.json');
    fs.writeFileSync(
      cfg,
      JSON.stringify({
        model: { module: path.join(root, 'scripts', 'gpu', 'mlp-20m.ts') },
        loss: 'categoricalCrossentropy',
        data: { train: { type: 'synthetic', shape: [784], classes: 10, count: 256 } },
        training: { batchSize: 16, steps: Number(values.steps) + 3, seed: 1 },
        optimizer: { name: 'adam', learningRate: 0.001 },
        devices: { simulate: 1, backend: 'wasm' },
        log: { every: 1 },
        runDir,
      }),
    );
    run([process.execPath, path.join(root, 'bin', 'mgpu-train.mjs'), 'train', cfg, '--overwrite'], { MGPU_ALLREDUCE_CHUNK: chunk });
    const lines = fs
      .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; step_ms: number; sync_ms: number })
      .filter((l) => l.type === 'train')
      .slice(3);
    return { overlap: name, 'step ms': median(lines.map((l) => l.step_ms)), 'sync ms (reduce, allreduce, adam)': median(lines.map((l) => l.sync_ms)) };
  });
  printTable(`2 machines x 1 worker over ${shape}: MLP 784-4096-4096-10 (20.0M floats), adam, global batch 16, wasm (medians of ${values.steps} steps)`, rows);
  return rows;
}
