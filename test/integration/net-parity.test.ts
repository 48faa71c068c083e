// Two machines on separate network stacks (network namespaces with their own hostname and
// /dev/shm: nothing passes between them but TCP over the bridge), started with `mgpu-train
// launch`, train the model plain single-process tfjs trains with the same global batches:
// M = 2 x N = 1 and 2 x 2, sgd and adam, uneven splits and a short last batch, BatchNorm with
// M x N towers; a rerun gives the same bytes, and so does 1 machine x 2 workers.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { matchesTfjs, parityRuns } from '../helpers/machine-parity.ts';
import { finalFloats } from '../helpers/mpi.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { twoMachines, type TwoMachines } from '../helpers/two-machines.ts';

const dir = tempDir('net-parity');
const { sgd, adam, uneven, bn } = parityRuns(dir);
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

async function onTwo(m: TwoMachines, name: string, perMachine: number, raw: Record<string, unknown>) {
  const runDir = path.join(dir, `${name}-n${perMachine}`);
  const file = writeConfigFile(dir, `${name}-n${perMachine}`, { ...raw, runDir, devices: { simulate: perMachine, backend: 'cpu' }, log: { every: 1 } });
  const r = await m.launch([], ['train', file]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  for (const host of ['node-a', 'node-b'] as const) assert.deepEqual(m.shmFiles(host), [], `shared memory left on ${host}`);
  return { r, weights: finalFloats(runDir) };
}

test('sgd, M = 2 x N = 1 over TCP: plain tfjs, the same bytes on a rerun and on 1 machine x 2 workers', async (t) => {
  const m = twoMachines(t);
  if (!m) return;
  const a = await onTwo(m, 'sgd', 1, sgd);
  assert.match(a.r.stdout, /^mgpu-train launch: mpirun .*--mca oob_tcp_keepalive_time 10 .*train /m);
  assert.match(a.r.stdout, /machines\s+2 over MPI: rank 0 \(node-a\) 1 worker, rank 1 \(node-b\) 1 worker/);
  // Under a launcher the progress is plain lines: no carriage return, no escape code.
  assert.ok(!a.r.stdout.includes('\r') && !a.r.stdout.includes(String.fromCharCode(27)), JSON.stringify(a.r.stdout.slice(-300)));
  await matchesTfjs(t, dir, a.weights, sgd, 'sgd M=2 N=1 over TCP');
  const again = await onTwo(m, 'sgd-again', 1, sgd);
  assert.ok(bytes(again.weights).equals(bytes(a.weights)), 'a rerun over TCP gives other bytes');
  const oneRunDir = path.join(dir, 'sgd-one-machine');
  const one = await runCliAsync(['train', writeConfigFile(dir, 'sgd-one', { ...sgd, runDir: oneRunDir, devices: { simulate: 2, backend: 'cpu' } })]);
  assert.equal(one.code, 0, one.stderr);
  assert.ok(bytes(finalFloats(oneRunDir)).equals(bytes(a.weights)), '1 machine x 2 workers gives other bytes than 2 x 1 over TCP');
});

test('adam (a short last batch machine 1 sits out, uneven splits) and BatchNorm, M = 2 x N = 2 over TCP: plain tfjs', async (t) => {
  const m = twoMachines(t);
  if (!m) return;
  // 42 samples, batch 8: 5 batches of 8 and a last one of 2 (split 1,1,0,0): machine 1 has no rows.
  await matchesTfjs(t, dir, (await onTwo(m, 'adam', 2, adam)).weights, adam, 'adam M=2 N=2 over TCP');
  await matchesTfjs(t, dir, (await onTwo(m, 'uneven', 2, uneven)).weights, uneven, 'adam, batch 7 over 4 workers, over TCP');
  await matchesTfjs(t, dir, (await onTwo(m, 'bn', 2, bn)).weights, bn, 'BatchNorm M=2 N=2 over TCP', 4);
});
