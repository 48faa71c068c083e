// Finds the processes a CLI run left behind, however they were reparented: the run is given an
// environment variable with a unique value, which every process it starts inherits.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { isAlive } from './chaos.ts';

export interface Tagged {
  env: NodeJS.ProcessEnv; // the environment to run the CLI with
  alive(): number[]; // pids of live processes (not zombies) that carry the tag
}

export function tagProcesses(base: NodeJS.ProcessEnv = process.env): Tagged {
  const tag = `MGPU_TEST_TAG=${randomUUID()}`;
  return {
    env: { ...base, MGPU_TEST_TAG: tag.slice('MGPU_TEST_TAG='.length) },
    alive() {
      const found: number[] = [];
      for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
        let env: string;
        try {
          env = fs.readFileSync(`/proc/${name}/environ`, 'utf8');
        } catch {
          continue; // gone, or not ours to read
        }
        if (env.split('\0').includes(tag) && isAlive(Number(name))) found.push(Number(name));
      }
      return found;
    },
  };
}
