// The line after training says how to load the saved model: plain tf.loadLayersModel for tfjs's
// own layers; with custom layer classes, which ones to register first, and how.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { howToLoad } from '../../src/coordinator/run/model-load-hint.ts';

test('no custom layers, custom layers with a model.customLayers module, and without one', () => {
  assert.equal(howToLoad({}, null), 'load it with tf.loadLayersModel');
  assert.equal(howToLoad({ customLayers: [] }, '/p/layers.ts'), 'load it with tf.loadLayersModel');
  assert.equal(
    howToLoad({ customLayers: ['Block', 'Embed'] }, '/p/layers.ts'),
    'load it with tf.loadLayersModel after registering its layer classes (Block, Embed): call the default export of /p/layers.ts with your tf first',
  );
  assert.equal(
    howToLoad({ customLayers: ['Block'] }, null),
    'load it with tf.loadLayersModel after registering its layer classes (Block) with tf.serialization.registerClass; to train or evaluate from it, set model.customLayers to a module that registers them',
  );
});
