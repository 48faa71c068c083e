// A sample checked in a data thread (data.threads) fails with the message the coordinator's
// thread gives for it: a shape unlike sample 0's, a non-finite value, a class index that is not
// an integer, and a label the loss's rule refuses (checked as the row comes back).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mapStyleDataset } from '../../src/data/map-module.ts';
import type { MapStyle } from '../../src/data/map-style.ts';
import { produceModule } from '../../src/data/sample-module.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const file = path.join(tempDir('map-thread-checks'), 'bad.ts');
fs.writeFileSync(
  file,
  `export default {
  length: 6,
  get(i: number) {
    if (i === 1) return { x: [1, 2, 3], y: 0 };
    if (i === 2) return { x: [1, NaN], y: 0 };
    if (i === 3) return { x: [1, 2], y: 0.5 };
    if (i === 4) return { x: [1, 2], y: 7 };
    return { x: [i, 1], y: 1 };
  },
};
`,
);

/** The message sample `i` fails with, get() in `threads` threads (null: this thread). */
async function messageOf(i: number, threads: number | null): Promise<string> {
  const made = await produceModule({ type: 'module', module: file }, 'data.train', null);
  const ds = await mapStyleDataset(made.produced as MapStyle, made.where, 'data.train', made.file, threads);
  ds.labels.checkEach!((v) => v >= 0 && v < 3, 'class indices in [0, 3)');
  try {
    await ds.pipeline!.ready(Uint32Array.of(5, i), 0);
    return assert.fail(`sample ${i} should fail`);
  } catch (err) {
    assert.equal((err as { code?: string }).code, 'E_DATA');
    return (err as Error).message;
  } finally {
    await ds.pipeline!.close();
  }
}

test('each bad sample gives the same E_DATA message in a thread as in the coordinator', async () => {
  const expected = [
    /sample 1: x has shape \[3\] but sample 0's/,
    /sample 2: x holds NaN/,
    /sample 3: y is 0\.5/,
    /sample 4: its label is 7; the loss expects class indices/,
  ];
  for (const [k, i] of [1, 2, 3, 4].entries()) {
    const here = await messageOf(i, null);
    assert.match(here, expected[k]!);
    assert.equal(await messageOf(i, 2), here);
  }
});
