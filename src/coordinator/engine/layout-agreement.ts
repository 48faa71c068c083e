// Every worker must build the same model: the same variables, in the same order, with the same
// shapes. A mismatch names both ranks and both values, as Horovod does for mismatched tensors.
import { MgpuError } from '../../shared/errors.ts';
import type { ModelLayout } from '../../shared/layout.ts';

export function checkLayoutsAgree(layouts: ModelLayout[]): void {
  const [first, ...rest] = layouts;
  const fail = (rank: number, what: string, a: unknown, b: unknown) => {
    throw new MgpuError('E_LAYOUT', `workers disagree on the model: ${what}: rank 0 has ${JSON.stringify(a)} while rank ${rank} has ${JSON.stringify(b)}`, {
      hint: 'the model must not depend on the rank or on randomness other than the seeded Math.random',
    });
  };
  rest.forEach((other, i) => {
    const rank = i + 1;
    if (other.variables.length !== first!.variables.length) fail(rank, 'number of variables', first!.variables.length, other.variables.length);
    first!.variables.forEach((v, k) => {
      const o = other.variables[k];
      if (o!.name !== v.name) fail(rank, `name of variable ${k}`, v.name, o!.name);
      if (o!.shape.join('x') !== v.shape.join('x')) fail(rank, `shape of ${v.name}`, v.shape, o!.shape);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the layouts come from other processes, on other machines with MPI
      if (o!.dtype !== v.dtype) fail(rank, `dtype of ${v.name}`, v.dtype, o!.dtype);
      if (o!.trainable !== v.trainable) fail(rank, `trainability of ${v.name}`, v.trainable, o!.trainable);
    });
    if (JSON.stringify(other.inputShape) !== JSON.stringify(first!.inputShape)) fail(rank, 'input shape', first!.inputShape, other.inputShape);
    if (JSON.stringify(other.outputShape) !== JSON.stringify(first!.outputShape)) fail(rank, 'output shape', first!.outputShape, other.outputShape);
    if (JSON.stringify(other.inputs) !== JSON.stringify(first!.inputs)) fail(rank, 'inputs', first!.inputs, other.inputs);
    if (JSON.stringify(other.outputs) !== JSON.stringify(first!.outputs)) fail(rank, 'outputs', first!.outputs, other.outputs);
  });
}
