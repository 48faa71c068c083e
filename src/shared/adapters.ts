// WebGPU adapters as the coordinator and the workers describe them, and the text that tells
// which Vulkan device a process was given. Pure functions: the probe process and the workers
// produce the inputs, the tests feed them fakes.
//
// How a worker is pinned to one GPU under Vulkan (CUDA_VISIBLE_DEVICES does not reach it): Mesa's
// device-select layer (VK_LAYER_MESA_device_select, an implicit layer in mesa-vulkan-drivers)
// sits in front of every Vulkan driver, NVIDIA's included, and reads each device's PCI address
// through VK_EXT_pci_bus_info. With DRI_PRIME=pci-<domain>_<bus>_<dev>_<fn> it puts that device
// first, and with MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE=1 it hides every other one. When the
// tag matches no device it silently falls back to another rule, so each choice is verified: with
// MESA_VK_DEVICE_SELECT_DEBUG=1 the layer prints the devices it saw (with their PCI addresses) and
// which rule chose, and the choice counts only when the tag rule chose the device at that address.

/** One adapter as Dawn reports it (GPUAdapterInfo), plus what mgpu-train derives from it. */
export interface AdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A CPU implementation (lavapipe/llvmpipe, SwiftShader, WARP): not a GPU. */
  software: boolean;
}

const SOFTWARE = /llvmpipe|lavapipe|swiftshader|software rasterizer|microsoft basic render|\bwarp\b/i;

export function isSoftwareAdapter(info: {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}): boolean {
  if (info.isFallbackAdapter === true) return true;
  if ((info.architecture ?? '').toLowerCase() === 'software') return true;
  return SOFTWARE.test(`${info.vendor ?? ''} ${info.device ?? ''} ${info.description ?? ''}`);
}

/** What src/worker/adapter-probe.ts finds in a process with a given environment. */
export interface AdapterProbe {
  loaded: boolean; // the webgpu package (Dawn's binary for this platform) loaded
  error: string | null; // why there is no adapter
  adapter: AdapterInfo | null; // the one Dawn gives by default (what a worker would use)
  adapters: { backend: string; name: string }[]; // every adapter Dawn lists
}

/** Dawn's GPUAdapterInfo as mgpu-train keeps it. */
export function adapterInfoOf(i: { vendor: string; architecture: string; device: string; description: string; isFallbackAdapter?: boolean }): AdapterInfo {
  return { vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description, software: isSoftwareAdapter(i) };
}

/** What to print for an adapter: its description, else vendor and device. */
export function adapterLabel(a: AdapterInfo): string {
  const text = a.description || [a.vendor, a.device].filter(Boolean).join(' ') || 'unnamed adapter';
  return a.software ? `${text} (software)` : text;
}

/**
 * The adapters Dawn lists when asked for one that does not exist (`adapter=<name>` in create()):
 *   Error: no suitable backends found
 *   Available adapters:
 *    * backend: 'vulkan', name: 'NVIDIA H200'
 */
export function parseDawnAdapterList(text: string): { backend: string; name: string }[] {
  const out: { backend: string; name: string }[] = [];
  for (const m of text.matchAll(/^\s*\*\s*backend:\s*'([^']*)',\s*name:\s*'(.*)'\s*$/gm)) out.push({ backend: m[1]!, name: m[2]! });
  return out;
}

/** A device as the device-select layer lists it with MESA_VK_DEVICE_SELECT_DEBUG=1. */
export interface SelectableDevice {
  index: number;
  vendorId: number;
  deviceId: number;
  name: string;
  type: string; // "discrete GPU", "CPU", ...
  pciBus: string | null; // "0000:19:00.0", when the driver reports it
}

export interface DeviceSelectReport {
  devices: SelectableDevice[];
  /** The rule that chose the default device (e.g. "dri_prime_tag_default"), and its index. */
  rule: string | null;
  selected: number | null;
}

/**
 * Parses the layer's debug output:
 *   selectable devices:
 *     GPU 0: 10de:2335 "NVIDIA H200" discrete GPU 0000:19:00.0
 *   device-select: device_select_find_dri_prime_tag_default selected 0
 * Returns null when the layer printed nothing (it is not installed, or was disabled).
 */
export function parseDeviceSelectDebug(stderr: string): DeviceSelectReport | null {
  const lines = stderr.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'selectable devices:');
  if (start < 0) return null;
  const devices: SelectableDevice[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\s*GPU (\d+): ([0-9a-f]+):([0-9a-f]+) "(.*)" (.*?)\s*$/i.exec(line);
    if (!m) {
      if (devices.length) break;
      continue;
    }
    const rest = m[5]!;
    const bus = /([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f])$/i.exec(rest);
    devices.push({
      index: Number(m[1]),
      vendorId: parseInt(m[2]!, 16),
      deviceId: parseInt(m[3]!, 16),
      name: m[4]!,
      type: (bus ? rest.slice(0, bus.index) : rest).trim(),
      pciBus: bus ? bus[1]!.toLowerCase() : null,
    });
  }
  let rule: string | null = null;
  let selected: number | null = null;
  for (const m of stderr.matchAll(/device-select: (?:device_select_)?(\w+?) selected (-?\d+)/g)) {
    rule = m[1]!.replace(/^find_/, '');
    selected = Number(m[2]);
  }
  return { devices, rule, selected };
}

/**
 * nvidia-smi's PCI bus id ("00000000:19:00.0", an 8-digit domain) as the layer's tag
 * ("pci-0000_19_00_0") and in the short form the layer prints ("0000:19:00.0").
 */
export function pciAddress(busId: string): { tag: string; short: string } | null {
  const m = /^(?:[0-9a-f]*?)([0-9a-f]{1,4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(busId.trim());
  if (!m) return null;
  const domain = m[1]!.padStart(4, '0').toLowerCase();
  const [bus, dev, fn] = [m[2]!.toLowerCase(), m[3]!.toLowerCase(), m[4]!];
  return { tag: `pci-${domain}_${bus}_${dev}_${fn}`, short: `${domain}:${bus}:${dev}.${fn}` };
}

/** The environment that makes the device-select layer expose only the GPU at `busId`. */
export function pinningEnv(busId: string): Record<string, string> | null {
  const addr = pciAddress(busId);
  return addr ? { DRI_PRIME: addr.tag, MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' } : null;
}

export type PinCheck = { ok: true; device: SelectableDevice } | { ok: false; why: string };

/** Whether the layer's report shows that the device at `busId` was chosen by its PCI tag. */
export function checkPinned(report: DeviceSelectReport | null, busId: string): PinCheck {
  const want = pciAddress(busId);
  if (!want) return { ok: false, why: `nvidia-smi gave the PCI bus id "${busId}", which is not of the form 00000000:19:00.0` };
  if (!report) return { ok: false, why: 'the Vulkan device-select layer printed nothing: it is not installed or not loaded (NODEVICE_SELECT set?)' };
  const listed = report.devices.map((d) => `${d.name} at ${d.pciBus ?? 'no PCI address'}`).join(', ') || 'no device';
  const at = report.devices.find((d) => d.pciBus === want.short);
  if (!at) return { ok: false, why: `the device-select layer lists ${listed}: none at ${want.short}` };
  if (report.devices.length > 1 && (report.rule !== 'dri_prime_tag_default' || report.selected !== at.index)) {
    return {
      ok: false,
      why: `the device-select layer chose device ${report.selected ?? '?'} by rule ${report.rule ?? '?'}, not ${at.name} at ${want.short} by its PCI tag (it lists ${listed})`,
    };
  }
  return { ok: true, device: at };
}
