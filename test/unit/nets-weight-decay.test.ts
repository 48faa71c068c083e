// model.weightDecay is TF-slim's weight_decay (slim.l2_regularizer): decay · Σ w² / 2 over every
// kernel (convolution, depthwise and dense; not biases, not BatchNorm), the model's
// regularisation loss that training adds to the data loss; its gradient is decay · w, as
// PyTorch's SGD weight_decay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { buildNet, type NetName } from '../../src/nets/nets-table.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const KERNEL = /(kernel|depthwise_kernel)$/;

for (const [name, side] of [
  ['lenet', 28],
  ['mobilenet-v2', 32],
] as [NetName, number][]) {
  test(`${name}: weightDecay 0.01 adds 0.005 · Σ kernel² to the loss, 0 adds nothing`, async () => {
    const tf = await loadTf();
    const model = buildNet(tf, name, { classes: 3, inputShape: [side, side, 3], weightDecay: 0.01 });
    const kernels = model.trainableWeights.filter((w) => KERNEL.test(w.originalName));
    assert.ok(kernels.length >= 5, `${name} has ${kernels.length} kernels`);
    let want = 0;
    for (const w of kernels) for (const v of w.read().dataSync()) want += (0.01 / 2) * v * v;
    const got = tf.addN(model.calculateLosses() as Tensor[]).dataSync()[0]!;
    assert.ok(Math.abs(got - want) <= 1e-5 * want, `regularisation loss ${got}, want ${want}`);
    assert.equal(model.calculateLosses().length, kernels.length, 'one penalty a kernel, none on biases or BatchNorm');
    model.dispose();
    const plain = buildNet(tf, name, { classes: 3, inputShape: [side, side, 3] });
    assert.equal(plain.calculateLosses().length, 0);
    plain.dispose();
  });
}
