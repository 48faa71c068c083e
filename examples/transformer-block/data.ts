// A small sequence task, generated from a seed: 8 steps of 4 random features; the class is the
// step (first, middle or last third) where feature 0 is largest, so the model must compare
// positions. data.train gets 2,048 samples of seed 1, data.eval 512 of seed 2.
export const STEPS = 8;
export const FEATURES = 4;

/** A seeded uniform [0, 1) generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` samples of seed `seed`: x [STEPS, FEATURES] (row-major), y the class 0..2. */
export function sequences(count: number, seed: number): { x: number[]; y: number }[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const x = Array.from({ length: STEPS * FEATURES }, next);
    let best = 0;
    for (let s = 1; s < STEPS; s++) if (x[s * FEATURES]! > x[best * FEATURES]!) best = s;
    return { x, y: Math.min(2, Math.floor((best * 3) / STEPS)) };
  });
}

export default async function* samples({ split }: { split: string }): AsyncGenerator<{ x: number[]; y: number }> {
  yield* split === 'data.eval' ? sequences(512, 2) : sequences(2048, 1);
}
