// How to load a model a run wrote, for the line after training: tf.loadLayersModel, after the
// model's own layer classes are registered when it has any (tfjs refuses "Unknown layer" else).
import type { ModelLayout } from '../../shared/layout.ts';

/** `customLayers`: the config's model.customLayers module (absolute path), or null. */
export function howToLoad(layout: Pick<ModelLayout, 'customLayers'>, customLayers: string | null): string {
  const classes = layout.customLayers ?? [];
  if (classes.length === 0) return 'load it with tf.loadLayersModel';
  const names = classes.join(', ');
  return customLayers
    ? `load it with tf.loadLayersModel after registering its layer classes (${names}): call the default export of ${customLayers} with your tf first`
    : `load it with tf.loadLayersModel after registering its layer classes (${names}) with tf.serialization.registerClass; to train or evaluate from it, set model.customLayers to a module that registers them`;
}
