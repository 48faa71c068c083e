// One step of a model with many parameters, by phase: the MLP 784-4096-4096-10 (20.0M
// parameters), adam, global batch 256, on 1 and 2 workers. A step of a big model moves
// (N + 1) · 4P bytes through host memory and runs Adam over P floats on the coordinator: this is
// where that shows beside the workers' compute (check:gpu runs the same on a GPU, where the
// compute is short and the host side is what is left).
//   node --import tsx scripts/bench/big-model-step.ts [--backend wasm] [--workers 1,2]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runMgpu, syntheticDataDir } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';
import { workerCounts } from './worker-counts.ts';

const model = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'gpu', 'mlp-20m.ts');

/** The step of the 20M-parameter MLP by phase (medians of steps 6..end), one row per worker count. */
export async function bigModelSteps(
  backend: string,
  counts: number[],
  devices?: (workers: number) => Record<string, unknown>,
): Promise<Array<Record<string, string | number>>> {
  const dataDir = syntheticDataDir(1024);
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const n of counts) {
      const f = await runMgpu({
        dataDir,
        workers: n,
        batch: 256,
        steps: 20,
        backend,
        model,
        devices: devices?.(n),
        optimizer: { name: 'adam', learningRate: 0.001 },
      });
      rows.push({
        workers: n,
        'step ms': f.step_ms,
        'worker compute ms (max)': f.compute_max_ms,
        'refresh (upload) ms': f.refresh_ms,
        'write (readback+copy) ms': f.write_ms,
        'coordinator sum+adam+publish ms': f.sync_ms,
        'data ms': f.data_ms,
        'samples/s': Math.round(f.samples_per_sec),
      });
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { backend: { type: 'string', default: 'wasm' }, workers: { type: 'string', default: '1,2' } } });
  const rows = await bigModelSteps(values.backend, workerCounts(values.workers, os.availableParallelism()));
  printTable(
    `MLP 784-4096-4096-10 (20.0M parameters), adam, global batch 256, ${values.backend}, ${os.availableParallelism()} cores: one step by phase (medians)`,
    rows,
  );
  console.log(`saved ${saveJson('big-model-step', { backend: values.backend, rows })}`);
}
