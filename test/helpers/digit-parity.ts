// What the image parity tests compare: a PNG digit folder and the same samples in .npy files
// (pixels / 255 as float32 [count, 28, 28, 1], in the folder's order, and their labels as class
// indices or one-hot rows), trained alike with the dense digit model: `run(name, data, workers)`
// trains on either source with the same loss, threads, training and optimizer (sgd 0.5).
import path from 'node:path';
import { train, type TrainResult } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder, writeDigitModel } from './digit-images.ts';
import { buildConfig, silent } from './train-fixture.ts';

export interface DigitParity {
  folder: Record<string, unknown>;
  npy: Record<string, unknown>;
  run: (name: string, data: Record<string, unknown>, workers: number) => Promise<TrainResult>;
}

export async function digitParity(
  dir: string,
  count: number,
  labels: 'index' | 'onehot',
  opts: { loss: string; threads: number; training: Record<string, unknown> },
): Promise<DigitParity> {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), count);
  const features = path.join(dir, 'x.npy');
  const labelFile = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [count, 28, 28, 1], data: Float32Array.from(digits.pixels, (k) => k / 255) });
  if (labels === 'index') writeNpy(labelFile, { dtype: 'int32', shape: [count], data: digits.labels });
  else {
    const onehot = new Float32Array(count * 10);
    digits.labels.forEach((c, i) => (onehot[i * 10 + c] = 1));
    writeNpy(labelFile, { dtype: 'float32', shape: [count, 10], data: onehot });
  }
  const model = { module: writeDigitModel(dir) };
  const run = (name: string, data: Record<string, unknown>, workers: number) =>
    train(
      buildConfig(
        dir,
        { name, model, loss: opts.loss, data: { train: data, threads: opts.threads }, training: opts.training, optimizer: { name: 'sgd', learningRate: 0.5 } },
        workers,
      ),
      silent,
    );
  return { folder: { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 }, npy: { type: 'npy', features, labels: labelFile }, run };
}
