// The webgpu integration tests run the real path (Dawn through the npm package `webgpu`, and
// tfjs-backend-webgpu) on whatever adapter this machine has: on a machine without a GPU, Mesa's
// software Vulkan driver (lavapipe), which .ci/run installs (scripts/ci/install-vulkan-software.sh).
//
//   webgpuUnavailable()  null when an adapter is there, else why not. With MGPU_REQUIRE_WEBGPU=1
//                        (set by .ci/run) a missing adapter fails the tests instead of skipping.
//   webgpuConfig()       a Config on the webgpu backend: `workers` workers share the one adapter
//                        (devices.workersPerGpu), the software adapter allowed
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Config } from '../../src/config/types.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { probeAdapters } from '../../src/coordinator/devices/webgpu-probe.ts';

let probed: Promise<string | null> | null = null;

export function webgpuUnavailable(): Promise<string | null> {
  probed ??= probeAdapters({}).then((p) =>
    p.adapter ? null : `no WebGPU adapter on this machine (${p.error}); install one with scripts/ci/install-vulkan-software.sh`,
  );
  return probed;
}

/** Skips the test (or, under MGPU_REQUIRE_WEBGPU=1, fails it) when there is no adapter; true when it may run. */
export async function needWebgpu(t: TestContext): Promise<boolean> {
  const why = await webgpuUnavailable();
  if (why === null) return true;
  if (process.env.MGPU_REQUIRE_WEBGPU === '1') throw new Error(`MGPU_REQUIRE_WEBGPU=1 but ${why}`);
  t.skip(why);
  return false;
}

export function webgpuConfig(dir: string, raw: Record<string, unknown>, workers: number): Config {
  const name = (raw.name as string | undefined) ?? 'run';
  return validateConfig(
    {
      ...raw,
      name,
      devices: { backend: 'webgpu', allowSoftwareAdapter: true, workersPerGpu: workers, ...(raw.devices as object | undefined) },
      log: { every: 1_000_000, ...(raw.log as object | undefined) },
      runDir: (raw.runDir as string | undefined) ?? path.join(dir, 'runs', `${name}-webgpu-n${workers}`),
    },
    { configPath: null, cwd: dir },
  );
}
