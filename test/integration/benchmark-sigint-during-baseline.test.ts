// Ctrl-C (a SIGINT to mgpu-train alone, as `kill -INT` sends it) while the plain tfjs baseline
// runs: the signal is forwarded to the baseline's process, which is gone within seconds (not
// left at 100% CPU), exit 130, the JSON written and marked partial, no scratch folder left.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { startCli, waitFor } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { benchFixture, childPids, exists, scratchLeft } from '../helpers/benchmark-fixture.ts';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';

const f = benchFixture('benchmark-sigint-baseline');

test('SIGINT during the plain tfjs baseline: its process gone, exit 130, the JSON marked partial', async () => {
  const tagged = tagProcesses({ ...process.env, TMPDIR: f.tmp });
  // Steps enough for the baseline to run for hours.
  const args = ['benchmark', '--config', f.config, '--workers', '1,2', '--batch', '3', '--steps', '100000000', '--warmup', '1'];
  const cli = startCli([...args, '--simulate', '--backend', 'cpu', '--progress', 'plain', '--json', f.json], { cwd: f.dir, env: tagged.env });
  const net = setTimeout(() => cli.child.kill('SIGKILL'), 300_000);
  await waitFor(() => /^plain tfjs, 1 process: /m.test(cli.stdout()), 120_000, 'the baseline to start');
  const [child] = await waitFor(
    () => {
      const pids = childPids(cli.child.pid!, 'plain-child');
      return pids.length ? pids : null;
    },
    120_000,
    "the baseline's process",
  );
  process.kill(cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  clearTimeout(net);
  assert.equal(r.code, 130, `exit ${r.code} (signal ${r.signal})\n${r.stdout}\n${r.stderr}`);
  await waitFor(() => !exists(child!), 30_000, `the baseline's process ${child} to be gone`);
  await waitFor(() => tagged.alive().length === 0, 30_000, 'every process of the run to be gone');
  assert.deepEqual(scratchLeft(f.tmp), [], 'scratch run directories left');
  assert.doesNotMatch(r.stdout, /^mgpu-train, 1 worker \(global batch/m, 'a worker count was measured after the interrupt');
  assert.match(r.stdout, /^plain tfjs: not timed \(interrupted by SIGINT\)$/m);
  const report = JSON.parse(fs.readFileSync(f.json, 'utf8')) as BenchmarkReport;
  assert.equal(report.partial, true);
  assert.equal(report.interrupted, 'SIGINT');
  assert.deepEqual(report.results, []);
  assert.equal(report.plain.skipped, 'interrupted by SIGINT');
});
