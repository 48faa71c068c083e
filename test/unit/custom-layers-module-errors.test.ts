// A model.customLayers module that does not load, exports no function or throws is an E_MODEL
// error naming model.customLayers and the file; one that works registers its classes with the
// tf it is given, and the model's layers of those classes are told from tfjs's own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { customLayerClasses, knownLayerClasses, registerCustomLayers } from '../../src/worker/custom-layers.ts';
import { loadTf } from '../helpers/train-fixture.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('custom-layers');
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

test('a broken custom layers module names model.customLayers and the file', async () => {
  const tf = await loadTf();
  for (const [name, text, why] of [
    ['syntax.mjs', 'export default function (tf) {', /failed to load: /],
    ['none.mjs', 'export const x = 1;\n', /has no default export function$/],
    ['throws.mjs', 'export default function () { throw new Error("no tf.layers here"); }\n', /threw while registering its layers: no tf\.layers here$/],
  ] as const) {
    const file = write(name, text);
    await assert.rejects(registerCustomLayers(tf, file), (err: Error & { code?: string; exitCode?: number }) => {
      assert.equal(err.code, 'E_MODEL');
      assert.equal(err.exitCode, 2);
      assert.ok(err.message.startsWith(`model.customLayers ${file} `), err.message);
      assert.match(err.message, why);
      return true;
    });
  }
});

test('a working module registers its class with the given tf; the model lists it as custom', async () => {
  const tf = await loadTf();
  const builtIn = knownLayerClasses(tf);
  const file = write(
    'double.mjs',
    `export default function (tf) {
  class Double extends tf.layers.Layer {
    static className = 'Double';
    call(x) { return tf.mul(Array.isArray(x) ? x[0] : x, 2); }
  }
  tf.serialization.registerClass(Double);
}
`,
  );
  await registerCustomLayers(tf, file);
  const Double = tf.serialization.SerializationMap.getMap().classNameMap.Double?.[0] as unknown as new (c: object) => InstanceType<typeof tf.layers.Layer>;
  assert.ok(Double, 'Double is registered');
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 2 }), new Double({})] });
  assert.deepEqual(customLayerClasses(model, builtIn), ['Double']);
  assert.deepEqual(Array.from((model.predict(tf.ones([1, 2])) as ReturnType<typeof tf.ones>).shape), [1, 2]);
});
