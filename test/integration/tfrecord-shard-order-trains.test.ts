// data.train.order: shards on TFRecord shards: the run header says the order (4 shards shuffled,
// 2 at a time); it trains to other weights than the global order (the order is used); 1 and 2
// workers train to the same weights (the order is the plan's, independent of N); a hold-out
// (data.evalFraction) keeps the order over the rows it leaves for training.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { trainDigitsOn } from '../helpers/digit-shard-run.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';
import { assertWeightsClose, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('tfrecord-shard-order');

async function run(t: TestContext, name: string, order: Record<string, unknown>, workers: number, data: Record<string, unknown> = {}) {
  const lines: string[] = [];
  const source = {
    type: 'tfrecord',
    files: path.join(dir, 'shards', 'train-*'),
    image: 'image/encoded',
    label: 'image/class/label',
    size: [28, 28],
    channels: 1,
    ...order,
  };
  const r = await trainDigitsOn(dir, name, source, { threads: 1, steps: 10, seed: 5, workers, lines, data });
  t.diagnostic(`${name}: ${lines.find((l) => l.includes('training sample'))?.trim()}`);
  return { r, lines };
}

test('order: shards is said, used, and the same on 1 and 2 workers; a hold-out keeps it', async (t) => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 40);
  writeDigitShards(digits, path.join(dir, 'shards'), 4);
  const shardOrder = { order: 'shards', openShards: 2 };
  const one = await run(t, 'one', shardOrder, 1);
  const two = await run(t, 'two', shardOrder, 2);
  const global = await run(t, 'global', {}, 1);
  assert.ok(
    one.lines.some((l) => l.includes('10 steps, in shard order (4 shards shuffled, 2 at a time)')),
    one.lines.join('\n'),
  );
  assert.ok(!global.lines.some((l) => l.includes('shard order')), 'the global order says nothing of shards');
  assertWeightsClose(t, two.r.weights, one.r.weights, '2 workers against 1, in shard order');
  assert.ok(
    one.r.weights.some((w, i) => Math.abs(w - global.r.weights[i]!) > 1e-3),
    'the shard order trains on other batches than the global order',
  );
  const held = await run(t, 'held', shardOrder, 1, { evalFraction: 0.25 });
  assert.ok(
    held.lines.some((l) => l.includes('30 training samples, 10 eval samples') && l.includes('in shard order (4 shards shuffled, 2 at a time)')),
    held.lines.join('\n'),
  );
});
