// `mgpu-train benchmark`: its flags, and the run (src/benchmark/).
import os from 'node:os';
import type { Argv } from 'yargs';
import { runBenchmark } from '../benchmark/benchmark.ts';
import { BENCHMARK_DEFAULTS, benchmarkOptions } from '../benchmark/options.ts';
import { discoverGpus } from '../coordinator/devices/devices.ts';
import { makeProgress, PROGRESS_STYLES, progressStyle } from '../coordinator/console/progress.ts';
import { BACKEND_NAMES } from '../config/types.ts';
import { exitCodeFor } from '../coordinator/console/signals.ts';

/** Without --workers: 1, 2, 4, ... up to the GPUs (simulated: the cores). */
function defaultWorkers(simulate: boolean): number[] {
  const gpus = simulate ? 0 : discoverGpus().gpus.length;
  const most = gpus > 0 ? gpus : os.availableParallelism();
  const counts = [1];
  while (counts[counts.length - 1]! * 2 <= most) counts.push(counts[counts.length - 1]! * 2);
  return counts;
}

export function benchmarkCommand<T>(y: Argv<T>) {
  return y.command(
    'benchmark [net]',
    'images/s of a model on 1, 2, ... N workers, the scaling, and plain one-process tfjs beside them',
    (y) =>
      y
        .positional('net', { type: 'string', describe: 'a network by name, on synthetic data of its input shape' })
        .option('config', { type: 'string', describe: 'an experiment config: its model and data (input pipeline included) are timed' })
        .option('batch', { type: 'string', describe: `samples per worker per step (the global batch is batch x workers; default ${BENCHMARK_DEFAULTS.batch})` })
        .option('workers', { type: 'string', describe: 'worker counts to time, e.g. 1,2,4 (default 1, 2, 4, ... up to the GPUs, or the cores)' })
        .option('backend', { type: 'string', describe: `tfjs backend of the workers and of the plain baseline: ${BACKEND_NAMES.join(', ')}` })
        .option('simulate', { type: 'boolean', describe: 'simulated GPUs on the CPU, whatever the machine has' })
        .option('oversubscribe', { type: 'boolean', describe: 'start more simulated GPUs than the machine holds' })
        .option('steps', { type: 'string', describe: `steps measured (default ${BENCHMARK_DEFAULTS.steps})` })
        .option('warmup', { type: 'string', describe: `steps run before measuring (default ${BENCHMARK_DEFAULTS.warmup})` })
        .option('json', { type: 'string', describe: 'write every figure to this JSON file' })
        .option('profile', { type: 'boolean', describe: 'profile the last warm-up step in worker 0: its largest kernels' })
        .option('set', { type: 'string', array: true, describe: 'override a config key: --set optimizer.name=momentum' })
        .option('progress', { type: 'string', choices: PROGRESS_STYLES, describe: 'a live bar or plain lines (default: the bar on a terminal)' }),
    async (argv) => {
      const o = benchmarkOptions(argv, () => defaultWorkers(argv.simulate ?? false));
      const style = progressStyle(argv.progress, process.stdout);
      const total = o.warmup + o.steps;
      const report = await runBenchmark(o, makeProgress(Math.max(1, Math.ceil(total / 5)), process.stdout, process.stderr, style));
      // Stopped by Ctrl-C: what was measured is printed and written; the exit says how it ended.
      if (report.interrupted !== null) process.exit(exitCodeFor(report.interrupted));
    },
  );
}
