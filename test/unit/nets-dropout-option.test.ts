// model.dropout sets the head's dropout of the networks that have one (vgg16: after each of its
// two hidden dense layers, as torchvision's classifier; mobilenet-v2 and efficientnet-b0: before
// the last dense layer): by default the table's rate, a given rate exactly, 0 no Dropout layer at
// all. A builder asked for `dropout: null` takes the network's own rate. Networks without one
// (resnets, lenet) have no Dropout layer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LayersModel } from '@tensorflow/tfjs';
import { buildNet, NET_NAMES, NETS, type NetName } from '../../src/nets/nets-table.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const WITH: [NetName, number, number][] = [
  ['vgg16', 0.5, 2],
  ['mobilenet-v2', 0.2, 1],
  ['efficientnet-b0', 0.2, 1],
];

/** The rate of each Dropout layer, in order. */
const rates = (m: LayersModel) => m.layers.filter((l) => l.getClassName() === 'Dropout').map((l) => (l.getConfig() as { rate: number }).rate);

for (const [name, own, count] of WITH) {
  test(`${name}: ${count} Dropout layer(s) at ${own} by default, at a given rate, none at 0; a builder's null is ${own}`, async () => {
    const tf = await loadTf();
    const options = { classes: 3, inputShape: [32, 32, 3] as [number, number, number], zeroInit: true };
    const at = (dropout?: number) => {
      const m = buildNet(tf, name, dropout === undefined ? options : { ...options, dropout });
      const r = rates(m);
      m.dispose();
      return r;
    };
    assert.equal(NETS[name].dropout, own);
    assert.deepEqual(at(), Array(count).fill(own));
    assert.deepEqual(at(0.3), Array(count).fill(0.3));
    assert.deepEqual(at(0), []);
    const m = NETS[name].build(tf, { ...options, dropout: null, weightDecay: 0, width: 1 });
    assert.deepEqual(rates(m), Array(count).fill(own));
    m.dispose();
  });
}

test('the networks without a head dropout have no Dropout layer', async () => {
  const tf = await loadTf();
  for (const name of NET_NAMES.filter((n) => !WITH.some(([w]) => w === n))) {
    assert.equal(NETS[name].dropout, null, name);
    const side = NETS[name].minSide;
    const m = buildNet(tf, name, { classes: 3, inputShape: [side, side, NETS[name].input[2]], zeroInit: true });
    assert.deepEqual(rates(m), [], name);
    m.dispose();
  }
});
