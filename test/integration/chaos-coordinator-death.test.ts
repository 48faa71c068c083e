// The coordinator SIGKILLed mid-run (no handler runs, nothing is cleaned up by it): its workers
// see their control pipe close and exit on their own within a couple of seconds, and the slab
// leaves no file behind in the shared-memory directory (it was unlinked the moment it was
// opened, so there is never one to see, even while the run is alive).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isAlive, processState, startCli, waitFor, waitForRunStep, workerPids, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-coord');

test('coordinator SIGKILL: every worker exits within ~2 s and no slab file is left in the shm dir', async (t) => {
  const shmDir = fs.mkdtempSync(path.join(dir, 'shm-'));
  const runDir = path.join(dir, 'runs', 'coord');
  const file = writeConfigFile(dir, 'coord', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 200, 'onehot', 5) },
    training: { batchSize: 10, steps: 100000 },
    optimizer: { name: 'sgd' },
    log: { every: 1 },
    devices: { shmDir },
  });
  const cli = startCli(['train', file, '--simulate', '3', '--backend', 'cpu', '--run-dir', runDir]);
  try {
    await waitForRunStep(cli.done, path.join(runDir, 'metrics.jsonl'), 3);
    const pids = [...workerPids(cli.child.pid!).values()];
    assert.equal(pids.length, 3, `worker pids under the CLI: ${pids}`);
    const slabFiles = () => fs.readdirSync(shmDir).filter((n) => n.startsWith('mgpu-train-'));
    assert.deepEqual(slabFiles(), [], 'the slab file is visible in the shm dir while the run is alive');

    process.kill(cli.child.pid!, 'SIGKILL');
    const killedAt = Date.now();
    const r = await cli.done;
    assert.equal(r.signal, 'SIGKILL');
    // ~2 s is the expectation; the limit is generous because other work shares the machine.
    await waitFor(() => pids.every((p) => !isAlive(p)), 10_000, `the workers to exit (${pids.map((p) => `${p}: ${processState(p) ?? 'gone'}`).join(', ')})`);
    const took = Date.now() - killedAt;
    t.diagnostic(`${pids.length} workers gone ${took} ms after the coordinator was killed`);
    assert.deepEqual(slabFiles(), [], 'a slab file is left in the shm dir');
  } finally {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  }
});
