// What a worker prints reaches the user prefixed with its rank, except noise: blank lines, the
// '=' frame of tfjs's advice, Dawn's notes about lowered limits; the advice itself once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoise } from '../../src/coordinator/engine/worker-group.ts';

test('blank lines, the banner frame and Dawn notes are dropped; the advice is shown once; the rest is kept', () => {
  assert.ok(isNoise(''));
  assert.ok(isNoise('   '));
  assert.ok(isNoise('============================'));
  assert.ok(isNoise('Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.'));
  const advice =
    'Hi, looks like you are running TensorFlow.js in Node.js. To speed things up dramatically, install our node backend, visit https://github.com/tensorflow/tfjs-node for more details. ';
  assert.equal(isNoise(advice), false);
  assert.equal(isNoise(advice), true);
  assert.equal(isNoise('my model says hello'), false);
  assert.equal(isNoise('Error: something real'), false);
});
