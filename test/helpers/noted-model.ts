// A model module that notes every build in a file: a worker builds the model as it starts, so
// "no worker started" can be checked, not assumed.
import fs from 'node:fs';
import path from 'node:path';
import { CLASSES, FEATURES } from './train-fixture.ts';

/** Writes `<dir>/noted-model.mjs` (FEATURES -> CLASSES softmax); `built()` is true once a worker built it. */
export function writeNotedModel(dir: string): { module: string; built(): boolean; reset(): void } {
  const log = path.join(dir, 'builds.log');
  const module = path.join(dir, 'noted-model.mjs');
  fs.writeFileSync(
    module,
    `import fs from 'node:fs';
export default function build(tf) {
  fs.appendFileSync(${JSON.stringify(log)}, 'built\\n');
  return tf.sequential({ layers: [tf.layers.dense({ inputShape: [${FEATURES}], units: ${CLASSES}, activation: 'softmax' })] });
}
`,
  );
  return { module, built: () => fs.existsSync(log), reset: () => fs.rmSync(log, { force: true }) };
}
