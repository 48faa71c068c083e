// Simulated-GPU workers get a physical core each, read from a (fake) sysfs topology in which
// hyperthreads share a core; a core is left to the coordinator, and with no core to spare
// nothing is pinned, and the header says why.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { physicalCores, placeWorkers } from '../../src/shared/cpu-affinity.ts';

/** 4 cores x 2 hyperthreads, numbered as Linux does on most x86 machines: cpu k and k+4 share core k. */
function fakeSysfs(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-cpu-'));
  for (let cpu = 0; cpu < 8; cpu++) {
    const dir = path.join(root, `cpu${cpu}`, 'topology');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'core_id'), `${cpu % 4}\n`);
    fs.writeFileSync(path.join(dir, 'physical_package_id'), '0\n');
  }
  return root;
}

test('hyperthreads of one core are one physical core; only the allowed CPUs count', () => {
  const root = fakeSysfs();
  assert.deepEqual(physicalCores([0, 1, 2, 3, 4, 5, 6, 7], root), [
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
  ]);
  assert.deepEqual(physicalCores([1, 5, 6], root), [[1, 5], [6]]);
  assert.deepEqual(physicalCores([0, 1], path.join(root, 'missing')), [[0], [1]]);
  fs.rmSync(root, { recursive: true });
});

test('3 workers on 4 cores: a core each, core 0 left to the coordinator', () => {
  const p = placeWorkers(3, [
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
  ]);
  assert.deepEqual(p.workers, [
    [1, 5],
    [2, 6],
    [3, 7],
  ]);
  assert.match(p.text, /rank 0 cpus 1,5, rank 1 cpus 2,6, rank 2 cpus 3,7; coordinator core 0 \(cpus 0,4\) to itself/);
});

test('no core left for the coordinator: nothing pinned, the OS balances', () => {
  const even = placeWorkers(2, [[0], [1]]);
  assert.deepEqual(even.workers, [null, null]);
  assert.match(even.text, /not pinned: 2 workers and the coordinator on 2 physical cores; the OS balances them/);
  assert.deepEqual(placeWorkers(3, [[0], [1]]).workers, [null, null, null]);
  assert.match(placeWorkers(2, [], 'the affinity addon is not built').text, /not pinned: the affinity addon is not built/);
});
