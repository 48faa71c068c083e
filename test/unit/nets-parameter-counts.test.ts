// Each network by name, built as a worker builds it (tfjs's own initialisers, the cpu backend),
// has torchvision's trainable parameter count at its standard input and classes: the figures of
// torchvision 0.14's models (sum of p.numel() over parameters()). Built, never trained: VGG-16's
// 138M take a few seconds to draw. `mgpu-train nets` counts with zeroed kernels: the same here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LayersModel } from '@tensorflow/tfjs';
import { buildNet, type NetName } from '../../src/nets/nets-table.ts';
import { trainableParameters } from '../../src/nets/net-parameters.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const TORCHVISION: [NetName, number, number][] = [
  ['resnet18', 1000, 11_689_512],
  ['resnet34', 1000, 21_797_672],
  ['resnet50', 1000, 25_557_032],
  ['mobilenet-v2', 1000, 3_504_872],
  ['vgg16', 1000, 138_357_544],
  ['efficientnet-b0', 1000, 5_288_548],
  ['resnet18-cifar', 10, 11_173_962],
];

const trainable = (m: LayersModel) => m.trainableWeights.reduce((sum, w) => sum + w.shape.reduce<number>((a, d) => a * d!, 1), 0);

for (const [name, classes, want] of TORCHVISION) {
  test(`${name} at ${classes} classes has torchvision's ${want.toLocaleString('en-US')} trainable parameters`, async () => {
    const tf = await loadTf();
    const model = buildNet(tf, name, { classes });
    try {
      assert.equal(trainable(model), want);
      assert.deepEqual(model.outputs[0]!.shape, [null, classes]);
    } finally {
      model.dispose();
    }
    assert.equal(trainableParameters(tf, name, { classes }), want, 'counted with zeroed kernels, as mgpu-train nets counts');
  });
}

// 0.35 and 0.75 round some layer's channels down by more than 10% before _make_divisible adds a
// step of 8 back (32 x 0.35 = 11.2 rounds to 8, under 0.9 x 11.2, so 16).
test("mobilenet-v2's width multiplier: torchvision's mobilenet_v2(width_mult=0.35), (0.5), (0.75) and (1.4)", async () => {
  const tf = await loadTf();
  assert.equal(trainableParameters(tf, 'mobilenet-v2', { width: 0.35 }), 1_677_128);
  assert.equal(trainableParameters(tf, 'mobilenet-v2', { width: 0.5 }), 1_968_680);
  assert.equal(trainableParameters(tf, 'mobilenet-v2', { width: 0.75 }), 2_636_424);
  assert.equal(trainableParameters(tf, 'mobilenet-v2', { width: 1.4 }), 6_108_776);
});
