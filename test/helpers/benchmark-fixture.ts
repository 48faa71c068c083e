// The benchmark's integration tests: a tiny model on synthetic rows as an experiment config, a
// scratch folder as TMPDIR (so that the run's /tmp/mgpu-benchmark-* folders can be counted), and
// the child processes of a CLI run by what they run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isAlive, writeConfigFile } from './chaos.ts';
import { CLASSES, FEATURES, tempDir, writeModelModule } from './train-fixture.ts';

export interface BenchFixture {
  dir: string;
  config: string;
  /** TMPDIR of the run: its scratch run directories go here. */
  tmp: string;
  json: string;
}

export function benchFixture(tag: string): BenchFixture {
  const dir = tempDir(tag);
  const config = writeConfigFile(dir, 'tiny', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: { type: 'synthetic', shape: [FEATURES], classes: CLASSES, count: 16 } },
    training: { batchSize: 4, epochs: 1 },
    optimizer: { name: 'sgd' },
  });
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  return { dir, config, tmp, json: path.join(dir, 'out.json') };
}

/** The scratch run directories a benchmark left in `tmp`. */
export const scratchLeft = (tmp: string): string[] => fs.readdirSync(tmp).filter((n) => n.startsWith('mgpu-benchmark-'));

/** Live children of `parentPid` whose command line contains `what`. */
export function childPids(parentPid: number, what: string): number[] {
  const r = spawnSync('ps', ['--ppid', String(parentPid), '-o', 'pid=,args='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[2]!.includes(what))
    .map((m) => Number(m[1]))
    .filter(isAlive);
}

/** True while `pid` can be signalled (process.kill(pid, 0)) and is no zombie. */
export function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return isAlive(pid);
}
