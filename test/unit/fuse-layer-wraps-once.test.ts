// fuse-layer.ts replaces a prototype's method once, keeps tfjs's to fall back to and to put back,
// and refuses a tfjs whose class lacks the method, naming the class and the method.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWrapped, unwrapMethod, wrapMethod } from '../../src/worker/fuse-layer.ts';

class Layer {
  call(x: number): number {
    return x + 1;
  }
}

test('wraps once: a second wrap does nothing, and the wrapper falls back to the kept method', () => {
  const proto = Layer.prototype;
  type Call = Layer['call'];
  const twice = (tfjs: Call): Call =>
    function (this: Layer, x: number) {
      return 2 * tfjs.call(this, x);
    };
  wrapMethod<Call>(proto, 'call', 'Layer', twice);
  wrapMethod<Call>(proto, 'call', 'Layer', twice);
  assert.equal(new Layer().call(1), 4, 'wrapped once: 2 · (1 + 1)');
  assert.ok(isWrapped(proto, 'call'));
  assert.ok(!isWrapped(proto, 'apply'));
  assert.ok(!isWrapped(Object.create(null) as object, 'call'), 'a prototype never wrapped');
  unwrapMethod(proto, 'call');
  assert.equal(new Layer().call(1), 2, "tfjs's method is back");
  assert.ok(!isWrapped(proto, 'call'));
  unwrapMethod(proto, 'call'); // nothing to put back: no error
  wrapMethod<Call>(proto, 'call', 'Layer', twice);
  assert.equal(new Layer().call(1), 4, 'wrapped again after unwrapping');
  unwrapMethod(proto, 'call');
});

test('a class without the method of its own is refused, naming it', () => {
  class Child extends Layer {}
  assert.throws(
    () => wrapMethod(Child.prototype, 'call', 'Child', (f) => f),
    /tfjs-layers' Child has no call of its own to wrap: this tfjs version is not one mgpu-train knows/,
  );
  assert.equal(Object.getOwnPropertyDescriptor(Child.prototype, 'call'), undefined, 'nothing written');
});
