// A run gives the same bits with the native addons (mapped slab, C float kernels) as without
// them (positional I/O, JavaScript kernels): final weights and every logged gradient norm, for
// SGD through the fused reduce pass and for Adam with clipping through the two-pass one.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { floatKernels, nativeKernelsUnavailableReason } from '../../src/shared/float-kernels.ts';
import { loadMmap, mmapUnavailableReason } from '../../src/shared/mapped-memory.ts';
import { finalWeights, readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { nativeSkip } from '../helpers/native.ts';

const dir = tempDir('native-bits');
const model = writeModelModule(dir, 'l2');
const data = writeDataset(dir, 'train', 53, 'onehot', 7);
const skip = nativeSkip(
  floatKernels().kind !== 'native' ? `no C kernels: ${nativeKernelsUnavailableReason}` : !loadMmap() ? `no mapping: ${mmapUnavailableReason}` : false,
);
const WITHOUT = { ...process.env, MGPU_MMAP: '0', MGPU_NATIVE_KERNELS: '0' };

const CASES = {
  'sgd (fused pass)': { name: 'sgd', learningRate: 0.1 },
  'adam, clipNorm 0.05 (two passes)': { name: 'adam', learningRate: 0.01 },
} as const;

for (const [label, optimizer] of Object.entries(CASES)) {
  test(`with and without the native addons: the same bits (${label})`, { skip }, async () => {
    const config = writeConfigFile(dir, optimizer.name, {
      model: { module: model },
      loss: 'categoricalCrossentropy',
      data: { train: data },
      training: { batchSize: 16, epochs: 3, seed: 3, clipNorm: optimizer.name === 'adam' ? 0.05 : null },
      optimizer,
      log: { every: 1 },
    });
    const runs = [];
    for (const [tag, env] of [
      ['with', process.env],
      ['without', WITHOUT],
    ] as const) {
      const runDir = path.join(dir, 'runs', `${optimizer.name}-${tag}`);
      const r = await runCliAsync(['train', config, '--simulate', '3', '--backend', 'cpu', '--run-dir', runDir], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout + r.stderr,
        tag === 'with' ? /C kernels; slab [\d.]+ MiB, mapped/ : /JavaScript kernels \(turned off by MGPU_NATIVE_KERNELS=0\); slab [\d.]+ MiB, positional I\/O/,
      );
      runs.push({
        weights: finalWeights(runDir),
        norms: readMetrics(path.join(runDir, 'metrics.jsonl'))
          .filter((l) => l.type === 'train')
          .map((l) => l.grad_norm),
      });
    }
    assert.ok(runs[0]!.norms.length > 5, 'the runs logged their gradient norms');
    assert.deepEqual(runs[1]!.norms, runs[0]!.norms, 'the gradient norms differ');
    assert.ok(runs[1]!.weights.equals(runs[0]!.weights), 'the final weights differ');
  });
}
