// --shard-size's units: KB, MB, GB are powers of 1000 and KiB, MiB, GiB of 1024, any case, a
// bare number is bytes; anything else is E_USAGE naming the flag and what it was given.
// --shard-samples takes a whole number of at least 1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseShardSamples, parseShardSize } from '../../src/data/shards/write-size.ts';
import { MgpuError } from '../../src/shared/errors.ts';

test('sizes with decimal and binary units, and bare bytes', () => {
  assert.equal(parseShardSize('256MB'), 256_000_000);
  assert.equal(parseShardSize('256mb'), 256_000_000);
  assert.equal(parseShardSize('1.5 GB'), 1_500_000_000);
  assert.equal(parseShardSize('64MiB'), 64 * 1024 * 1024);
  assert.equal(parseShardSize('4KiB'), 4096);
  assert.equal(parseShardSize('5KB'), 5000);
  assert.equal(parseShardSize('1000000'), 1_000_000);
  assert.equal(parseShardSize('2TB'), 2e12);
});

test('a size that is not one is E_USAGE naming the flag and the text', () => {
  for (const bad of ['', 'MB', '12XB', '-5MB', '0', '0.1B', 'ten MB', '1e3MB']) {
    assert.throws(
      () => parseShardSize(bad),
      (e: unknown) =>
        e instanceof MgpuError && e.code === 'E_USAGE' && e.message === `--shard-size ${JSON.stringify(bad)} is not a size` && /256MB/.test(e.hint ?? ''),
      bad,
    );
  }
});

test('--shard-samples is a whole number of at least 1', () => {
  assert.equal(parseShardSamples('1000'), 1000);
  for (const bad of ['0', '1.5', '-3', 'ten', ''])
    assert.throws(
      () => parseShardSamples(bad),
      (e: unknown) => e instanceof MgpuError && e.code === 'E_USAGE' && e.message.startsWith(`--shard-samples ${JSON.stringify(bad)}`),
    );
});
