// Ctrl-C while `mgpu-train benchmark` measures 2 workers, after the baseline and 1 worker were
// measured: exit 130, the figures measured so far printed and in the JSON (marked partial), the
// workers gone within seconds, no scratch run directory left in TMPDIR.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { startCli, waitFor, workerPids } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { benchFixture, exists, scratchLeft } from '../helpers/benchmark-fixture.ts';
import type { BenchmarkReport } from '../../src/benchmark/report.ts';

const f = benchFixture('benchmark-sigint-measured');
const STEPS = 1000;
const TOTAL = STEPS + 1; // one warm-up step

test('SIGINT while 2 workers are measured: the rows so far printed and in the JSON, marked partial; workers gone; exit 130', async () => {
  const tagged = tagProcesses({ ...process.env, TMPDIR: f.tmp });
  const args = ['benchmark', '--config', f.config, '--workers', '1,2', '--batch', '3', '--steps', String(STEPS), '--warmup', '1'];
  const cli = startCli([...args, '--simulate', '--backend', 'cpu', '--progress', 'plain', '--json', f.json], { cwd: f.dir, env: tagged.env });
  const net = setTimeout(() => cli.child.kill('SIGKILL'), 300_000);
  // The progress line of 2 workers (every 201 steps): its measured steps have begun.
  await waitFor(() => new RegExp(`^step \\d+/${TOTAL} 2 workers: `, 'm').test(cli.stdout()), 240_000, 'a progress line of 2 workers');
  const workers = [...workerPids(cli.child.pid!).values()];
  assert.equal(workers.length, 2, `workers ${workers.join(', ')}`);
  process.kill(cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  clearTimeout(net);
  assert.equal(r.code, 130, `exit ${r.code} (signal ${r.signal})\n${r.stdout}\n${r.stderr}`);
  await waitFor(() => workers.every((pid) => !exists(pid)), 30_000, `workers ${workers.join(', ')} to be gone`);
  await waitFor(() => tagged.alive().length === 0, 30_000, 'every process of the run to be gone');
  assert.deepEqual(scratchLeft(f.tmp), [], 'scratch run directories left');
  assert.match(r.stdout, /^SIGINT: stopping the benchmark/m);
  assert.match(r.stdout, /^interrupted by SIGINT: the figures below are partial/m);
  // The table: the baseline's row, 1 worker's whole, 2 workers' marked partial.
  assert.match(r.stdout, /^plain tfjs, 1 process \(cpu\) +3 +[\d.]+/m);
  assert.match(r.stdout, /^mgpu-train, 1 worker +3 +[\d.]+/m);
  assert.match(r.stdout, /^mgpu-train, 2 workers \(partial: \d+ of 1000 steps\) +6 +[\d.]+/m);
  const report = JSON.parse(fs.readFileSync(f.json, 'utf8')) as BenchmarkReport;
  assert.equal(report.partial, true);
  assert.equal(report.interrupted, 'SIGINT');
  assert.equal(report.plain.skipped, null);
  const [one, two] = report.results;
  assert.deepEqual([one!.workers, one!.measuredSteps, one!.partial], [1, STEPS, false]);
  assert.equal(two!.workers, 2);
  assert.equal(two!.partial, true);
  assert.ok(two!.measuredSteps >= 1 && two!.measuredSteps < STEPS, `measured ${two!.measuredSteps}`);
  assert.equal(two!.stepMs.length, two!.measuredSteps);
  assert.ok(Number.isFinite(two!.imagesPerSec) && two!.imagesPerSec > 0);
});
