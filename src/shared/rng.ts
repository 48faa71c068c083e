// Seeded randomness for everything a run must be able to repeat: the data order of each epoch
// and (through Math.random) the initial weights. The generator is mulberry32 (Tommy Ettinger):
// 32 bits of state, a period of 2^32, fast, and good enough for shuffling and initialisers.
// Independent streams (epoch k of seed s, the Math.random stream of seed s, ...) come from
// hashing (seed, tag, ...) into the 32-bit state with murmur3's fmix32, so any one of them can
// be recomputed alone, e.g. the permutation of epoch 7 when resuming mid-epoch.
//
// The outputs are pinned by tests: changing any constant here changes every run's data order.

export interface Rng {
  /** Uniform integer in [0, 2^32). */
  uint32: () => number;
  /** Uniform float in [0, 1), with 32 bits of resolution. */
  float: () => number; // a plain function: Math.random = rng.float
  /** Uniform integer in [0, bound), unbiased; 1 <= bound <= 2^32. */
  below: (bound: number) => number;
}

/** Stream tags: never reuse one, never change one. */
const TAG_EPOCH = 0x45504f43; // 'EPOC'
const TAG_MATH_RANDOM = 0x4d524e44; // 'MRND'
const TAG_SHARD_ORDER = 0x53484f52; // 'SHOR'

export function mulberry32(state: number): Rng {
  let a = state >>> 0;
  const uint32 = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    uint32,
    float: () => uint32() / 0x100000000,
    below(bound) {
      if (!Number.isInteger(bound) || bound < 1 || bound > 0x100000000) throw new RangeError(`bound must be an integer in [1, 2^32], got ${bound}`);
      // Rejecting the top partial block makes `x % bound` exactly uniform.
      const limit = 0x100000000 - (0x100000000 % bound);
      let x = uint32();
      while (x >= limit) x = uint32();
      return x % bound;
    },
  };
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes integer keys (any safe integers, negative too) into one 32-bit stream state. */
export function streamState(...keys: number[]): number {
  let h = 0x9e3779b9;
  for (const k of keys) {
    if (!Number.isSafeInteger(k)) throw new RangeError(`rng keys must be safe integers, got ${k}`);
    // Both 32-bit halves count, so seeds above 2^32 do not collide with small ones.
    const lo = k >>> 0;
    const hi = Math.floor(k / 0x100000000) >>> 0;
    h = fmix32(h ^ lo);
    h = fmix32(h ^ hi);
  }
  return h;
}

/** Fisher–Yates shuffle of 0..n-1 drawn from `rng`. */
export function permutation(rng: Rng, n: number): Uint32Array {
  if (!Number.isInteger(n) || n < 0 || n > 0x100000000) throw new RangeError(`permutation size must be an integer in [0, 2^32], got ${n}`);
  const p = new Uint32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

/** The data order of one epoch: depends only on (seed, epoch, n), so it can be recomputed alone. */
export function epochPermutation(seed: number, epoch: number, n: number): Uint32Array {
  return permutation(mulberry32(streamState(TAG_EPOCH, seed, epoch)), n);
}

/** The stream of epoch `epoch`'s shard-aware order (data.train.order: shards; src/data/shard-order.ts). */
export function shardOrderRng(seed: number, epoch: number): Rng {
  return mulberry32(streamState(TAG_SHARD_ORDER, seed, epoch));
}

// Math.random is process-global, so two overlapping async scopes would interleave draws and
// could leave the wrong function installed; the async variant refuses to overlap.
let asyncScopeActive = false;

/**
 * Runs `fn` with Math.random replaced by the seeded stream of `seed`, restoring it after (also
 * on throw). tfjs seeds its unseeded initialisers from Math.random, so this makes a model's
 * initial weights a function of the config seed. `fn` must be synchronous.
 */
export function withSeededMathRandom<T>(seed: number, fn: () => T): T {
  const original = Math.random;
  Math.random = mulberry32(streamState(TAG_MATH_RANDOM, seed)).float;
  let result: T;
  try {
    result = fn();
  } finally {
    Math.random = original;
  }
  if (typeof (result as { then?: unknown } | null)?.then === 'function') {
    // The asynchronous part already ran (or will run) unseeded: fail loudly, not silently.
    throw new TypeError('withSeededMathRandom: fn returned a promise; use withSeededMathRandomAsync');
  }
  return result;
}

/** Like withSeededMathRandom, for an async `fn`: Math.random stays seeded until it settles. */
export async function withSeededMathRandomAsync<T>(seed: number, fn: () => Promise<T>): Promise<T> {
  if (asyncScopeActive) throw new Error('withSeededMathRandomAsync: another seeded scope is still running; Math.random is global, run them one after another');
  const seeded = mulberry32(streamState(TAG_MATH_RANDOM, seed)).float;
  asyncScopeActive = true;
  const original = Math.random;
  Math.random = seeded;
  try {
    return await fn();
  } finally {
    Math.random = original;
    asyncScopeActive = false;
  }
}
