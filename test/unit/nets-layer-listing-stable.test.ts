// A network's layers are a file format: a checkpoint (resume) and a saved model.json key every
// weight by its layer's name, and a saved topology records each layer's class, activation and
// shape, so a layer renamed, added or dropped makes earlier checkpoints of that network
// unresumable and earlier models different. Each network by name, at its smallest input with 3
// classes, is listed layer by layer (name, class, activation, output shape, weights and their
// shapes) and held to test/fixtures/net-layers.txt. The listing was checked when it was written
// (the stage shapes and parameter counts against torchvision: nets-stages-torchvision,
// nets-parameter-counts); a change to it is a change of format, to be made on purpose:
// MGPU_WRITE_NET_LAYERS=1 writes the file anew, and the commit says why.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { LayersModel } from '@tensorflow/tfjs';
import { buildNet, NET_NAMES, NETS, type NetName } from '../../src/nets/nets-table.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const FILE = fileURLToPath(new URL('../fixtures/net-layers.txt', import.meta.url));

function listing(name: NetName, model: LayersModel): string[] {
  const lines = [`## ${name}: model ${model.name}, inputs ${model.inputNames.join(' ')}, outputs ${model.outputNames.join(' ')}`];
  for (const layer of model.layers) {
    const config = layer.getConfig() as { activation?: string; rate?: number };
    const shape = (layer.outputShape as (number | null)[]).map((d) => d ?? 'N').join('x');
    const weights = layer.weights.map((w) => `${w.originalName.slice(layer.name.length + 1)}:${w.shape.join('x')}${w.trainable ? '' : '(fixed)'}`);
    const extra = [config.activation && `activation=${config.activation}`, config.rate !== undefined && `rate=${config.rate}`].filter(Boolean);
    lines.push([layer.name, layer.getClassName(), shape, ...extra, ...weights].join(' '));
  }
  return lines;
}

test('every network by name has the layers, names, activations and weights of test/fixtures/net-layers.txt', async () => {
  const tf = await loadTf();
  const got: string[] = [];
  for (const name of NET_NAMES) {
    const side = NETS[name].minSide;
    const model = buildNet(tf, name, { classes: 3, inputShape: [side, side, NETS[name].input[2]], zeroInit: true });
    got.push(...listing(name, model), '');
    model.dispose();
  }
  if (process.env.MGPU_WRITE_NET_LAYERS === '1') fs.writeFileSync(FILE, got.join('\n'));
  const want = fs.readFileSync(FILE, 'utf8').split('\n');
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    if (got[i] !== want[i]) {
      const section = want
        .slice(0, i + 1)
        .reverse()
        .find((l) => l.startsWith('## '));
      assert.fail(`net-layers.txt line ${i + 1} (${section?.slice(3).split(':')[0] ?? '?'}): expected '${want[i]}', got '${got[i]}'`);
    }
  }
});
