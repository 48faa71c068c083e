import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Duplex } from 'node:stream';
import { Channel, encodeFrame } from '../../src/shared/channel.ts';
import type { StepMessage, ToCoordinator } from '../../src/shared/protocol.ts';

const step: StepMessage = { type: 'step', step: 7, n: 8, batch: 15, slot: 1, weightsVersion: 7, stateVersion: 3, micro: 1 };

function receiver() {
  const input = new PassThrough();
  const socket = Duplex.from({ readable: input, writable: new PassThrough() });
  const got: unknown[] = [];
  new Channel<unknown, ToCoordinator>(socket, (m) => got.push(m));
  return { input, got };
}

test('frames split at every byte boundary and coalesced frames all arrive, in order', async () => {
  const frames = [
    step,
    { ...step, step: 8 },
    { type: 'shutdown' },
    { type: 'grads', rank: 1, step: 8, lossSum: 1.25, n: 7, finite: false, stateChanged: true, ms: 3.5 },
  ];
  const bytes = Buffer.concat(frames.map(encodeFrame));
  for (let cut = 1; cut < bytes.length; cut++) {
    const { input, got } = receiver();
    input.write(bytes.subarray(0, cut));
    input.write(bytes.subarray(cut));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, frames, `cut at ${cut}`);
  }
});

test('numbers keep their exact value through the codec', async () => {
  const { input, got } = receiver();
  const m = { type: 'grads', rank: 0, step: 1, lossSum: 0.1 + 0.2, n: 3, finite: true, ms: 1e-9 };
  input.write(encodeFrame(m));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, [m]);
});
