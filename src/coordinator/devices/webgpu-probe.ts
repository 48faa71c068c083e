// Runs src/worker/adapter-probe.ts in a child process with the environment a worker would get,
// and reads what it found: the adapters Dawn sees there, and (from stderr) what the Vulkan
// device-select layer printed about its choice. Each probe takes about half a second.
import { spawn } from 'node:child_process';
import { parseDeviceSelectDebug, type AdapterProbe, type DeviceSelectReport } from '../../shared/adapters.ts';
import { childExecArgv, projectFile } from '../../shared/runtime.ts';

export interface ProbeOutcome extends AdapterProbe {
  /** What the device-select layer printed; null when it is not installed (or disabled). */
  deviceSelect: DeviceSelectReport | null;
}

const PROBE_TIMEOUT_MS = 60_000;

export function probeAdapters(env: Record<string, string>, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...childExecArgv(), projectFile('worker/adapter-probe')], {
      env: { ...process.env, ...env, MESA_VK_DEVICE_SELECT_DEBUG: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const failed = (why: string): ProbeOutcome => ({ loaded: false, error: why, adapter: null, adapters: [], deviceSelect: parseDeviceSelectDebug(stderr) });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve(failed(`the adapter probe did not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve({ ...(JSON.parse(line) as AdapterProbe), deviceSelect: parseDeviceSelectDebug(stderr) });
      } catch {
        const tail = stderr
          .trim()
          .split('\n')
          .filter((l) => !isDawnNoise(l))
          .slice(-3)
          .join(' / ');
        const how = signal === 'SIGKILL' ? `took longer than ${timeoutMs / 1000} s` : signal ? `was killed by ${signal}` : `exited with code ${code}`;
        resolve(failed(`the adapter probe ${how}${tail ? `: ${tail}` : ''}`));
      }
    });
  });
}

/** Dawn's notes about limits it lowered: printed by every process that creates a device. */
export function isDawnNoise(line: string): boolean {
  return /^Warning: maxDynamic\w+ artificially reduced/.test(line);
}
