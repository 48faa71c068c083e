// The wasm kernels src/worker/wasm-kernels/elementwise.ts replaces where the convolution addon is
// built, in the order registerWasmGradKernels reports them: written out here, not imported, so
// that the tests listing what is replaced check the module's list rather than repeat it.
export const ELEMENTWISE = [
  'Greater',
  'GreaterEqual',
  'Less',
  'LessEqual',
  'Equal',
  'NotEqual',
  'LogicalAnd',
  'LogicalOr',
  'Maximum',
  'Minimum',
  'Select',
  'LeakyRelu',
];
