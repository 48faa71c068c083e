// A mapped .npy of a `features: ./part-*-x.npy` pattern cut short while the run trains (as np.save
// rewriting it does: it truncates first) ends the run as the same file read with pread
// (MGPU_MMAP=0) does: E_DATA naming the file and where it ends now, exit 2, the steps trained
// kept in a checkpoint that the hint offers to --resume, and no .lock left in the run directory,
// not a coordinator killed by SIGBUS. The file is cut when the run reports step 8, from its own
// metrics, not after a sleep.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadMmap, mmapUnavailableReason } from '../../src/shared/mapped-memory.ts';
import { startCli, waitForRunStep, writeConfigFile } from '../helpers/chaos.ts';
import { nativeSkip } from '../helpers/native.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const skip = nativeSkip(loadMmap() ? false : `the mmap addon is unavailable: ${mmapUnavailableReason}`);
const CUT_TO = 1000; // bytes: the header and a few rows; every page after the first is gone

interface Ended {
  code: number | null;
  signal: string | null;
  stderr: string;
  runDir: string;
}

/** Trains over two files a pattern, cuts the second to CUT_TO bytes at step 8, and returns how the run ended. */
async function cutMidRun(dir: string, env: NodeJS.ProcessEnv): Promise<Ended & { victim: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const parts = [0, 1].map((i) => writeDataset(dir, `part-${i}`, 1500, 'onehot', 7 + i)); // 36 KB of features each
  const victim = parts[1]!.features;
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: { type: 'npy', features: path.join(dir, 'part-*-x.npy'), labels: path.join(dir, 'part-*-y.npy') } },
    training: { batchSize: 16, steps: 1_000_000, seed: 4 },
    optimizer: { name: 'sgd' },
    checkpoint: { every: 4 },
    log: { every: 1 },
  });
  const runDir = path.join(dir, 'run');
  const run = startCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir], { env });
  try {
    await waitForRunStep(run.done, path.join(runDir, 'metrics.jsonl'), 8);
    fs.truncateSync(victim, CUT_TO);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 120_000);
    const r = await run.done;
    clearTimeout(timer);
    return { code: r.code, signal: r.signal, stderr: r.stderr, runDir, victim };
  } finally {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  }
}

test('a mapped .npy cut short mid-run: E_DATA naming it, exit 2, checkpoint and --resume kept, no .lock (as with pread)', { skip }, async (t) => {
  const dir = tempDir('npy-shrinks-mid-run');
  const mapped = await cutMidRun(path.join(dir, 'mapped'), { ...process.env, MGPU_MMAP: '1' });
  const positional = await cutMidRun(path.join(dir, 'pread'), { ...process.env, MGPU_MMAP: '0' });
  for (const [how, r] of [
    ['mapped', mapped],
    ['MGPU_MMAP=0', positional],
  ] as const) {
    t.diagnostic(`${how}: exit ${r.code} signal ${r.signal}\n${r.stderr}`);
    assert.equal(r.signal, null, `${how}: killed by ${r.signal}`);
    assert.equal(r.code, 2, `${how}: a data error exits 2`);
    assert.match(r.stderr, /E_DATA/, how);
    assert.ok(
      r.stderr.includes(`${r.victim}: the file ended at byte ${CUT_TO} (it shrank while the run was reading it)`),
      `${how}: the message names the file and where it ends`,
    );
    const kept = /the last completed step \((\d+)\) is in (\S+?);.*--resume/s.exec(r.stderr);
    assert.ok(kept, `${how}: no checkpoint offered to --resume`);
    assert.ok(Number(kept[1]) >= 8, `${how}: checkpoint of step ${kept[1]}, before the cut at step 8`);
    assert.ok(fs.existsSync(path.join(kept[2]!, 'weights.bin')), `${how}: ${kept[2]} holds no weights`);
    assert.ok(!fs.existsSync(path.join(r.runDir, '.lock')), `${how}: the run's .lock is left behind`);
  }
});
