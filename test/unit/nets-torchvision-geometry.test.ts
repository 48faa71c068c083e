// The networks keep torchvision's geometry and BatchNorm: a strided convolution or pool is padded
// (k - 1) / 2 on every side by a ZeroPadding2D before a 'valid' one (tfjs's 'same' pads more on
// the bottom and right at stride 2, which shifts every sampled pixel), the feature maps have
// torchvision's sizes, and every BatchNorm has epsilon 1e-5 and momentum 0.1 (keras's 0.9).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LayersModel } from '@tensorflow/tfjs';
import { buildNet, NET_NAMES, type NetName } from '../../src/nets/nets-table.ts';
import { loadTf } from '../helpers/train-fixture.ts';

type LayerConfig = { strides?: number[]; padding?: unknown; kernelSize?: number[]; poolSize?: number[]; epsilon?: number; momentum?: number };
const config = (m: LayersModel, name: string) => m.getLayer(name).getConfig() as LayerConfig;

async function small(name: NetName): Promise<LayersModel> {
  const side = name === 'lenet' ? 28 : 32;
  return buildNet(await loadTf(), name, { classes: 3, inputShape: [side, side, 3], zeroInit: true });
}

for (const name of NET_NAMES) {
  test(`${name}: every strided convolution or pool that pads is a ZeroPadding2D of (k - 1) / 2, then 'valid'`, async () => {
    const m = await small(name);
    for (const layer of m.layers) {
      const c = layer.getConfig() as LayerConfig;
      const k = (c.kernelSize ?? c.poolSize)?.[0];
      if (!c.strides || c.strides[0] === 1 || k === undefined) continue;
      if (c.padding === 'same') assert.fail(`${layer.name}: stride ${c.strides[0]} with 'same' padding`);
      const before = layer.inboundNodes[0]!.inboundLayers[0]!;
      if (k > c.strides[0]!) {
        assert.equal(before.getClassName(), 'ZeroPadding2D', `${layer.name} (${k}x${k}/${c.strides[0]}) is not padded explicitly`);
        assert.deepEqual((before.getConfig() as { padding: unknown }).padding, [
          [(k - 1) / 2, (k - 1) / 2],
          [(k - 1) / 2, (k - 1) / 2],
        ]);
      }
    }
    for (const layer of m.layers.filter((l) => l.getClassName() === 'BatchNormalization')) {
      assert.equal(config(m, layer.name).epsilon, 1e-5, `${layer.name}'s epsilon`);
      assert.equal(config(m, layer.name).momentum, 0.9, `${layer.name}'s momentum`);
    }
    m.dispose();
  });
}

test("resnet18's feature maps at 224x224 are torchvision's: 112, 56, 56, 28, 14, 7", async () => {
  const m = buildNet(await loadTf(), 'resnet18', { zeroInit: true });
  const side = (layer: string) => (m.getLayer(layer).output as { shape: number[] }).shape[1];
  assert.deepEqual(['stem_relu', 'maxpool', 'layer1_1_out', 'layer2_1_out', 'layer3_1_out', 'layer4_1_out'].map(side), [112, 56, 56, 28, 14, 7]);
  m.dispose();
});

test("resnet50 strides on the bottleneck's 3x3 (v1.5), not on its first 1x1", async () => {
  const m = buildNet(await loadTf(), 'resnet50', { zeroInit: true });
  assert.deepEqual(config(m, 'layer2_0_1_conv').strides, [1, 1]);
  assert.deepEqual(config(m, 'layer2_0_2_conv').strides, [2, 2]);
  m.dispose();
});
