// A synthetic split: rows of a given shape made in memory, for timing a model without data on
// disk (what tf_cnn_benchmarks and Horovod's synthetic benchmark feed). The values do not matter
// to the speed; they are fixed by a seed of their own so that two runs train on the same rows.
import type { DataSource } from '../config/types.ts';
import { mulberry32, streamState } from '../shared/rng.ts';
import { memoryColumn } from './columns.ts';
import type { Dataset } from './rows.ts';

type SyntheticSource = Extract<DataSource, { type: 'synthetic' }>;
const SYNTHETIC_TAG = 0x53594e54; // 'SYNT'

/**
 * `count` rows of features float32 [count, ...shape] uniform in [0, 1), and labels of `classes`
 * classes: one-hot float32 [count, classes] or int32 class indices [count].
 */
export function loadSynthetic(src: SyntheticSource): Dataset {
  const rng = mulberry32(streamState(SYNTHETIC_TAG, src.count, src.classes));
  const rowSize = src.shape.reduce((a, b) => a * b, 1);
  const features = new Float32Array(src.count * rowSize);
  for (let i = 0; i < features.length; i++) features[i] = rng.float();
  const classOf = Array.from({ length: src.count }, () => rng.below(src.classes));
  const labels =
    src.labels === 'index'
      ? { dtype: 'int32' as const, shape: [src.count], data: Int32Array.from(classOf) }
      : { dtype: 'float32' as const, shape: [src.count, src.classes], data: oneHot(classOf, src.classes) };
  return {
    features: memoryColumn({ dtype: 'float32', shape: [src.count, ...src.shape], data: features }),
    labels: memoryColumn(labels),
    count: src.count,
    source: `synthetic [${src.count}, ${src.shape.join(', ')}], ${src.classes} classes`,
  };
}

function oneHot(classOf: number[], classes: number): Float32Array {
  const out = new Float32Array(classOf.length * classes);
  classOf.forEach((c, i) => (out[i * classes + c] = 1));
  return out;
}
