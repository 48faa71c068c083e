// A value that is not one of a key's choices but close to one (a typo, a wrong case) gets the
// nearest choice as its hint, as an unknown key does; one near nothing gets no guess.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { configChecks, minimalConfig } from '../helpers/config.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-near');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const { rejects } = configChecks({ configPath: null, cwd: dir });

test('a near miss of a choice names the choice', () => {
  rejects(minimalConfig({ data: { train: { type: 'image' } } }), 'data.train.type', /expected one of 'npy', .*got "image"/, /^did you mean 'images'\?$/);
  rejects(minimalConfig({ optimizer: { name: 'adma' } }), 'optimizer.name', /got "adma"/, /^did you mean 'adam'\?$/);
  rejects(minimalConfig({ devices: { backend: 'WASM' } }), 'devices.backend', /got "WASM"/, /^did you mean 'wasm'\?$/);
  rejects(minimalConfig({ data: { train: { type: 'mnist' }, onBadSample: 'skp' } }), 'data.onBadSample', /got "skp"/, /^did you mean 'skip'\?$/);
});

test('a value near no choice gets no guess', () => {
  assert.throws(
    () => validateConfig(minimalConfig({ optimizer: { name: 'lbfgs-with-wolfe' } }), { configPath: null, cwd: dir }),
    (e: Error & { keyPath?: string; hint?: string }) => e.keyPath === 'optimizer.name' && e.hint === undefined,
  );
});
