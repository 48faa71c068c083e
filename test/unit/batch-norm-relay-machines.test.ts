// Over several machines the relay adds the local sums up over the machines (cluster.sum, the
// allreduce) before it answers, and posts those allreduces in the order the exchanges complete,
// one after the other (MPI matches collectives by order). A run over several machines is refused
// unless a failure ends the job (reliability.onWorkerFailure: abort): a worker restarted in the
// middle of a step cannot rejoin the other machines' collectives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchNormRelay, batchNormRelay } from '../../src/coordinator/engine/batch-norm-relay.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { fakeChild, fakeCluster, FakeWorkerSocket, settle } from '../helpers/relay-fakes.ts';

test('relay: the local sum crosses the machines before the answer, allreduces one at a time in order', async () => {
  const posted: string[] = [];
  let release!: () => void;
  const first = new Promise<void>((r) => (release = r));
  const cluster = fakeCluster(2, async (buffer, what) => {
    posted.push(what);
    if (posted.length === 1) await first; // the first allreduce is slow
    for (let i = 0; i < buffer.length; i++) buffer[i]! += 100; // the other machine's sums
  });
  const relay = new BatchNormRelay(cluster);
  const s = new FakeWorkerSocket();
  relay.attach(0, fakeChild(s), { active: [0] });
  s.send({ step: 0, batch: 1, micro: 1, k: 0, seq: 0, values: [1] });
  s.send({ step: 0, batch: 1, micro: 1, k: 0, seq: 1, values: [2] });
  await settle();
  assert.equal(posted.length, 1, 'the second allreduce was posted before the first finished');
  assert.deepEqual(s.replies, []);
  release();
  await settle();
  await settle();
  assert.deepEqual(posted, ['step 1: BatchNorm statistics (exchange 0 of micro-batch 0)', 'step 1: BatchNorm statistics (exchange 1 of micro-batch 0)']);
  assert.deepEqual(s.replies, [
    { abandoned: false, seq: 0, values: [101] },
    { abandoned: false, seq: 1, values: [102] },
  ]);
});

test('syncBatchNorm over several machines is refused unless a failure ends the job', () => {
  const cfg = (onWorkerFailure: string) =>
    validateConfig(
      {
        model: { net: 'lenet', classes: 10, inputShape: [28, 28, 1] },
        loss: 'categoricalCrossentropy',
        data: { train: { type: 'synthetic', count: 8, shape: [28, 28, 1], classes: 10 } },
        training: { batchSize: 4, steps: 1, syncBatchNorm: true },
        optimizer: { name: 'sgd', learningRate: 0.1 },
        reliability: { onWorkerFailure },
      },
      { configPath: null, cwd: '/' },
    );
  assert.throws(() => batchNormRelay(cfg('restart'), fakeCluster(2)), {
    code: 'E_CONFIG',
    message: /training\.syncBatchNorm: .*over 2 machines.*restarted/,
  });
  assert.ok(batchNormRelay(cfg('abort'), fakeCluster(2)) instanceof BatchNormRelay);
  assert.ok(batchNormRelay(cfg('restart'), fakeCluster(1)) instanceof BatchNormRelay);
  assert.equal(batchNormRelay({ ...cfg('restart'), training: { ...cfg('restart').training, syncBatchNorm: false } }, fakeCluster(2)), null);
});
