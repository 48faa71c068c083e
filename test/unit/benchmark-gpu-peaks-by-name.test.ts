// The nominal FP32 peaks the benchmark holds a GPU's rows to, by the adapter's name as Dawn and
// the drivers report it, each against the maker's data sheet (TFLOP/s, non-tensor-core, boost
// clock), written out here: the table's order matters (an L40S is not an L4, an A100 not an A10,
// an H100 PCIe not an SXM), and a name it does not know gets no peak.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gpuPeak } from '../../src/benchmark/utilisation.ts';

const SHEETS: [string, number, string][] = [
  ['NVIDIA H100 80GB HBM3', 66.9, 'NVIDIA H100 SXM'],
  ['NVIDIA H100 PCIe', 51.2, 'NVIDIA H100 PCIe'],
  ['NVIDIA H200', 66.9, 'NVIDIA H200'],
  ['NVIDIA GH200 480GB', 66.9, 'NVIDIA GH200'],
  ['NVIDIA A100-SXM4-80GB', 19.5, 'NVIDIA A100'],
  ['NVIDIA L40S', 91.6, 'NVIDIA L40S'],
  ['NVIDIA L4', 30.3, 'NVIDIA L4'],
  ['NVIDIA A10', 31.2, 'NVIDIA A10'],
  ['Tesla V100-SXM2-16GB', 15.7, 'NVIDIA V100 SXM2'],
  ['Tesla T4', 8.1, 'NVIDIA T4'],
  ['NVIDIA GeForce RTX 4090', 82.6, 'NVIDIA GeForce RTX 4090'],
  ['NVIDIA GeForce RTX 3090', 35.6, 'NVIDIA GeForce RTX 3090'],
];

for (const [adapter, tflops, name] of SHEETS) {
  test(`${adapter}: ${tflops} TFLOP/s FP32, named ${name}`, () => {
    assert.deepEqual(gpuPeak(adapter), { peak: { gflopsPerDevice: tflops * 1000, source: `nominal FP32 of ${name}`, device: 'gpu' }, missing: null });
  });
}

test('a name the table does not know: no peak, and where the known ones are listed', () => {
  assert.deepEqual(gpuPeak('llvmpipe (LLVM 15.0.6, 256 bits)'), {
    peak: null,
    missing: 'no nominal peak is known for "llvmpipe (LLVM 15.0.6, 256 bits)" (src/benchmark/utilisation.ts lists those known)',
  });
});
