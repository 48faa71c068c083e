// How many simulated GPUs a machine holds (src/coordinator/devices/capacity.ts): more than 4 worker
// processes per core, or more than the available memory holds at 256 MiB each, is refused with
// E_DEVICES (exit 2) before any worker starts, unless devices.oversubscribe / --oversubscribe;
// more workers than cores is a warning. The CLI tests pin the process to one CPU (taskset), so
// the refused N is 5 on any machine and a regression never spawns more than that.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSimulated, SIMULATED_WORKER_BYTES } from '../../src/coordinator/devices/capacity.ts';
import { runDevices } from '../../src/coordinator/engine/session.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { workerPids } from '../helpers/chaos.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const GiB = 2 ** 30;
const big = { cores: 2, availableBytes: 64 * GiB };

const refused = (re: RegExp) => (err: unknown) => err instanceof MgpuError && err.code === 'E_DEVICES' && err.exitCode === 2 && re.test(err.message);

test('up to the cores: no warning; up to 4 per core: a warning; beyond: E_DEVICES with what to do', () => {
  assert.equal(checkSimulated(2, big, false), null);
  assert.match(checkSimulated(3, big, false)!, /^warning: 3 simulated GPUs on 2 CPU cores: the workers share the cores/);
  assert.match(checkSimulated(8, big, false)!, /^warning: 8 simulated GPUs on 2 CPU cores/);
  assert.throws(
    () => checkSimulated(9, big, false),
    refused(
      /^devices\.simulate 9: each simulated GPU is a worker process on the CPU, and 9 is more than 4 per core on this machine's 2 CPU cores \(at most 8\)$/,
    ),
  );
  assert.throws(
    () => checkSimulated(1000, big, false),
    (err: unknown) =>
      refused(/more than 4 per core/)(err) &&
      /use --simulate 8 or fewer, or pass --oversubscribe \(devices\.oversubscribe: true\)/.test((err as MgpuError).hint ?? ''),
  );
});

test('more workers than the available memory holds at 256 MiB each: E_DEVICES naming both amounts', () => {
  const small = { cores: 64, availableBytes: 1 * GiB }; // 4 workers
  assert.equal(SIMULATED_WORKER_BYTES, 256 * 2 ** 20);
  assert.equal(checkSimulated(4, small, false), null);
  assert.throws(
    () => checkSimulated(5, small, false),
    (err: unknown) =>
      refused(/^devices\.simulate 5: 5 worker processes need at least 1\.3 GiB of memory \(256 MiB each, more for large models\); 1\.0 GiB is available$/)(
        err,
      ) && /use --simulate 4 or fewer/.test((err as MgpuError).hint ?? ''),
  );
  assert.throws(
    () => checkSimulated(1, { cores: 1, availableBytes: 0.1 * GiB }, false),
    (err: unknown) => refused(/need at least/)(err) && /free some memory/.test((err as MgpuError).hint ?? ''),
  );
});

test('oversubscribe starts them anyway, with a warning', () => {
  assert.match(checkSimulated(9, big, true)!, /^warning: 9 simulated GPUs on 2 CPU cores/);
  assert.match(
    checkSimulated(5, { cores: 64, availableBytes: 1 * GiB }, true)!,
    /^warning: 5 simulated GPUs \(--oversubscribe\) need at least 1\.3 GiB of memory; 1\.0 GiB is available/,
  );
});

test('runDevices checks --simulate N and the no-GPU default before any worker starts, and prints the warning', async () => {
  const dir = tempDir('capacity-devices');
  const raw = {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 't', 10, 'onehot', 1) },
    training: { batchSize: 4 },
    optimizer: { name: 'sgd' },
  };
  const lines: string[] = [];
  const out = { step() {}, line: (l: string) => void lines.push(l), done() {} };
  assert.equal((await runDevices(buildConfig(dir, raw, 3), out, 'training', big)).devices.length, 3);
  assert.match(lines.join('\n'), /warning: 3 simulated GPUs on 2 CPU cores/);
  await assert.rejects(runDevices(buildConfig(dir, raw, 9), out, 'training', big), refused(/devices\.simulate 9/));
  const over = buildConfig(dir, { ...raw, devices: { oversubscribe: true } }, 9);
  assert.equal((await runDevices(over, out, 'training', big)).devices.length, 9);
});

// ---- through the CLI, pinned to one CPU ----------------------------------------------------

const BIN = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));
const hasTaskset = spawnSync('taskset', ['--version']).status === 0;
/** The first CPU this process may run on. */
const firstCpu = (/Cpus_allowed_list:\s*(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8')) ?? [])[1] ?? '0';

/** Runs the CLI on one CPU, watching for worker processes while it runs. */
async function runPinned(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number; workersSeen: number }> {
  const t0 = Date.now();
  const child = spawn('taskset', ['-c', firstCpu, process.execPath, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  let workersSeen = 0;
  const watch = setInterval(() => {
    workersSeen = Math.max(workersSeen, workerPids(child.pid!).size);
  }, 20);
  const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearInterval(watch);
  clearTimeout(kill);
  return { code, stdout, stderr, ms: Date.now() - t0, workersSeen };
}

const cliDir = tempDir('capacity-cli');
const cliConfig = path.join(cliDir, 'exp.json');
fs.writeFileSync(
  cliConfig,
  JSON.stringify({
    model: { module: writeModelModule(cliDir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(cliDir, 'train', 20, 'onehot', 2) },
    training: { batchSize: 5, steps: 2 },
    optimizer: { name: 'sgd' },
  }),
);

test(
  '--simulate 5 on one core: exit 2 before any worker starts, E_DEVICES, no run directory',
  { skip: !hasTaskset && 'taskset is not installed' },
  async (t) => {
    const runDir = path.join(cliDir, 'refused');
    const r = await runPinned(['train', cliConfig, '--simulate', '5', '--backend', 'cpu', '--run-dir', runDir]);
    t.diagnostic(`${r.ms} ms: ${r.stderr.trim().split('\n').join(' | ')}`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^error E_DEVICES: devices\.simulate 5: each simulated GPU is a worker process on the CPU, and 5 is more than 4 per core on this machine's 1 CPU core \(at most 4\)\n\s+hint: use --simulate 4 or fewer, or pass --oversubscribe/,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace was printed');
    assert.equal(r.workersSeen, 0, 'a worker process was started');
    assert.ok(!fs.existsSync(runDir), 'a run directory was created');
  },
);

test('--oversubscribe lets --simulate 5 on one core past the check, with a warning', { skip: !hasTaskset && 'taskset is not installed' }, async () => {
  // A shared-memory directory that does not exist stops the run right after the check, before
  // any worker starts.
  const r = await runPinned([
    'train',
    cliConfig,
    '--simulate',
    '5',
    '--oversubscribe',
    '--backend',
    'cpu',
    '--run-dir',
    path.join(cliDir, 'over'),
    '--set',
    'devices.shmDir=/nonexistent',
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stdout, /warning: 5 simulated GPUs on 1 CPU core: the workers share the cores/);
  assert.match(r.stderr, /error E_SHM: shared-memory directory \/nonexistent does not exist/);
  assert.equal(r.workersSeen, 0);
});
