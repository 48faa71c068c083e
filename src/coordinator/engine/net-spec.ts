// model.net as the workers build it: its class count resolved from the run when the config
// leaves it out (the classes data.train names, a model's labels.json for predict, or synthetic
// rows' data.train.classes).
import type { Config } from '../../config/types.ts';
import { ConfigError } from '../../shared/errors.ts';
import type { InitMessage } from '../../shared/protocol.ts';
import type { NetSpec } from '../../nets/net-options.ts';

/** What a worker builds its model from: the config's model, a network's class count resolved. */
export function workerModel(cfg: Config, classCount: number | null): InitMessage['model'] {
  const { module, json, customLayers } = cfg.model;
  return { module, json, net: netSpec(cfg, classCount), customLayers };
}

/** The network the workers build, or null for a model module or model.json; `classCount`: the run's classes when known. */
export function netSpec(cfg: Config, classCount: number | null): NetSpec | null {
  const net = cfg.model.net;
  if (!net) return null;
  const train = cfg.data.train;
  const classes = net.classes ?? classCount ?? (train.type === 'synthetic' ? train.classes : null);
  if (classes === null) {
    throw new ConfigError(
      'model.classes',
      `missing: ${net.name}'s head needs a number of classes, and this run has no class names to count (no labels.json beside the model, no class names in the data)`,
      'set model.classes to the number of classes the network was trained with',
    );
  }
  const { name, inputShape, weightDecay, dropout, width } = net;
  return { name, classes, inputShape: [...inputShape], weightDecay, dropout, width };
}
