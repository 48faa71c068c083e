// data.onBadSample: skip is refused (E_CONFIG at data.onBadSample, naming the source type) for a
// training source whose samples cannot fail one by one as the run reads them (npy, csv, mnist,
// synthetic, and a generator module once loaded), instead of being accepted and doing nothing.
// Images and modules (a map-style one skips a get() that throws) are accepted by the config.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSplits } from '../../src/data/splits.ts';
import { configChecks, minimalConfig } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-skip-refused-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
for (const f of ['x.npy', 'y.npy', 'rows.csv']) fs.writeFileSync(path.join(dir, f), '');
fs.mkdirSync(path.join(dir, 'photos'));
fs.writeFileSync(path.join(dir, 'gen.mjs'), 'export default function* () { for (let i = 0; i < 4; i++) yield { x: [i, 1], y: i % 2 }; }\n');
fs.writeFileSync(path.join(dir, 'map.mjs'), 'export default { length: 4, get: (i) => ({ x: [i, 1], y: i % 2 }) };\n');
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });
const skip = (train: Record<string, unknown>) => minimalConfig({ loss: 'sparseCategoricalCrossentropy', data: { train, onBadSample: 'skip' } });

test('skip with an npy, csv, mnist or synthetic source is refused, naming data.onBadSample and the source type', () => {
  const sources: Record<string, unknown>[] = [
    { type: 'npy', features: './x.npy', labels: './y.npy' },
    { type: 'csv', path: './rows.csv', label: 'y' },
    { type: 'mnist' },
    { type: 'synthetic', shape: [2], count: 8, classes: 2 },
  ];
  for (const train of sources)
    rejects(
      skip(train),
      'data.onBadSample',
      new RegExp(`is skip, but data\\.train is a '${String(train.type)}' source, whose samples are not made one by one`),
      /remove data\.onBadSample/,
    );
});

test('skip with images or a module source passes the config; error passes with any source', () => {
  assert.equal(validate(skip({ type: 'images', dir: './photos', size: [8, 8] })).data.onBadSample, 'skip');
  assert.equal(validate(skip({ type: 'module', module: './map.mjs' })).data.onBadSample, 'skip');
  const npy = minimalConfig({ data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' }, onBadSample: 'error' } });
  assert.equal(validate(npy).data.onBadSample, 'error');
});

test('skip with a generator module is refused when it is loaded; a map-style module loads', async () => {
  await assert.rejects(loadSplits(validate(skip({ type: 'module', module: './gen.mjs' }))), (e: Error & { code?: string; keyPath?: string }) => {
    assert.equal(e.code, 'E_CONFIG');
    assert.equal(e.keyPath, 'data.onBadSample');
    assert.match(e.message, /is skip, but data\.train's module .*gen\.mjs is a generator \(not map-style\)/);
    return true;
  });
  const splits = await loadSplits(validate(skip({ type: 'module', module: './map.mjs' })));
  assert.equal(splits.train.count, 4);
});
