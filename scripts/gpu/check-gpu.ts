// npm run check:gpu — what mgpu-train does on this machine's GPU, in one run:
//   1. parity: N = 1, 2, 4 workers on the GPU (devices.workersPerGpu) against plain one-process
//      tfjs on the cpu backend, 10 steps of sgd and adam on the MNIST MLP and CNN examples, real
//      digits: the max |diff| of every weight (must be <= 1e-4), and byte-identical reruns;
//   2. throughput: samples/s of the benchmark MLP (784-512-10, sgd) at global batch 512, 4096 and
//      32768 on 1, 2, 4 workers, beside plain one-process tfjs on webgpu at the same batch; and k
//      = 1, 2, 4, 8 workers sharing the GPU at 4096 rows each;
//   3. transfers: readback and upload of 1M, 5M and 25M parameters;
//   4. the step of a 20M-parameter MLP (784-4096-4096-10, adam, global batch 256), by phase.
// Exits 1 when parity fails, 2 when there is no GPU adapter. Not a test: nothing times out.
//   --allow-software  run on a software adapter (lavapipe) to try the script: no figure is then
//                     a GPU's, and the tables say so
//   --quick           fewer and smaller runs (for the software adapter)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeAdapters } from '../../src/coordinator/devices/webgpu-probe.ts';
import { train } from '../../src/coordinator/train.ts';
import { loadMnist } from '../../src/data/mnist.ts';
import { adapterLabel } from '../../src/shared/adapters.ts';
import type { Config } from '../../src/config/types.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { referenceTrain, silent, worstDiff } from '../../test/helpers/train-fixture.ts';
import { bigModelSteps } from '../bench/big-model-step.ts';
import { runMgpu, syntheticDataDir } from '../bench/run-mgpu.ts';
import { printTable, saveJson } from '../bench/table.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const args = new Set(process.argv.slice(2));
const allowSoftware = args.has('--allow-software');
const quick = args.has('--quick');
const PARITY_TOL = 1e-4;

const probe = await probeAdapters({});
if (!probe.adapter) {
  console.error(`check:gpu: no WebGPU adapter: ${probe.error}`);
  process.exit(2);
}
if (probe.adapter.software && !allowSoftware) {
  console.error(`check:gpu: the only adapter is a software one (${adapterLabel(probe.adapter)}): no GPU here. --allow-software runs the check on it anyway.`);
  process.exit(2);
}
const caveat = probe.adapter.software ? ' [SOFTWARE ADAPTER: a CPU; not GPU figures]' : '';
console.log(`check:gpu on ${adapterLabel(probe.adapter)}, ${os.cpus().length} cores, ${quick ? 'quick' : 'full'} run`);
const gpuDevices = (workers: number) => ({ backend: 'webgpu', gpus: 'all', workersPerGpu: workers, allowSoftwareAdapter: allowSoftware });

// ---- 1. parity -----------------------------------------------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-check-gpu-'));
const digits = loadMnist(0, 640, 'onehot', 'check:gpu');
writeNpy(path.join(work, 'x.npy'), digits.features);
writeNpy(path.join(work, 'y.npy'), digits.labels);

function parityConfig(model: string, optimizer: Record<string, unknown>, devices: Record<string, unknown>, run: string): Config {
  return validateConfig(
    {
      name: run,
      model: { module: path.join(root, 'examples', model, 'model.ts') },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', features: path.join(work, 'x.npy'), labels: path.join(work, 'y.npy') } },
      training: { batchSize: quick ? 32 : 64, steps: quick ? 4 : 10, seed: 1 },
      optimizer,
      devices,
      log: { every: 1000 },
      runDir: path.join(work, run),
    },
    { configPath: null, cwd: work },
  );
}

const parityRows: Array<Record<string, string | number>> = [];
let parityOk = true;
const workerCounts = quick ? [1, 2] : [1, 2, 4];
for (const model of ['mnist-mlp', 'mnist-cnn']) {
  for (const optimizer of [
    { name: 'sgd', learningRate: 0.1 },
    { name: 'adam', learningRate: 0.002 },
  ]) {
    const ref = await referenceTrain(parityConfig(model, optimizer, { simulate: 1, backend: 'cpu' }, 'ref'));
    ref.model.dispose();
    for (const n of workerCounts) {
      const run = `${model}-${optimizer.name}-n${n}`;
      const r = await train(parityConfig(model, optimizer, gpuDevices(n), run), silent);
      const d = worstDiff(r.weights, ref.weights).abs;
      const ok = d <= PARITY_TOL;
      parityOk &&= ok;
      parityRows.push({ model, optimizer: optimizer.name, workers: n, steps: r.steps, 'max |diff| vs cpu tfjs': d.toExponential(2), ok: ok ? 'yes' : 'NO' });
    }
  }
}
printTable(`Parity: webgpu workers vs plain one-process tfjs (cpu backend), every weight, tolerance ${PARITY_TOL}${caveat}`, parityRows);
const a = await train(parityConfig('mnist-mlp', { name: 'adam', learningRate: 0.002 }, gpuDevices(2), 'rerun-a'), silent);
const b = await train(parityConfig('mnist-mlp', { name: 'adam', learningRate: 0.002 }, gpuDevices(2), 'rerun-b'), silent);
const identical = Buffer.from(a.weights.buffer).equals(Buffer.from(b.weights.buffer));
parityOk &&= identical;
console.log(`byte-identical reruns (MLP, adam, 2 workers): ${identical ? 'yes' : 'NO'}`);

// ---- 2. throughput -------------------------------------------------------------------------
const batches = quick ? [256, 1024] : [512, 4096, 32768];
const steps = quick ? 8 : 30;
const dataDir = syntheticDataDir(Math.max(...batches) * 2);
const benchModel = path.join(root, 'scripts', 'bench', 'mlp-model.ts');
function plainWebgpu(batch: number): number {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'scripts', 'bench', 'plain-tfjs.ts'), 'webgpu', String(batch), String(steps), '5'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return (JSON.parse(out.trim().split('\n').pop()!) as { samples_per_sec: number }).samples_per_sec;
}
const mgpu = async (workers: number, batch: number) =>
  (await runMgpu({ dataDir, workers, batch, steps: steps + 5, backend: 'webgpu', model: benchModel, devices: gpuDevices(workers) })).samples_per_sec;

const throughput: Array<Record<string, string | number>> = [];
for (const batch of batches) {
  const plain = plainWebgpu(batch);
  const row: Record<string, string | number> = { 'global batch': batch, 'plain tfjs webgpu': Math.round(plain) };
  for (const n of workerCounts) {
    const s = await mgpu(n, batch);
    row[`mgpu ${n} worker${n > 1 ? 's' : ''}`] = Math.round(s);
    row[`x plain (${n})`] = (s / plain).toFixed(2);
  }
  throughput.push(row);
}
printTable(`Throughput, samples/s, MLP 784-512-10, sgd (mgpu: the median of steps 6..end)${caveat}`, throughput);

const perWorker = quick ? 256 : 4096;
const shared: Array<Record<string, string | number>> = [];
let one = 0;
for (const k of quick ? [1, 2] : [1, 2, 4, 8]) {
  const s = await mgpu(k, perWorker * k);
  if (k === 1) one = s;
  shared.push({
    'workers on the GPU': k,
    'rows each': perWorker,
    'global batch': perWorker * k,
    'samples/s': Math.round(s),
    'x 1 worker': (s / one).toFixed(2),
  });
}
printTable(`k workers sharing one GPU (devices.workersPerGpu), ${perWorker} rows each${caveat}`, shared);

// ---- 3. transfers --------------------------------------------------------------------------
const sizes = quick ? [1_000_000] : [1_000_000, 5_000_000, 25_000_000];
const transfers = execFileSync(process.execPath, ['--import', 'tsx', path.join(here, 'transfer.ts'), quick ? '3' : '10', ...sizes.map(String)], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
})
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, number>);
printTable(
  `Transfers on webgpu, medians (upload includes a sum and a 4-byte readback)${caveat}`,
  transfers.map((t) => ({
    parameters: t.params!,
    'readback ms': t.readback_ms!,
    'readback GB/s': t.readback_GBps!,
    'upload ms': t.upload_ms!,
    'upload GB/s': t.upload_GBps!,
  })),
);

// ---- 4. the 20M-parameter step -------------------------------------------------------------
if (!quick) {
  const big = await bigModelSteps('webgpu', [1, 2], gpuDevices);
  printTable(`MLP 784-4096-4096-10 (20.0M parameters), adam, global batch 256: one step by phase (medians)${caveat}`, big);
}

saveJson('check-gpu', { adapter: probe.adapter, quick, parity: parityRows, identical, throughput, shared, transfers });
fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(`\ncheck:gpu: parity ${parityOk ? 'passed' : 'FAILED'}`);
process.exit(parityOk ? 0 : 1);
