// How the worker fuses tfjs-layers' own classes (fused-batch-norm.ts, fused-relu6.ts,
// fused-relu-layer.ts): it replaces one method of the class's prototype, which every instance of
// this tf shares however the model was built or loaded, once per tf; the replacement runs kernels
// of our own where the backend in use has them registered, and tfjs's method, kept here, elsewhere.
// Nothing is subclassed or registered with tf.serialization, so a saved model names tfjs's class
// with tfjs's config, and plain tfjs loads it. Unwrapping puts tfjs's method back (tests compare
// the two in one process).
import type { KernelConfig } from '@tensorflow/tfjs';
import type { TF } from '../nets/net-options.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a method of any signature
type Method = (this: any, ...args: any[]) => unknown;

/** tfjs's own methods, per wrapped prototype and name. */
const tfjsMethods = new WeakMap<object, Map<string, Method>>();

/**
 * Replaces proto[name] by wrap(tfjs's own method), once: a later call for the same prototype and
 * name does nothing. `what` names the class in the error for a tfjs without that method.
 */
export function wrapMethod<F extends Method>(proto: object, name: string, what: string, wrap: (tfjs: F) => F): void {
  const kept = tfjsMethods.get(proto) ?? new Map<string, Method>();
  if (kept.has(name)) return;
  const tfjs = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
  if (typeof tfjs !== 'function') throw new Error(`tfjs-layers' ${what} has no ${name} of its own to wrap: this tfjs version is not one mgpu-train knows`);
  kept.set(name, tfjs as Method);
  tfjsMethods.set(proto, kept);
  (proto as Record<string, unknown>)[name] = wrap(tfjs as F);
}

/** Whether proto[name] is wrapped. */
export const isWrapped = (proto: object, name: string): boolean => tfjsMethods.get(proto)?.has(name) ?? false;

/** Puts tfjs's own proto[name] back, if it was wrapped. */
export function unwrapMethod(proto: object, name: string): void {
  const tfjs = tfjsMethods.get(proto)?.get(name);
  if (!tfjs) return;
  (proto as Record<string, unknown>)[name] = tfjs;
  tfjsMethods.get(proto)!.delete(name);
}

/** Whether the backend in use has a kernel of this name registered. */
export const registered = (tf: TF, name: string): boolean => (tf.getKernel(name, tf.getBackend()) as KernelConfig | undefined) !== undefined;
