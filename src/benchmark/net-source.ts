// The one place the benchmark turns a network's name into what it trains: the config's model
// section and the shape of one input sample (synthetic rows of that shape are made in memory),
// from the table of networks by name (src/nets/nets-table.ts). A name not in it is refused with
// the nearest one, as model.net refuses it.
import { closest } from '../config/checker.ts';
import { MgpuError } from '../shared/errors.ts';
import { isNetName, NET_NAMES, NETS } from '../nets/nets-table.ts';

export interface BenchmarkNet {
  /** The config's `model` section that builds it, e.g. { net: 'resnet50', classes: 1000 }. */
  model: Record<string, unknown>;
  /** One sample's input shape, e.g. [224, 224, 3]. */
  inputShape: number[];
  /** The classes of its softmax: the synthetic labels' one-hot width. */
  classes: number;
}

/** The network `name` at its standard input shape and classes (--set model.classes=10, model.inputShape=... change them after). */
export function benchmarkNet(name: string): BenchmarkNet {
  if (!isNetName(name)) {
    const near = closest(name, NET_NAMES);
    throw new MgpuError('E_USAGE', `no network named ${JSON.stringify(name)}${near ? `: did you mean ${near}?` : ''}`, {
      hint: `the networks are ${NET_NAMES.join(', ')} (mgpu-train nets lists them); or time a model of your own with --config exp.yaml`,
    });
  }
  const t = NETS[name];
  return { model: { net: name, classes: t.standardClasses }, inputShape: [...t.input], classes: t.standardClasses };
}
