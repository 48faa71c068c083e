// With training.syncBatchNorm (a sum installed for the step), a BatchNormalization whose channel
// axis is not last (NCHW's axis 1) cannot be summed by the kernels or the tf-ops path: it is
// refused with E_MODEL naming the layer, its axis and what to change, rather than normalised with
// this worker's rows alone (the silent per-shard statistics the key promises not to give). The
// same layer in training without a sum, and in inference with one, are tfjs's call as before.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { setBatchNormSum } from '../../src/worker/batch-norm-sum.ts';
import { fuseBatchNormalization, unfuseBatchNormalization } from '../../src/worker/fused-batch-norm.ts';

after(() => {
  setBatchNormSum(null);
  unfuseBatchNormalization(tf);
});

test('syncBatchNorm: a channels-first BatchNormalization is refused naming the layer and its axis', async () => {
  await tf.setBackend('cpu');
  fuseBatchNormalization(tf);
  const layer = tf.layers.batchNormalization({ axis: 1, name: 'bn_nchw' });
  const x = tf.randomNormal([2, 3, 4, 4]);
  assert.doesNotThrow(() => (layer.apply(x, { training: true }) as tf.Tensor).dispose(), 'without a sum: tfjs call');
  setBatchNormSum((p) => p);
  try {
    (layer.apply(x, { training: false }) as tf.Tensor).dispose(); // inference: no statistics to sum
    assert.throws(() => layer.apply(x, { training: true }), {
      code: 'E_MODEL',
      message: /training\.syncBatchNorm: BatchNormalization layer 'bn_nchw' normalises axis 1 of a float32 input of rank 4; .*channel axis last/,
      hint: /axis -1 on channels-last \(NHWC\) data, or set training\.syncBatchNorm: false/,
    });
  } finally {
    setBatchNormSum(null);
  }
});
