// devices.simulate runs simulated GPUs on a CPU backend: auto, tfjs-node, wasm and cpu are taken
// with it; the GPU backends tfjs-node-gpu and webgpu are refused at devices.backend, each with
// what to do instead.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-simulate-backends-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), '');
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });
const simulated = (backend: string) => minimalConfig({ devices: { simulate: 2, backend } });

test('the CPU backends run simulated GPUs', () => {
  for (const backend of ['auto', 'tfjs-node', 'wasm', 'cpu']) assert.equal(validate(simulated(backend)).devices.backend, backend);
});

test('the GPU backends are refused with devices.simulate, each with what to use instead', () => {
  rejects(
    simulated('tfjs-node-gpu'),
    'devices.backend',
    /is 'tfjs-node-gpu', but devices\.simulate runs simulated GPUs on a CPU backend/,
    /^use 'auto', 'tfjs-node', 'wasm' or 'cpu'$/,
  );
  rejects(
    simulated('webgpu'),
    'devices.backend',
    /is 'webgpu', but devices\.simulate runs simulated GPUs on a CPU backend/,
    /^set devices\.simulate to 0: webgpu runs on the adapters it finds/,
  );
});
