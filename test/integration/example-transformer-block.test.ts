// The custom-layer example (examples/transformer-block: a position embedding and a Transformer
// block as layer classes of its own, registered by layers.ts) trains on 2 simulated GPUs to the
// weights plain single-process tfjs trains with the same global batches, and its saved
// model.json names the two classes.
import fs from 'node:fs';
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { sequences, FEATURES, STEPS } from '../../examples/transformer-block/data.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir } from '../helpers/train-fixture.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/transformer-block/', import.meta.url));

test('examples/transformer-block: 2 workers train the weights plain tfjs trains', async (t) => {
  const dir = tempDir('transformer-block');
  const samples = sequences(40, 7);
  const features = path.join(dir, 'x.npy');
  const labels = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [samples.length, STEPS, FEATURES], data: Float32Array.from(samples.flatMap((s) => s.x)) });
  writeNpy(labels, { dtype: 'int32', shape: [samples.length], data: Int32Array.from(samples, (s) => s.y) });
  const cfg = buildConfig(
    dir,
    {
      model: { module: path.join(EXAMPLE, 'model.ts'), customLayers: path.join(EXAMPLE, 'layers.ts') },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'npy', features, labels } },
      training: { batchSize: 16, epochs: 2, seed: 4 }, // 3 steps an epoch, the last of 8 rows
      optimizer: { name: 'adam', learningRate: 0.01 },
    },
    2,
  );
  const ref = await referenceTrain(cfg);
  const r = await train(cfg, silent);
  assert.equal(r.steps, 6);
  assertWeightsClose(t, r.weights, ref.weights, 'Transformer block, N=2', { initial: await initialWeights(cfg) });
  const saved = fs.readFileSync(r.modelPath!, 'utf8');
  for (const name of ['PositionEmbedding', 'TransformerBlock']) assert.match(saved, new RegExp(`"class_name":"${name}"`));
  ref.model.dispose();
});
