// The text the Vulkan device-select layer prints with MESA_VK_DEVICE_SELECT_DEBUG=1 is what
// tells which GPU a worker was given: parsed into devices with PCI addresses and the rule that
// chose, and a choice counts as pinned only when the PCI-tag rule chose the device at that address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPinned, parseDeviceSelectDebug, pciAddress, pinningEnv } from '../../src/shared/adapters.ts';

const FOUR_GPUS = `Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16
selectable devices:
  GPU 0: 10de:2335 "NVIDIA H200" discrete GPU 0000:19:00.0
  GPU 1: 10de:2335 "NVIDIA H200" discrete GPU 0000:3b:00.0
  GPU 2: 10de:2335 "NVIDIA H200" discrete GPU 0000:4c:00.0
  GPU 3: 10005:0 "llvmpipe (LLVM 15.0.6, 256 bits)" CPU
device-select: DRI_PRIME=0, default_idx so far: -1
device-select: device_select_find_dri_prime_tag_default selected 1
`;

test('parses every listed device, its ids, type and PCI address, and the rule that chose', () => {
  const r = parseDeviceSelectDebug(FOUR_GPUS)!;
  assert.equal(r.devices.length, 4);
  assert.deepEqual(r.devices[1], { index: 1, vendorId: 0x10de, deviceId: 0x2335, name: 'NVIDIA H200', type: 'discrete GPU', pciBus: '0000:3b:00.0' });
  assert.deepEqual(r.devices[3], { index: 3, vendorId: 0x10005, deviceId: 0, name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'CPU', pciBus: null });
  assert.equal(r.rule, 'dri_prime_tag_default');
  assert.equal(r.selected, 1);
});

test('no "selectable devices" block: the layer is not there', () => {
  assert.equal(parseDeviceSelectDebug('Warning: something else\n'), null);
});

test("nvidia-smi bus ids become the layer's tag and its short form", () => {
  assert.deepEqual(pciAddress('00000000:3B:00.0'), { tag: 'pci-0000_3b_00_0', short: '0000:3b:00.0' });
  assert.deepEqual(pinningEnv('00000001:19:00.1'), { DRI_PRIME: 'pci-0001_19_00_1', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
  assert.equal(pciAddress('19:00'), null);
});

test('pinned: the tag rule chose the device at the wanted address', () => {
  const r = parseDeviceSelectDebug(FOUR_GPUS);
  const ok = checkPinned(r, '00000000:3B:00.0');
  assert.ok(ok.ok && ok.device.index === 1);
});

test('not pinned: another device chosen, another rule, no device at the address, no layer', () => {
  const r = parseDeviceSelectDebug(FOUR_GPUS);
  const other = checkPinned(r, '00000000:19:00.0');
  assert.ok(!other.ok && /chose device 1 by rule dri_prime_tag_default, not NVIDIA H200 at 0000:19:00.0/.test(other.why), JSON.stringify(other));
  const fallback = parseDeviceSelectDebug(
    FOUR_GPUS.replace('device_select_find_dri_prime_tag_default selected 1', 'device_select_find_boot_vga_default selected 1'),
  );
  const byBootVga = checkPinned(fallback, '00000000:3b:00.0');
  assert.ok(!byBootVga.ok && /by rule boot_vga_default/.test(byBootVga.why));
  const missing = checkPinned(r, '00000000:99:00.0');
  assert.ok(!missing.ok && /none at 0000:99:00.0/.test(missing.why));
  const none = checkPinned(null, '00000000:19:00.0');
  assert.ok(!none.ok && /device-select layer printed nothing/.test(none.why));
});

test('one device listed (the layer had nothing to choose between): pinned when it is at the address', () => {
  const one = parseDeviceSelectDebug('selectable devices:\n  GPU 0: 10de:2335 "NVIDIA H200" discrete GPU 0000:19:00.0\n');
  assert.ok(checkPinned(one, '00000000:19:00.0').ok);
  assert.ok(!checkPinned(one, '00000000:3b:00.0').ok);
});
