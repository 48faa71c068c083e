// A short-lived process the coordinator starts before the workers, with the environment a worker
// would get: which WebGPU adapters Dawn sees there, and which one it gives by default. It prints
// one JSON line (an AdapterProbe) on stdout and exits; what the Vulkan layers print goes to
// stderr, which the coordinator reads too (src/coordinator/devices/webgpu-probe.ts). The coordinator
// itself never loads Dawn or tfjs.
import type { AdapterProbe } from '../shared/adapters.ts';
import { adapterInfoOf, parseDawnAdapterList } from '../shared/adapters.ts';
import { messageOf } from '../shared/errors.ts';

async function probe(): Promise<AdapterProbe> {
  let webgpu: typeof import('webgpu');
  try {
    webgpu = await import('webgpu');
  } catch (err) {
    return { loaded: false, error: `the webgpu package did not load: ${(err as Error).message.split('\n')[0]}`, adapter: null, adapters: [] };
  }
  // Dawn lists every adapter when asked for one that does not exist.
  let adapters: AdapterProbe['adapters'] = [];
  try {
    await webgpu.create(['adapter=mgpu-train: list every adapter']).requestAdapter();
  } catch (err) {
    adapters = parseDawnAdapterList(messageOf(err));
  }
  const found = await webgpu.create([]).requestAdapter({ powerPreference: 'high-performance' });
  if (!found) return { loaded: true, error: 'Dawn found no adapter', adapter: null, adapters };
  return { loaded: true, error: null, adapters, adapter: adapterInfoOf(found.info) };
}

process.stdout.write(`${JSON.stringify(await probe())}\n`, () => process.exit(0));
