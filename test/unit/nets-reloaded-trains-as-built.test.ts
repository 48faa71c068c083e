// A network by name saved as a run saves it and loaded back from its model.json trains exactly as
// the network built by name: the same loss and, bit for bit, the same weights and moving
// statistics after two SGD steps (on the worker's own wasm backend and kernels, in-process;
// Math.random seeded alike for the dropout), for all nine networks. A step runs every layer
// forward and backward and moves every BatchNorm's statistics. Whatever the saved config lost or
// changed (a layer's order or inbound nodes, padding, ReLU6's cap, BatchNorm's epsilon or
// momentum, the BatchNorm subclass saved as tfjs's own class) shows as a difference.
// Batches of 4: at 32x32, mobilenet-v2's last blocks are 1x1, and a BatchNorm over 2 values
// there gives non-finite gradients built by name as well (seen with batches of 2 on cpu). On the
// cpu backend one step of four of the networks took 65 s (20 s for resnet18-cifar); on wasm all
// nine train two steps in under 20.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LayersModel, Scalar, Tensor, Variable } from '@tensorflow/tfjs';
import { NET_NAMES } from '../../src/nets/net-names.ts';
import { buildNet, NETS } from '../../src/nets/nets-table.ts';
import { withSeededMathRandom } from '../../src/shared/rng.ts';
import { loadBackend } from '../../src/worker/backend.ts';
import { tempDir, type TF } from '../helpers/train-fixture.ts';
import { loadAsJsonModel, saveAsRun } from '../helpers/saved-net.ts';

const dir = tempDir('reloaded-nets');
const STEPS = 2;
const CLASSES = 3;

/** STEPS steps of plain SGD (lr 0.01) on fixed batches of 4: each step's loss, then every weight by name. */
function train(tf: TF, model: LayersModel, inputShape: number[]): { losses: number[]; weights: Map<string, Float32Array> } {
  const losses: number[] = [];
  const vars = model.trainableWeights.map((w) => (w as unknown as { val: Variable }).val);
  for (let step = 0; step < STEPS; step++) {
    tf.tidy(() => {
      const x = tf.randomUniform([4, ...inputShape], 0, 1, 'float32', 100 + step);
      const y = tf.oneHot(
        tf.tensor1d(
          [0, 1, 2, 3].map((i) => (i + step) % CLASSES),
          'int32',
        ),
        CLASSES,
      );
      const { value, grads } = withSeededMathRandom(7 + step, () =>
        tf.variableGrads(() => tf.losses.softmaxCrossEntropy<Tensor, Scalar>(y, model.apply(x, { training: true }) as Tensor), vars),
      );
      losses.push(value.dataSync()[0]!);
      for (const v of vars) v.assign(tf.sub(v, tf.mul(grads[v.name]!, 0.01)));
    });
  }
  return { losses, weights: new Map(model.weights.map((w) => [w.originalName, w.read().dataSync() as Float32Array])) };
}

for (const name of NET_NAMES) {
  test(`${name}: reloaded from its saved model.json, trains as the network built by name`, async () => {
    const { tf } = await loadBackend('wasm');
    const side = NETS[name].minSide;
    const inputShape: [number, number, number] = [side, side, NETS[name].input[2]];
    const built = withSeededMathRandom(5, () => buildNet(tf, name, { classes: CLASSES, inputShape }));
    const reloaded = await loadAsJsonModel(tf, saveAsRun(built, `${dir}/${name}`));
    assert.deepEqual(
      reloaded.layers.map((l) => `${l.name} ${l.getClassName()}`),
      built.layers.map((l) => `${l.name} ${l.getClassName()}`),
    );
    const b = train(tf, reloaded, inputShape); // the reloaded first: the built one's weights are the saved ones until it trains
    const a = train(tf, built, inputShape);
    assert.ok(a.losses.every(Number.isFinite), `built: losses ${a.losses.join(', ')}`);
    assert.deepEqual(b.losses, a.losses, 'the loss at each step');
    assert.deepEqual([...b.weights.keys()], [...a.weights.keys()]);
    for (const [w, values] of a.weights) {
      const other = b.weights.get(w)!;
      const at = values.findIndex((v, i) => !Object.is(v, other[i]));
      assert.ok(values.every(Number.isFinite), `built: ${w} is not finite`);
      assert.equal(at, -1, `${w} after ${STEPS} steps: value ${at} is ${other[at]}, built ${values[at]}`);
    }
    built.dispose();
    reloaded.dispose();
  });
}
