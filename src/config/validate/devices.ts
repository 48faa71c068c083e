// devices: which GPUs (or how many simulated ones), the backend, and how workers share them.

import { resolve } from 'node:path';
import { ConfigError } from '../../shared/errors.ts';
import { bool, fail, int, oneOf, quotedChoices, Section, text } from '../checker.ts';
import { DEVICES_DEFAULTS } from '../defaults.ts';
import { BACKEND_NAMES, type Config } from '../types.ts';
import { BACKENDS, CPU_BACKEND_NAMES } from '../../shared/backends-table.ts';

export function devicesSection(raw: unknown, baseDir: string): Config['devices'] {
  const dev = Section.open(raw, 'devices', Object.keys(DEVICES_DEFAULTS));
  const devices = {
    gpus: gpus(dev),
    simulate: dev.opt('simulate', int(0), DEVICES_DEFAULTS.simulate),
    backend: dev.opt('backend', oneOf(BACKEND_NAMES), DEVICES_DEFAULTS.backend),
    shmDir: resolve(baseDir, dev.opt('shmDir', text, DEVICES_DEFAULTS.shmDir)),
    replaceWasmKernels: dev.opt('replaceWasmKernels', bool, DEVICES_DEFAULTS.replaceWasmKernels),
    workersPerGpu: dev.opt('workersPerGpu', int(1), DEVICES_DEFAULTS.workersPerGpu),
    allowSoftwareAdapter: dev.opt('allowSoftwareAdapter', bool, DEVICES_DEFAULTS.allowSoftwareAdapter),
    allowUnpinned: dev.opt('allowUnpinned', bool, DEVICES_DEFAULTS.allowUnpinned),
    oversubscribe: dev.opt('oversubscribe', bool, DEVICES_DEFAULTS.oversubscribe),
  };
  // Simulated GPUs are workers on one CPU backend: a GPU list or the GPU backend would go unused.
  if (devices.simulate > 0 && devices.gpus !== 'all') {
    throw new ConfigError('devices.gpus', 'lists GPUs, but devices.simulate runs simulated ones', 'remove devices.gpus, or set devices.simulate to 0');
  }
  const backend = BACKENDS[devices.backend];
  if (devices.simulate > 0 && backend.kind === 'gpu') {
    throw new ConfigError(
      'devices.backend',
      `is '${devices.backend}', but devices.simulate runs simulated GPUs on a CPU backend`,
      backend.insteadOfSimulate ?? `use ${quotedChoices(CPU_BACKEND_NAMES)}`,
    );
  }
  if (devices.simulate > 0 && devices.workersPerGpu > 1) {
    throw new ConfigError(
      'devices.workersPerGpu',
      'shares a GPU between workers, but devices.simulate runs simulated GPUs',
      'set devices.simulate to the number of workers you want instead',
    );
  }
  return devices;
}

function gpus(s: Section): 'all' | number[] {
  const v = s.has('gpus') ? s.obj.gpus : DEVICES_DEFAULTS.gpus;
  if (v === 'all') return v;
  if (!Array.isArray(v) || v.length === 0) {
    fail(s.at('gpus'), "'all' or a non-empty list of distinct GPU ids", v, typeof v === 'number' ? `for one GPU write [${v}]` : undefined);
  }
  v.forEach((id, i) => {
    if (!int(0).test(id)) fail(`${s.at('gpus')}[${i}]`, 'a GPU id (an integer >= 0)', id);
    if (v.indexOf(id) !== i) throw new ConfigError(`${s.at('gpus')}[${i}]`, `GPU ${id} is listed twice`);
  });
  return [...(v as number[])];
}
