// The table of networks by name as the config's checks and `mgpu-train nets` read it, and the
// options buildNet passes to a builder: a name is one of the table's own (not an inherited
// property, not another case), the list keeps the table's order, a network is drawn with random
// kernels unless counting asks for zeros, and counting leaves no tensor behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildNet, isNetName, listNets, NET_NAMES, NETS } from '../../src/nets/nets-table.ts';
import { trainableParameters } from '../../src/nets/net-parameters.ts';
import { loadTf } from '../helpers/train-fixture.ts';

test('isNetName: the nine names, and nothing else (no inherited key, no other case, no non-string)', () => {
  assert.deepEqual([...NET_NAMES].sort(), [
    'efficientnet-b0',
    'lenet',
    'mobilenet-v2',
    'resnet18',
    'resnet18-cifar',
    'resnet34',
    'resnet34-cifar',
    'resnet50',
    'vgg16',
  ]);
  for (const name of NET_NAMES) assert.equal(isNetName(name), true, name);
  for (const other of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'ResNet18', 'resnet18 ', 'resnet', '', 1, null, undefined, {}, ['lenet']])
    assert.equal(isNetName(other), false, `${typeof other} ${JSON.stringify(other)}`);
});

test('listNets: every name in the table order, with its own traits', () => {
  const listed = listNets();
  assert.deepEqual(
    listed.map((n) => n.name),
    [...NET_NAMES],
  );
  for (const { name, traits } of listed) assert.equal(traits, NETS[name], name);
});

test('a network is built with random kernels; zeroInit (counting) builds zeros', async () => {
  const tf = await loadTf();
  for (const zeroInit of [undefined, true]) {
    const model = buildNet(tf, 'lenet', zeroInit === undefined ? {} : { zeroInit });
    const kernel = model.getLayer('conv1').getWeights()[0]!;
    const nonZero = tf.tidy(() => tf.sum(tf.notEqual(kernel, 0)).dataSync()[0]!);
    if (zeroInit) assert.equal(nonZero, 0, 'zeroInit: the kernel is zeros');
    else assert.ok(nonZero > kernel.size / 2, `a built network's kernel is drawn: ${nonZero} of ${kernel.size} non-zero`);
    model.dispose();
  }
});

test('counting parameters leaves no tensor behind', async () => {
  const tf = await loadTf();
  const before = tf.memory().numTensors;
  assert.equal(trainableParameters(tf, 'resnet18-cifar', { classes: 10, inputShape: [8, 8, 3] }), 11_173_962);
  assert.equal(tf.memory().numTensors, before);
});
