// The non-trainable weights after a step (BatchNorm's moving statistics, reduce/average-state.ts):
// each rank's own, averaged by the size of its shard (n_i / B), land in the master weights' tail
// and in the slab's weights region, and the EMA follows them as it follows the trainable
// weights: ema -= (1 - d_t) (ema - w), d_t = min(decay, (1 + t) / (10 + t)).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { soloCluster } from '../../src/coordinator/devices/cluster.ts';
import { averageState } from '../../src/coordinator/engine/reduce/average-state.ts';
import { flatten, slabLayout } from '../../src/shared/layout.ts';
import { Slab } from '../../src/shared/slab.ts';

const flat = flatten([
  { name: 'kernel', shape: [4], dtype: 'float32', trainable: true },
  { name: 'moving_mean', shape: [3], dtype: 'float32', trainable: false },
]);
const states = [Float32Array.of(1, -2, 0.5), Float32Array.of(10, 4, -3)];
const shards = [
  { rank: 0, start: 0, end: 3 },
  { rank: 1, start: 3, end: 8 },
];
const batch = 8;
const decay = 0.9;
const t = 3;

function close(actual: ArrayLike<number>, expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < expected.length; i++) assert.ok(Math.abs(actual[i]! - expected[i]!) < 1e-6, `${what}[${i}]: ${actual[i]} != ${expected[i]}`);
}

for (const mmap of [true, false]) {
  test(`the ranks' states averaged by shard size, published, and followed by the EMA (mmap: ${mmap})`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'avg-state-'));
    const slab = Slab.create(dir, { mmap });
    const layout = slabLayout(flat, 2, 64, 64, 7);
    slab.resize(layout, dir);
    assert.equal(slab.mode, mmap ? 'mapped' : 'positional');
    states.forEach((s, rank) => slab.write(layout.state[rank]!, s));
    const weights = Float32Array.of(0.1, 0.2, 0.3, 0.4, 7, 7, 7);
    const master = slab.floats(layout.weights, flat.total) ?? new Float32Array(flat.total);
    master.set(weights);
    if (slab.mode !== 'mapped') slab.write(layout.weights, master);
    const ema = Float32Array.of(1, 1, 1, 1, 2, 2, 2);

    await averageState({ flat, slab, layout, master, ema, emaDecay: decay, cluster: soloCluster() }, shards, batch, t);

    const mean = [0, 1, 2].map((i) => (3 / 8) * states[0]![i]! + (5 / 8) * states[1]![i]!);
    close(master, [0.1, 0.2, 0.3, 0.4, ...mean], 'master weights');
    const published = new Float32Array(flat.total);
    slab.read(layout.weights, published);
    close(published, [0.1, 0.2, 0.3, 0.4, ...mean], 'slab weights');
    const keep = 1 - Math.min(decay, (1 + t) / (10 + t));
    close(ema, [1, 1, 1, 1, ...mean.map((m) => 2 - keep * (2 - m))], 'EMA');
    slab.close();
    fs.rmSync(dir, { recursive: true });
  });
}
