// MGPU_CPUS pins every thread of a process (Node's own threads too, started before any
// JavaScript), as a simulated-GPU worker does at start: checked in /proc for a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { affinityUnavailableReason, loadAffinity } from '../../src/shared/cpu-affinity.ts';
import { nativeSkip } from '../helpers/native.ts';

const skip = nativeSkip(loadAffinity() ? false : `no affinity addon: ${affinityUnavailableReason}`);

const child = `
import fs from 'node:fs';
import { pinFromEnvironment } from ${JSON.stringify(new URL('../../src/shared/cpu-affinity.ts', import.meta.url).href)};
const problem = pinFromEnvironment();
const lists = fs.readdirSync('/proc/self/task').map((t) => fs.readFileSync('/proc/self/task/' + t + '/status', 'utf8').match(/Cpus_allowed_list:\\s*(.*)/)[1]);
console.log(JSON.stringify({ problem, lists }));
`;

test('every thread of the process ends on the CPUs of MGPU_CPUS', { skip }, () => {
  const cpu = String(loadAffinity()!.allowedCpus().at(-1));
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { env: { ...process.env, MGPU_CPUS: cpu }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { problem, lists } = JSON.parse(r.stdout.trim().split('\n').pop()!) as { problem: string | null; lists: string[] };
  assert.equal(problem, null);
  assert.ok(lists.length > 1, 'Node runs more than one thread');
  assert.deepEqual(new Set(lists), new Set([cpu]));
});

test('a CPU that does not exist is reported, not fatal', { skip }, () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], {
    env: { ...process.env, MGPU_CPUS: '1000' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(JSON.parse(r.stdout.trim().split('\n').pop()!).problem, /MGPU_CPUS=1000 not applied: sched_setaffinity: Invalid argument/);
});
