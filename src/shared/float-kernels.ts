// The elementwise loops of a step: summing gradients, their squared norm, the finiteness check
// and the optimizers' updates. Each runs in the project's C addon (native/src/float-kernels.c,
// vectorised by the compiler) when it is built, else in the JavaScript below, which does the same
// arithmetic operation for operation: float32 adds, float64 squares summed per CHUNK over 8 lanes,
// the updates as tfjs's float32 operations in tfjs's order (Math.fround after each one here, C
// float arithmetic there). Either way a run gives the same bits
// (test/unit/float-kernels-native-equals-js.test.ts). MGPU_NATIVE_KERNELS=0 turns the addon off.
import { loadAddon } from './native-addon.ts';

export interface FloatKernels {
  readonly kind: 'native' | 'js';
  /** out[i] += g[i] (float32). */
  add(out: Float32Array, g: Float32Array): void;
  /**
   * out[i] += g[i] when g is given; then sums[k] = Σ out[i]² over chunk k of `chunk` floats (a
   * multiple of 8): float64, lane i mod 8 summed in order, lanes combined ((0+1)+(2+3))+((4+5)+(6+7)).
   */
  addSquares(out: Float32Array, g: Float32Array | null, chunk: number, sums: Float64Array): void;
  /** No NaN and no ±Infinity in a. */
  allFinite(a: Float32Array): boolean;
  /** w[i] = f(f(f(c) * g[i]) + w[i]) with f = float32 rounding: SGD with c = -lr, as tfjs's add(mul(scalar(c), g), w). */
  sgd(w: Float32Array, g: Float32Array, c: number): void;
  /**
   * The Adam update in float32 operations, tfjs's order (src/coordinator/engine/optimizers/adam.ts), with
   * k = [beta1, beta2, 1 - beta1, 1 - beta2, 1 - beta1^t, 1 - beta2^t, epsilon, -lr, decay] as
   * float32: m = m b1 + g c1; v = v b2 + (g g) c2; w = ((m / d1) / (sqrt(v / d2) + eps)) (-lr) + w decay.
   */
  adam(w: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, k: Float32Array): void;
  /** Momentum (momentum.ts), k = [momentum, -lr, nesterov ? 1 : 0]: a = mu a + g; w = c a + w, or nesterov w = c (g + a mu) + w. */
  momentum(w: Float32Array, g: Float32Array, a: Float32Array, k: Float32Array): void;
  /**
   * RMSProp (rmsprop.ts), centered when mg is given, k = [decay, 1 - decay, momentum, epsilon, lr]:
   * ms = ms rho + (g g)(1 - rho); mg = mg rho + g (1 - rho); mom = mom mu + (g lr) / sqrt(ms + eps)
   * (centered: sqrt(ms - (mg mg + eps))); w = w - mom.
   */
  rmsprop(w: Float32Array, g: Float32Array, ms: Float32Array, mom: Float32Array, mg: Float32Array | null, k: Float32Array): void;
  /** Adagrad (adagrad.ts), k = [epsilon, -lr]: acc = acc + g g; w = (g / sqrt(acc + eps)) (-lr) + w. */
  adagrad(w: Float32Array, g: Float32Array, acc: Float32Array, k: Float32Array): void;
}

const js: FloatKernels = {
  kind: 'js',
  add(out, g) {
    sameLength('add', out, g);
    for (let i = 0; i < out.length; i++) out[i]! += g[i]!;
  },
  addSquares(out, g, chunk, sums) {
    if (g) sameLength('addSquares', out, g);
    if (chunk < 8 || chunk % 8 !== 0) throw new RangeError('addSquares: chunk must be a positive multiple of 8');
    if (sums.length !== Math.ceil(out.length / chunk)) throw new RangeError('addSquares: sums must hold one float64 per chunk');
    for (let c = 0, k = 0; c < out.length; c += chunk, k++) {
      const end = Math.min(out.length, c + chunk);
      if (g) for (let i = c; i < end; i++) out[i]! += g[i]!;
      sums[k] = chunkSquares(out, c, end);
    }
  },
  allFinite(a) {
    for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
    return true;
  },
  sgd(w, g, c) {
    sameLength('sgd', w, g);
    const c32 = Math.fround(c);
    for (let i = 0; i < w.length; i++) w[i] = Math.fround(c32 * g[i]!) + w[i]!;
  },
  adam(w, g, m, v, k) {
    sameLength('adam', w, g);
    sameLength('adam', w, m);
    sameLength('adam', w, v);
    const [b1, b2, c1, c2, d1, d2, eps, nlr, wd] = scalarsOf('adam', k, 9, 'beta1, beta2, 1-beta1, 1-beta2, 1-beta1^t, 1-beta2^t, epsilon, -lr, decay');
    for (let i = 0; i < w.length; i++) {
      const gi = g[i]!;
      const mi = Math.fround(Math.fround(m[i]! * b1!) + Math.fround(gi * c1!));
      const vi = Math.fround(Math.fround(v[i]! * b2!) + Math.fround(Math.fround(gi * gi) * c2!));
      m[i] = mi;
      v[i] = vi;
      const step = Math.fround(Math.fround(mi / d1!) / Math.fround(Math.fround(Math.sqrt(Math.fround(vi / d2!))) + eps!));
      w[i] = Math.fround(step * nlr!) + Math.fround(w[i]! * wd!);
    }
  },
  momentum(w, g, a, k) {
    sameLength('momentum', w, g);
    sameLength('momentum', w, a);
    const [mu, c, nesterov] = scalarsOf('momentum', k, 3, 'momentum, -lr, nesterov');
    if (nesterov !== 0) {
      for (let i = 0; i < w.length; i++) {
        const gi = g[i]!;
        const ai = Math.fround(Math.fround(mu! * a[i]!) + gi);
        a[i] = ai;
        w[i] = Math.fround(c! * Math.fround(gi + Math.fround(ai * mu!))) + w[i]!;
      }
    } else {
      for (let i = 0; i < w.length; i++) {
        const ai = Math.fround(Math.fround(mu! * a[i]!) + g[i]!);
        a[i] = ai;
        w[i] = Math.fround(c! * ai) + w[i]!;
      }
    }
  },
  rmsprop(w, g, ms, mom, mg, k) {
    for (const x of [g, ms, mom, ...(mg ? [mg] : [])]) sameLength('rmsprop', w, x);
    const [rho, omr, mu, eps, lr] = scalarsOf('rmsprop', k, 5, 'decay, 1-decay, momentum, epsilon, lr');
    if (mg) {
      for (let i = 0; i < w.length; i++) {
        const gi = g[i]!;
        const s = Math.fround(Math.fround(ms[i]! * rho!) + Math.fround(Math.fround(gi * gi) * omr!));
        const m = Math.fround(Math.fround(mg[i]! * rho!) + Math.fround(gi * omr!));
        const q = Math.fround(Math.fround(gi * lr!) / Math.fround(Math.sqrt(Math.fround(s - Math.fround(Math.fround(m * m) + eps!)))));
        const p = Math.fround(Math.fround(mom[i]! * mu!) + q);
        ms[i] = s;
        mg[i] = m;
        mom[i] = p;
        w[i] = w[i]! - p;
      }
    } else {
      for (let i = 0; i < w.length; i++) {
        const gi = g[i]!;
        const s = Math.fround(Math.fround(ms[i]! * rho!) + Math.fround(Math.fround(gi * gi) * omr!));
        const p = Math.fround(Math.fround(mom[i]! * mu!) + Math.fround(Math.fround(gi * lr!) / Math.fround(Math.sqrt(Math.fround(s + eps!)))));
        ms[i] = s;
        mom[i] = p;
        w[i] = w[i]! - p;
      }
    }
  },
  adagrad(w, g, acc, k) {
    sameLength('adagrad', w, g);
    sameLength('adagrad', w, acc);
    const [eps, c] = scalarsOf('adagrad', k, 2, 'epsilon, -lr');
    for (let i = 0; i < w.length; i++) {
      const gi = g[i]!;
      const a = Math.fround(acc[i]! + Math.fround(gi * gi));
      acc[i] = a;
      w[i] = Math.fround(Math.fround(gi / Math.fround(Math.sqrt(Math.fround(a + eps!)))) * c!) + w[i]!;
    }
  },
};

/** An update kernel's k as plain numbers, checked to hold `want` of them. */
function scalarsOf(fn: string, k: Float32Array, want: number, what: string): number[] {
  if (k.length !== want) throw new RangeError(`${fn}: k must hold ${want} floats (${what})`);
  return Array.from(k);
}

function chunkSquares(a: Float32Array, start: number, end: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0,
    s4 = 0,
    s5 = 0,
    s6 = 0,
    s7 = 0;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    s0 += a[i]! * a[i]!;
    s1 += a[i + 1]! * a[i + 1]!;
    s2 += a[i + 2]! * a[i + 2]!;
    s3 += a[i + 3]! * a[i + 3]!;
    s4 += a[i + 4]! * a[i + 4]!;
    s5 += a[i + 5]! * a[i + 5]!;
    s6 += a[i + 6]! * a[i + 6]!;
    s7 += a[i + 7]! * a[i + 7]!;
  }
  // The tail (fewer than 8) goes to lanes 0, 1, ... in order.
  const lanes = [s0, s1, s2, s3, s4, s5, s6, s7];
  for (let l = 0; i < end; i++, l++) lanes[l]! += a[i]! * a[i]!;
  return lanes[0]! + lanes[1]! + (lanes[2]! + lanes[3]!) + (lanes[4]! + lanes[5]! + (lanes[6]! + lanes[7]!));
}

function sameLength(fn: string, a: Float32Array, b: Float32Array): void {
  if (a.length !== b.length) throw new RangeError(`${fn}: the arrays differ in length (${a.length} and ${b.length})`);
}

/** Why the JavaScript kernels are in use (null when the addon is, or before the first call). */
export let nativeKernelsUnavailableReason: string | null = null;
let chosen: FloatKernels | undefined;

/** The kernels for this thread: the addon's when it loads, else JavaScript. Chosen once. */
export function floatKernels(): FloatKernels {
  if (chosen) return chosen;
  chosen = js;
  if (/^(0|false|off|no)$/i.test(process.env.MGPU_NATIVE_KERNELS ?? '')) {
    nativeKernelsUnavailableReason = `turned off by MGPU_NATIVE_KERNELS=${process.env.MGPU_NATIVE_KERNELS}`;
    return chosen;
  }
  const got = loadAddon<Omit<FloatKernels, 'kind'>>('mgpu_float_kernels', 'float kernels', [
    'add',
    'addSquares',
    'allFinite',
    'sgd',
    'adam',
    'momentum',
    'rmsprop',
    'adagrad',
  ]);
  if (!got.addon) {
    nativeKernelsUnavailableReason = got.reason;
    return chosen;
  }
  const a = got.addon;
  chosen = {
    kind: 'native',
    add: a.add,
    addSquares: a.addSquares,
    allFinite: a.allFinite,
    sgd: a.sgd,
    adam: a.adam,
    momentum: a.momentum,
    rmsprop: a.rmsprop,
    adagrad: a.adagrad,
  };
  return chosen;
}

/** The JavaScript kernels, whatever is built: for tests that compare the two. */
export const jsFloatKernels: FloatKernels = js;
