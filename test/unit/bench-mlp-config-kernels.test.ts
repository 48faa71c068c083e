// The scaling scripts hand `mgpu-train benchmark` the config scripts/bench/mlp-benchmark.ts
// writes: it must load as the project loads any experiment, give the MLP module, the synthetic
// MNIST-shaped rows asked for, and the kernel set asked for ('shipped' rows are wasm's kernels as
// published: a config that kept mgpu-train's would time the wrong baseline and nothing would say so).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mlpBench } from '../../scripts/bench/mlp-benchmark.ts';
import { loadConfig } from '../../src/config/load.ts';

test("the MLP benchmark's config loads with its rows, its module and the kernel set asked for", async () => {
  const made: string[] = [];
  try {
    for (const [kernels, replaced] of [
      ['shipped', false],
      ['mgpu', true],
    ] as const) {
      const b = mlpBench(96, 'wasm', kernels, 7, 3);
      made.push(path.dirname(b.config));
      assert.deepEqual([b.steps, b.warmup, b.kernels, b.backend], [7, 3, kernels, 'wasm']);
      const cfg = await loadConfig(b.config);
      assert.equal(cfg.devices.replaceWasmKernels, replaced, `kernels ${kernels}`);
      assert.equal(cfg.devices.backend, 'wasm');
      assert.deepEqual(cfg.data.train, { type: 'synthetic', shape: [784], classes: 10, count: 96, labels: 'onehot' });
      assert.equal(path.basename(cfg.model.module!), 'mlp-model.ts');
      assert.ok(fs.existsSync(cfg.model.module!), `${cfg.model.module} exists`);
      assert.equal(cfg.optimizer.name, 'sgd');
    }
  } finally {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  }
});
