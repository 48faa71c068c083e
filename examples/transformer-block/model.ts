// A tiny Transformer encoder for sequences of 8 steps of 4 features, 3 classes: a dense
// projection to width 16, the position embedding and one Transformer block of layers.ts, mean
// pooling over the steps, a softmax. The layers are registered with the worker's `tf` here too,
// so this module builds on its own; the saved model.json names PositionEmbedding and
// TransformerBlock, which is why experiment.yaml sets model.customLayers.
import type * as tfjs from '@tensorflow/tfjs';
import registerLayers from './layers.ts';

export const STEPS = 8;
export const FEATURES = 4;

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  const { PositionEmbedding, TransformerBlock } = registerLayers(tf);
  return tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [STEPS, FEATURES], units: 16 }),
      new PositionEmbedding({}),
      new TransformerBlock({ hidden: 32 }),
      tf.layers.globalAveragePooling1d({}),
      tf.layers.dense({ units: 3, activation: 'softmax' }),
    ],
  });
}
