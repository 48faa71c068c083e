// The one place the benchmark turns a network's name into what it trains: the config's model
// section and the shape of one input sample (synthetic rows of that shape are made in memory).
// Networks by name are not in mgpu-train yet (issue 25, part 1): until their table is, every
// name is refused here, and `--config` times any model. Wiring the table in is this function's
// body alone: look the name up, and return { model: { net: name, classes }, inputShape, classes }.
import { MgpuError } from '../shared/errors.ts';

export interface BenchmarkNet {
  /** The config's `model` section that builds it, e.g. { net: 'resnet50', classes: 1000 }. */
  model: Record<string, unknown>;
  /** One sample's input shape, e.g. [224, 224, 3]. */
  inputShape: number[];
  /** The classes of its softmax: the synthetic labels' one-hot width. */
  classes: number;
}

/** The network `name` at its default input shape and classes (--set model.classes=10 changes them after). */
export function benchmarkNet(name: string): BenchmarkNet {
  throw new MgpuError('E_USAGE', `no network named ${JSON.stringify(name)}: this mgpu-train has no networks by name yet`, {
    hint: 'time a model of your own with --config exp.yaml (its model and data), e.g. mgpu-train benchmark --config examples/mnist-cnn/experiment.yaml --simulate',
  });
}
