// The topology written to model.json (model.toJSON), with tfjs-layers 4.22's DepthwiseConv2D
// mistake undone. Its getConfig writes `depthwiseConstraint` from the layer's *regularizer*
// (serializeConstraint(this.depthwiseRegularizer)), so a depthwise layer with an L2 penalty
// (mobilenet-v2 and efficientnet-b0 with model.weightDecay > 0) saves
// `depthwise_constraint: {class_name: 'L1L2', ...}`, which tf.loadLayersModel then builds as a
// constraint: the load fails ("shape of the new value () and previous value (3,3,32,1) must
// match") in plain tfjs and in `model: { json }` alike. Each such layer's config gets its own
// constraint back (null when it has none) before tfjs serialises the model; the key names are
// converted by tfjs as for every other field.
import type { LayersModel } from '@tensorflow/tfjs';

type Serializable = { getClassName(): string; getConfig(): unknown };
type AnyLayer = LayersModel['layers'][number];

/** model.toJSON(null, false) with every DepthwiseConv2D's depthwiseConstraint its own. */
export function savedTopology(model: LayersModel): unknown {
  for (const layer of depthwiseLayers(model)) keepOwnConstraint(layer);
  return model.toJSON(null, false);
}

/** Every DepthwiseConv2D of the model, nested models' included. */
function depthwiseLayers(model: { layers: AnyLayer[] }): AnyLayer[] {
  return model.layers.flatMap((l) => {
    const inner = (l as unknown as { layers?: AnyLayer[] }).layers;
    if (Array.isArray(inner)) return depthwiseLayers({ layers: inner });
    return l.getClassName() === 'DepthwiseConv2D' ? [l] : [];
  });
}

const fixed = new WeakSet<AnyLayer>();

/** The layer's getConfig, with depthwiseConstraint serialised from its constraint (as serializeKerasObject does). */
function keepOwnConstraint(layer: AnyLayer): void {
  if (fixed.has(layer)) return;
  fixed.add(layer);
  const own = layer.getConfig.bind(layer);
  layer.getConfig = () => {
    const config = own();
    const c = (layer as unknown as { depthwiseConstraint?: Serializable | null }).depthwiseConstraint;
    config['depthwiseConstraint'] = c == null ? null : ({ className: c.getClassName(), config: c.getConfig() } as never);
    return config;
  };
}
