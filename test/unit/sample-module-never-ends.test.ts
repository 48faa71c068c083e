// A data module that never ends is refused at its bound (maxSamples), naming the module and the
// key that sets the bound, instead of filling the memory before step 0; a module that ends at
// exactly the bound is read whole. Large samples meet the memory bound first (half the
// machine's memory; given small here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSampleModule } from '../../src/data/sample-module.ts';
import { DataError } from '../../src/shared/errors.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sample-module-never-ends-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, code: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, code);
  return file;
}

const endless = {
  sync: write('endless-sync.mjs', 'export default function* () { for (let i = 0; ; i++) yield { x: [i, 1], y: i % 2 }; }\n'),
  async: write('endless-async.mjs', 'export default async function* () { for (let i = 0; ; i++) yield { x: [i, 1], y: i % 2 }; }\n'),
};

for (const [kind, module] of Object.entries(endless)) {
  test(`an endless ${kind} generator is refused at maxSamples, naming the module and the key`, { timeout: 10_000 }, async () => {
    await assert.rejects(loadSampleModule({ type: 'module', module, maxSamples: 500 }, 'data.eval'), (err: unknown) => {
      assert.ok(err instanceof DataError, String(err));
      assert.equal(err.message, `data.eval: module ${module}: gave more than 500 samples, the bound of data.eval.maxSamples (a generator that never ends?)`);
      assert.match(err.hint ?? '', /raise data\.eval\.maxSamples/);
      return true;
    });
  });
}

test('a module of exactly maxSamples samples is read whole', async () => {
  const module = write('exact.mjs', 'export default function* () { for (let i = 0; i < 500; i++) yield { x: [i], y: 0 }; }\n');
  const ds = await loadSampleModule({ type: 'module', module, maxSamples: 500 }, 'data.train');
  assert.equal(ds.count, 500);
  assert.equal(ds.features.data[499], 499);
});

test('an endless generator of large samples is refused at the memory bound, naming the module and the bound', { timeout: 10_000 }, async () => {
  const module = write('endless-large.mjs', 'export default function* () { for (;;) yield { x: new Float32Array(16384), y: 1 }; }\n');
  // 64 KiB of features and 8 bytes of label a sample: sample 15 (the 16th) passes 1 MiB.
  await assert.rejects(loadSampleModule({ type: 'module', module }, 'data.train', null, 2 ** 20), (err: unknown) => {
    assert.ok(err instanceof DataError, String(err));
    assert.equal(
      err.message,
      `data.train: module ${module}: its samples passed 1.0 MiB (half this machine's memory), the most a data module may fill before step 0, at sample 15 (a generator that never ends?)`,
    );
    return true;
  });
});
