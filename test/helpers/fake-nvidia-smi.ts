// Puts a fake nvidia-smi on PATH that lists `count` GPUs the way the real one answers
// `--query-gpu=index,uuid,name,memory.total,pci.bus_id --format=csv,noheader,nounits`.
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp-dir.ts';

export function fakeNvidiaSmi(count: number, opts: { fail?: string } = {}): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('fake-smi');
  const lines = Array.from(
    { length: count },
    (_, i) => `${i}, GPU-0000000${i}-aaaa-bbbb-cccc-dddddddddddd, NVIDIA Fake A100, 40960, 00000000:${(0x19 + i).toString(16)}:00.0`,
  );
  const body = opts.fail ? `echo "${opts.fail}" >&2\nexit 9` : `cat <<'OUT'\n${lines.join('\n')}\nOUT`;
  fs.writeFileSync(path.join(dir, 'nvidia-smi'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return { dir, env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } };
}
