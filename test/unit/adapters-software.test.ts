// A software adapter is a CPU, not a GPU: Dawn's isFallbackAdapter, the 'software' architecture,
// or a known software driver's name. And the adapter list Dawn prints for an unknown name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSoftwareAdapter, parseDawnAdapterList } from '../../src/shared/adapters.ts';

test('lavapipe, SwiftShader and fallback adapters are software; an NVIDIA GPU is not', () => {
  assert.ok(isSoftwareAdapter({ vendor: 'mesa', architecture: 'software', device: 'llvmpipe-llvm-15', description: 'llvmpipe: Mesa 25.0.7' }));
  assert.ok(isSoftwareAdapter({ vendor: 'google', architecture: '', device: '', description: 'SwiftShader Device (Subzero)' }));
  assert.ok(isSoftwareAdapter({ vendor: 'x', architecture: 'y', device: 'z', description: 'w', isFallbackAdapter: true }));
  assert.ok(!isSoftwareAdapter({ vendor: 'nvidia', architecture: 'hopper', device: '0x2335', description: 'NVIDIA H200', isFallbackAdapter: false }));
});

test("Dawn's list of available adapters", () => {
  const text =
    "no suitable backends found\nAvailable adapters:\n * backend: 'vulkan', name: 'NVIDIA H200'\n * backend: 'vulkan', name: 'llvmpipe (LLVM 15.0.6, 256 bits)'\n";
  assert.deepEqual(parseDawnAdapterList(text), [
    { backend: 'vulkan', name: 'NVIDIA H200' },
    { backend: 'vulkan', name: 'llvmpipe (LLVM 15.0.6, 256 bits)' },
  ]);
  assert.deepEqual(parseDawnAdapterList('no suitable backends found'), []);
});
