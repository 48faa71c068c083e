// Plain tfjs as a user writes it: the benchmark MLP, tfjs's own SGD, one optimizer.minimize per
// step on rows of synthetic MNIST-shaped data. Shared by the plain baseline and the lock-step
// ceiling, so both time the same step.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { installDawn } from '../../src/worker/backend.ts';
import buildModel from './mlp-model.ts';
import { syntheticMnistLike } from './synthetic.ts';

/**
 * Sets `backend` ('mgpu' kernels: the wasm kernels mgpu-train's workers register; 'stock': as
 * shipped) and returns a step over `rows` rows starting at row `start` (mod the data held).
 */
export async function plainTrainer(backend: string, rows: number, dataRows: number, kernels: string): Promise<(start: number) => Promise<void>> {
  if (backend === 'webgpu') {
    await installDawn();
    await import('@tensorflow/tfjs-backend-webgpu');
  }
  await tf.setBackend(backend);
  if (kernels === 'mgpu' && backend === 'wasm') registerWasmGradKernels(tf);
  const model = buildModel(tf);
  const opt = tf.train.sgd(0.01);
  const { features, labels, count } = syntheticMnistLike(dataRows);
  // Each step reads its loss back, as a training loop that logs does: on a GPU backend that is
  // also what makes the step's time the time of its work rather than of queuing it.
  return async (start) => {
    const at = start % count;
    const loss = tf.tidy(() => {
      const x = tf.tensor2d(features.subarray(at * 784, (at + rows) * 784), [rows, 784]);
      const y = tf.tensor2d(labels.subarray(at * 10, (at + rows) * 10), [rows, 10]);
      return opt.minimize(() => tf.mean<tf.Scalar>(tf.metrics.categoricalCrossentropy(y, model.apply(x) as tf.Tensor)), true)!;
    });
    await loss.data();
    loss.dispose();
  };
}

export const backendInUse = (): string => tf.getBackend();
