// What the benchmark trains for each worker count: a network by name on synthetic rows (one
// global batch of the largest count), the devices of n workers (simulated, one per GPU, or k
// sharing each GPU), and a run of warm-up + measured steps with nothing else in it. Each value
// below is written out by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchmarkSubject, checkWorkerCounts, configFor, devicesFor, simulated } from '../../src/benchmark/bench-config.ts';
import { benchmarkNet } from '../../src/benchmark/net-source.ts';
import type { BenchmarkOptions } from '../../src/benchmark/options.ts';
import { MgpuError } from '../../src/shared/errors.ts';

const opts = (over: Partial<BenchmarkOptions> = {}): BenchmarkOptions => ({
  net: 'resnet18-cifar',
  config: null,
  sets: [],
  batch: 4,
  workers: [1, 2],
  backend: null,
  simulate: false,
  oversubscribe: false,
  steps: 3,
  warmup: 1,
  json: null,
  profile: false,
  ...over,
});

test('a network by name: synthetic rows of its input, one global batch of the largest count, warm-up + measured steps', async () => {
  const s = await benchmarkSubject(opts({ workers: [2, 4, 1], batch: 4, steps: 5, warmup: 2 }));
  assert.equal(s.what, 'resnet18-cifar');
  assert.equal(s.data, 'synthetic [32, 32, 3], 10 classes, made in memory');
  assert.equal(s.cfg.name, 'benchmark-resnet18-cifar');
  assert.equal(s.cfg.training.batchSize, 16); // 4 x 4 workers
  assert.equal(s.cfg.training.steps, 7);
  assert.equal(s.cfg.training.seed, 1);
  assert.equal(s.cfg.loss, 'categoricalCrossentropy');
  assert.deepEqual([s.cfg.optimizer.name, s.cfg.optimizer.learningRate, s.cfg.optimizer.momentum], ['momentum', 0.01, 0.9]);
  const train = s.cfg.data.train as { type: string; shape: number[]; classes: number; count: number };
  assert.deepEqual([train.type, train.shape, train.classes, train.count], ['synthetic', [32, 32, 3], 10, 16]);
});

test('--set model.classes and model.inputShape: the synthetic rows follow the new head and input', async () => {
  const s = await benchmarkSubject(opts({ net: 'resnet18', sets: ['model.classes=7', 'model.inputShape=[64,64,3]'] }));
  const train = s.cfg.data.train as { shape: number[]; classes: number };
  assert.deepEqual([train.shape, train.classes], [[64, 64, 3], 7]);
  assert.equal(s.data, 'synthetic [64, 64, 3], 7 classes, made in memory');
});

test('a network by name: its model section, input and classes; a mistyped one refused with the nearest', () => {
  assert.deepEqual(benchmarkNet('resnet18-cifar'), { model: { net: 'resnet18-cifar', classes: 10 }, inputShape: [32, 32, 3], classes: 10 });
  assert.throws(
    () => benchmarkNet('resnet5O'),
    (err: MgpuError) => {
      assert.equal(err.code, 'E_USAGE');
      assert.equal(err.message, 'no network named "resnet5O": did you mean resnet50?');
      assert.match(err.hint!, /^the networks are resnet18, .*\(mgpu-train nets lists them\); or time a model of your own with --config exp\.yaml$/);
      return true;
    },
  );
  assert.throws(() => benchmarkNet('zzzzzzzzzzzz'), /^Error: no network named "zzzzzzzzzzzz"$|no network named "zzzzzzzzzzzz"$/);
});

test('simulated: asked by --simulate or devices.simulate, or no GPU and a CPU backend', async () => {
  const base = (await benchmarkSubject(opts())).cfg; // backend auto
  assert.equal(simulated(base, opts({ simulate: true }), { gpus: 4 }), true);
  assert.equal(simulated(base, opts(), { gpus: 4 }), false);
  assert.equal(simulated(base, opts({ backend: 'cpu' }), { gpus: 0 }), true);
  assert.equal(simulated(base, opts({ backend: 'webgpu' }), { gpus: 0 }), false);
  assert.equal(simulated({ ...base, devices: { ...base.devices, simulate: 2 } }, opts({ backend: 'webgpu' }), { gpus: 4 }), true);
});

test('devices of n workers: n simulated GPUs; n of the GPUs; k workers sharing each GPU; uneven sharing refused', async () => {
  const base = (await benchmarkSubject(opts())).cfg;
  const sim = devicesFor(base, opts({ simulate: true, backend: 'cpu', oversubscribe: true }), 3, { gpus: 0 });
  assert.deepEqual([sim.simulate, sim.gpus, sim.workersPerGpu, sim.backend, sim.oversubscribe], [3, 'all', 1, 'cpu', true]);
  const two = devicesFor(base, opts({ backend: 'tfjs-node-gpu' }), 2, { gpus: 4 });
  assert.deepEqual([two.simulate, two.gpus, two.workersPerGpu, two.backend, two.oversubscribe], [0, [0, 1], 1, 'tfjs-node-gpu', false]);
  const all = devicesFor(base, opts({ backend: 'tfjs-node-gpu' }), 4, { gpus: 4 });
  assert.deepEqual(all.gpus, [0, 1, 2, 3]);
  const shared = devicesFor(base, opts({ backend: 'tfjs-node-gpu' }), 8, { gpus: 4 });
  assert.deepEqual([shared.simulate, shared.gpus, shared.workersPerGpu], [0, 'all', 2]);
  // webgpu without nvidia-smi: the one default adapter
  const webgpu = devicesFor(base, opts({ backend: 'webgpu' }), 1, { gpus: 0 });
  assert.deepEqual([webgpu.simulate, webgpu.gpus, webgpu.workersPerGpu], [0, 'all', 1]);
  const webgpu3 = devicesFor(base, opts({ backend: 'webgpu' }), 3, { gpus: 0 });
  assert.deepEqual([webgpu3.gpus, webgpu3.workersPerGpu], ['all', 3]);
  assert.throws(
    () => devicesFor(base, opts({ backend: 'tfjs-node-gpu' }), 6, { gpus: 4 }),
    (err: MgpuError) => {
      assert.equal(err.code, 'E_USAGE');
      assert.equal(err.message, '--workers: 6 workers cannot share 4 GPUs evenly');
      assert.equal(err.hint, 'use at most 4 workers (one per GPU), or a multiple of 4 (k workers sharing each GPU)');
      return true;
    },
  );
});

test("a count's run: batch x n, warm-up + measured steps, no evaluation, checkpoint, early stopping or metrics, a line every step", async () => {
  const base = (await benchmarkSubject(opts())).cfg;
  const c = configFor(base, opts({ batch: 5, steps: 6, warmup: 2, simulate: true, backend: 'cpu' }), 3, { gpus: 0 }, '/tmp/x');
  assert.equal(c.name, 'benchmark-resnet18-cifar-benchmark-3');
  assert.equal(c.runDir, '/tmp/x');
  assert.deepEqual([c.training.batchSize, c.training.steps, c.training.epochs, c.training.earlyStopping], [15, 8, null, null]);
  assert.deepEqual([c.data.eval, c.data.evalFraction], [null, null]);
  assert.equal(c.data.train, base.data.train);
  assert.deepEqual([c.log.every, c.eval.every, c.metrics, c.checkpoint.every, c.checkpoint.best], [1, 0, null, 0, null]);
  assert.equal(c.devices.simulate, 3);
  assert.equal(base.training.batchSize, 8, 'the base config is left as it was');
});

test('every count checked first: the simulated GPUs the machine holds (said for --workers), a global batch the data fills', async () => {
  const base = (await benchmarkSubject(opts())).cfg;
  const small = { cores: 2, availableBytes: 2 ** 40 };
  const o = opts({ simulate: true, backend: 'cpu', workers: [1, 9], batch: 1 });
  assert.throws(
    () => checkWorkerCounts(base, o, { gpus: 0 }, 100, small),
    (err: MgpuError) => {
      assert.equal(err.code, 'E_DEVICES');
      assert.equal(
        err.message,
        "--workers 9: each simulated GPU is a worker process on the CPU, and 9 is more than 4 per core on this machine's 2 CPU cores (at most 8)",
      );
      assert.equal(err.hint, 'time 8 workers or fewer, or pass --oversubscribe (devices.oversubscribe: true) to start them anyway');
      return true;
    },
  );
  checkWorkerCounts(base, opts({ simulate: true, backend: 'cpu', workers: [1, 8], batch: 1 }), { gpus: 0 }, 8, small);
  checkWorkerCounts(base, { ...o, oversubscribe: true }, { gpus: 0 }, 9, small);
  // 3 x 4 = 12 > 10 rows; 12 rows fill it exactly
  const four = opts({ simulate: true, backend: 'cpu', workers: [4, 1], batch: 3 });
  assert.throws(
    () => checkWorkerCounts(base, four, { gpus: 0 }, 11, small),
    (err: MgpuError) => {
      assert.equal(err.code, 'E_DATA');
      assert.equal(err.message, '--workers 4: a global batch of 12 (3 x 4 workers) is more than the 11 samples of data.train');
      assert.equal(err.hint, 'lower --batch to 2 or less, or time fewer workers');
      return true;
    },
  );
  checkWorkerCounts(base, four, { gpus: 0 }, 12, small);
  assert.throws(
    () => checkWorkerCounts(base, four, { gpus: 0 }, 3, small),
    (err: MgpuError) => err.hint === 'time 3 workers or fewer',
  );
  // on GPUs: uneven sharing is refused here, before anything runs; no capacity check
  assert.throws(
    () => checkWorkerCounts(base, opts({ backend: 'tfjs-node-gpu', workers: [1, 3] }), { gpus: 2 }, 100, small),
    /3 workers cannot share 2 GPUs evenly/,
  );
  checkWorkerCounts(base, opts({ backend: 'tfjs-node-gpu', workers: [16], batch: 1 }), { gpus: 2 }, 100, small);
});
