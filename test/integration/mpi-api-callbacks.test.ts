// The library API on several machines (2 MPI ranks on this one, a script run by mpirun): the
// callbacks run on rank 0 alone; a stop one asks for reaches the other machine through the
// step's agreement, so both stop after the same step (the next one: the request comes after the
// step's agreement), with one checkpoint written by rank 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, readMetrics } from '../helpers/chaos.ts';
import { MPI_ENV, needMpi } from '../helpers/mpi.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const ENTRY = new URL('../../lib/index.mjs', import.meta.url).href;

test('2 machines: callbacks on rank 0 only; its stop ends both after the same step', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-api');
  const runDir = path.join(dir, 'run');
  const config = {
    name: 'mpi-api',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 40, 'onehot', 2) },
    training: { batchSize: 8, steps: 8, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    devices: { simulate: 1, backend: 'cpu' },
    log: { every: 1 },
    runDir,
  };
  const script = path.join(dir, 'script.mjs');
  fs.writeFileSync(
    script,
    `import fs from 'node:fs';
import { train } from ${JSON.stringify(ENTRY)};
const rank = process.env.OMPI_COMM_WORLD_RANK ?? process.env.PMI_RANK;
const calls = [];
const r = await train(${JSON.stringify(config)}, {
  print: false,
  onStepEnd: (f) => { calls.push('S' + f.step); return f.step === 2 ? 'stop' : undefined; },
  onCheckpoint: (c) => void calls.push('C' + c.step),
});
fs.writeFileSync(${JSON.stringify(dir)} + '/rank-' + rank + '.json', JSON.stringify({ calls, steps: r.steps, stopped: r.stopped }));
`,
  );
  const child = spawn('mpirun', ['-np', '2', process.execPath, script], { env: { ...process.env, ...MPI_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, output);
  const rank = (r: number) => JSON.parse(fs.readFileSync(path.join(dir, `rank-${r}.json`), 'utf8'));
  assert.deepEqual(rank(0), { calls: ['S1', 'S2', 'S3', 'C3'], steps: 3, stopped: { by: 'callback', callback: 'onStepEnd', reason: "it returned 'stop'" } });
  assert.deepEqual(rank(1), { calls: [], steps: 3, stopped: { by: 'cluster', reason: 'another machine of the run asked to stop' } });
  assert.deepEqual(checkpointSteps(runDir), [3]);
  const last = readMetrics(path.join(runDir, 'metrics.jsonl')).at(-1);
  assert.deepEqual(last, { type: 'stop', step: 3, ranks: [], message: "stopped by onStepEnd (it returned 'stop')", action: 'checkpoint step-3' });
});
