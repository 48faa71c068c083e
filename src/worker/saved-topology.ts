// The topology written to model.json (model.toJSON), with tfjs-layers 4.22's getConfig mistakes
// undone, so that plain tfjs (and `model: { json }`) loads what was trained:
// - DepthwiseConv2D writes `depthwiseConstraint` from the layer's *regularizer*
//   (serializeConstraint(this.depthwiseRegularizer)), so a depthwise layer with an L2 penalty
//   (mobilenet-v2 and efficientnet-b0 with model.weightDecay > 0) saves
//   `depthwise_constraint: {class_name: 'L1L2', ...}`, which tf.loadLayersModel then builds as a
//   constraint: the load fails ("shape of the new value () and previous value (3,3,32,1) must
//   match"). Its config gets its own constraint back (null when it has none).
// - SeparableConv2D leaves `depthMultiplier` out: a multiplier other than 1 loads as 1, and its
//   depthwise kernel cannot take the saved weights ("Shape mismatch: [2,2,3,1] vs. [2,2,3,2]").
//   Its config gets the layer's multiplier.
// Each such layer's getConfig is wrapped once, before tfjs serialises the model; the key names are
// converted by tfjs as for every other field.
import type { LayersModel } from '@tensorflow/tfjs';

type Serializable = { getClassName(): string; getConfig(): unknown };
type AnyLayer = LayersModel['layers'][number];
type Config = ReturnType<AnyLayer['getConfig']>;

/** What each class's config is missing, put back from the layer's own fields. */
const REPAIRS: Record<string, (layer: AnyLayer, config: Config) => void> = {
  DepthwiseConv2D: (layer, config) => {
    const c = (layer as unknown as { depthwiseConstraint?: Serializable | null }).depthwiseConstraint;
    config['depthwiseConstraint'] = c == null ? null : ({ className: c.getClassName(), config: c.getConfig() } as never);
  },
  SeparableConv2D: (layer, config) => {
    config['depthMultiplier'] = (layer as unknown as { depthMultiplier: number }).depthMultiplier;
  },
};

/** model.toJSON(null, false) with every repaired layer's config as the layer is. */
export function savedTopology(model: LayersModel): unknown {
  for (const layer of repairedLayers(model)) wrapConfig(layer);
  return model.toJSON(null, false);
}

/** Every layer of a class REPAIRS names, nested models' included. */
function repairedLayers(model: { layers: AnyLayer[] }): AnyLayer[] {
  return model.layers.flatMap((l) => {
    const inner = (l as unknown as { layers?: AnyLayer[] }).layers;
    if (Array.isArray(inner)) return repairedLayers({ layers: inner });
    return l.getClassName() in REPAIRS ? [l] : [];
  });
}

const wrapped = new WeakSet<AnyLayer>();

/** The layer's getConfig, then its class's repair. */
function wrapConfig(layer: AnyLayer): void {
  if (wrapped.has(layer)) return;
  wrapped.add(layer);
  const own = layer.getConfig.bind(layer);
  const repair = REPAIRS[layer.getClassName()]!;
  layer.getConfig = () => {
    const config = own();
    repair(layer, config);
    return config;
  };
}
