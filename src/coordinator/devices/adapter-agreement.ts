// Each webgpu worker must compute on the adapter its GPU was pinned to: the probe that checked
// the pinning saw one adapter with the worker's environment, and the worker must report the same.
import { adapterLabel } from '../../shared/adapters.ts';
import { MgpuError } from '../../shared/errors.ts';
import type { ReadyMessage } from '../../shared/protocol.ts';
import type { WorkerDevice } from './devices.ts';

export function checkAdapters(devices: WorkerDevice[], ready: ReadyMessage[]): void {
  ready.forEach((r, i) => {
    const want = devices[i]?.expectAdapter;
    if (!want) return;
    const got = r.adapter ? adapterLabel(r.adapter) : `no adapter (backend ${r.backend})`;
    if (got !== want) {
      throw new MgpuError('E_DEVICES', `worker rank ${r.rank} was given ${devices[i]!.label} but computes on ${got}, not on ${want}`, {
        hint: 'the Vulkan device choice differs between the probe and the worker; set devices.allowUnpinned: true to share the default GPU',
      });
    }
  });
}
