// Each network's stages have torchvision's output shapes, so its strides and paddings are
// torchvision's (not only its parameter count). An odd input side (97; 33 for the CIFAR nets)
// makes every stride-2 stage round, so a wrong stride, padding or pool shows as a wrong size.
//
// The references are literal values, computed once with the system python's torchvision 0.14.1
// (torch 1.13), [H, W, C] of each stage's output for a zeros input of 1x3xSxS:
//   resnet*:        nn.Sequential(conv1, bn1, relu), maxpool, layer1, layer2, layer3, layer4
//   *-cifar:        the same ResNet with conv1 = Conv2d(3, 64, 3, 1, 1) and no maxpool (the usual
//                   CIFAR form; torchvision has no CIFAR ResNet of its own)
//   mobilenet-v2:   each of mobilenet_v2().features (stem, 17 inverted residuals, last 1x1)
//   efficientnet-b0: each of efficientnet_b0().features (stem, 7 stages, last 1x1)
//   vgg16:          vgg16().features after each MaxPool2d
// lenet is not torchvision's: LeNet-5's C1, S2, C3, S4 sizes (LeCun et al. 1998), here for a
// 28x28 input padded 'same' at C1 as MNIST's 28x28 digits are to the paper's 32x32.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LayersModel } from '@tensorflow/tfjs';
import { buildNet, NET_NAMES, type NetName } from '../../src/nets/nets-table.ts';
import { loadTf } from '../helpers/train-fixture.ts';

type Shape = [number, number, number];
const RESNET_STEM: Shape[] = [
  [49, 49, 64],
  [25, 25, 64],
];

const TORCHVISION: Record<NetName, { side: number; channels: number; stages: Shape[] }> = {
  resnet18: { side: 97, channels: 3, stages: [...RESNET_STEM, [25, 25, 64], [13, 13, 128], [7, 7, 256], [4, 4, 512]] },
  resnet34: { side: 97, channels: 3, stages: [...RESNET_STEM, [25, 25, 64], [13, 13, 128], [7, 7, 256], [4, 4, 512]] },
  resnet50: { side: 97, channels: 3, stages: [...RESNET_STEM, [25, 25, 256], [13, 13, 512], [7, 7, 1024], [4, 4, 2048]] },
  'resnet18-cifar': {
    side: 33,
    channels: 3,
    stages: [
      [33, 33, 64],
      [33, 33, 64],
      [17, 17, 128],
      [9, 9, 256],
      [5, 5, 512],
    ],
  },
  'resnet34-cifar': {
    side: 33,
    channels: 3,
    stages: [
      [33, 33, 64],
      [33, 33, 64],
      [17, 17, 128],
      [9, 9, 256],
      [5, 5, 512],
    ],
  },
  'mobilenet-v2': {
    side: 97,
    channels: 3,
    // prettier-ignore
    stages: [[49, 49, 32], [49, 49, 16], [25, 25, 24], [25, 25, 24], [13, 13, 32], [13, 13, 32], [13, 13, 32], [7, 7, 64], [7, 7, 64], [7, 7, 64], [7, 7, 64], [7, 7, 96], [7, 7, 96], [7, 7, 96], [4, 4, 160], [4, 4, 160], [4, 4, 160], [4, 4, 320], [4, 4, 1280]],
  },
  'efficientnet-b0': {
    side: 97,
    channels: 3,
    stages: [
      [49, 49, 32],
      [49, 49, 16],
      [25, 25, 24],
      [13, 13, 40],
      [7, 7, 80],
      [7, 7, 112],
      [4, 4, 192],
      [4, 4, 320],
      [4, 4, 1280],
    ],
  },
  vgg16: {
    side: 97,
    channels: 3,
    stages: [
      [48, 48, 64],
      [24, 24, 128],
      [12, 12, 256],
      [6, 6, 512],
      [3, 3, 512],
    ],
  },
  lenet: {
    side: 28,
    channels: 1,
    stages: [
      [28, 28, 6],
      [14, 14, 6],
      [10, 10, 16],
      [5, 5, 16],
    ],
  },
};

/** The last layer named `prefix...` in the model's order (a stage's last block). */
function lastOf(m: LayersModel, prefix: RegExp): string {
  const names = m.layers.map((l) => l.name).filter((n) => prefix.test(n));
  assert.ok(names.length > 0, `no layer matches ${prefix}`);
  return names.at(-1)!;
}

/** A block's output: its residual sum where it has one, else its projection's BatchNorm. */
const blockOut = (m: LayersModel, i: number): string => (m.layers.some((l) => l.name === `block${i}_add`) ? `block${i}_add` : `block${i}_project_bn`);

/** The layers whose outputs are the stages the reference lists, in its order. */
function stageLayers(name: NetName, m: LayersModel): string[] {
  const layers = (n: number) => [1, 2, 3, 4].slice(0, n).map((s) => lastOf(m, new RegExp(`^layer${s}_\\d+_out$`)));
  switch (name) {
    case 'resnet18':
    case 'resnet34':
    case 'resnet50':
      return ['stem_relu', 'maxpool', ...layers(4)];
    case 'resnet18-cifar':
    case 'resnet34-cifar':
      return ['stem_relu', ...layers(4)];
    case 'mobilenet-v2':
      return ['stem_relu6', ...Array.from({ length: 17 }, (_, i) => blockOut(m, i)), 'last_relu6'];
    case 'efficientnet-b0': // the last block of each of the 7 stages (1, 2, 2, 3, 3, 4, 1 blocks)
      return ['stem_swish', ...[0, 2, 4, 7, 10, 14, 15].map((i) => blockOut(m, i)), 'last_swish'];
    case 'vgg16':
      return [1, 2, 3, 4, 5].map((b) => `block${b}_pool`);
    case 'lenet':
      return ['conv1', 'pool1', 'conv2', 'pool2'];
  }
}

for (const name of NET_NAMES) {
  test(`${name}: each stage's output shape is torchvision's`, async () => {
    const ref = TORCHVISION[name];
    const m = buildNet(await loadTf(), name, { classes: 10, inputShape: [ref.side, ref.side, ref.channels], zeroInit: true });
    const layers = stageLayers(name, m);
    assert.equal(layers.length, ref.stages.length, 'one layer a stage of the reference');
    const got = layers.map((l) => `${l} ${JSON.stringify((m.getLayer(l).output as { shape: number[] }).shape.slice(1))}`);
    const want = layers.map((l, i) => `${l} ${JSON.stringify(ref.stages[i])}`);
    assert.deepEqual(got, want);
    m.dispose();
  });
}
