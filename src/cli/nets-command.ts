// `mgpu-train nets`: the networks model.net names (src/nets/nets-table.ts), each with its
// trainable parameters at its standard input and classes (built with tfjs's cpu backend in this
// process: the figure is the built model's), its standard and smallest inputs and what it is.
import { listNets } from '../nets/nets-table.ts';
import { trainableParameters } from '../nets/net-parameters.ts';
import type { TF } from '../nets/net-options.ts';

export async function listNetworks(): Promise<void> {
  const tf = (await import('@tensorflow/tfjs')) as TF;
  // tfjs's advice to install tfjs-node, printed on the cpu backend's first use, says nothing here.
  const warn = console.warn;
  console.warn = () => {};
  try {
    await tf.setBackend('cpu');
    const rows = listNets().map(({ name, traits: t }) => [
      name,
      trainableParameters(tf, name).toLocaleString('en-US'),
      String(t.standardClasses),
      t.input.join('x'),
      `${t.minSide}x${t.minSide}`,
      t.description,
    ]);
    const table = [['network', 'parameters', 'classes', 'input', 'smallest', ''], ...rows];
    const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
    for (const r of table)
      console.log(
        r
          .map((cell, c) => (c === 1 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
          .join('  ')
          .trimEnd(),
      );
    console.log(
      "\nparameters: trainable, at the network's standard input and classes. In a config: model: { net: resnet18-cifar, classes: 10 } (inputShape, weightDecay, dropout, width: docs/config.md)",
    );
  } finally {
    console.warn = warn;
  }
}
