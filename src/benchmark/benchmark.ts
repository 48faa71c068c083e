// `mgpu-train benchmark`: how fast a model trains on 1, 2, ... N workers and how close to linear,
// as tf_cnn_benchmarks and Horovod's synthetic benchmark answer it. Plain one-process tfjs on the
// same backend and device at one worker's batch first (the baseline), then each worker count in
// turn (measure.ts), all in this run; the figures as tables and (--json) as one JSON file.
import fs from 'node:fs';
import { planDevices } from '../coordinator/devices/device-plan.ts';
import { discoverGpus } from '../coordinator/devices/devices.ts';
import type { Progress } from '../coordinator/console/progress.ts';
import { benchmarkSubject, configFor, simulated, type Machine } from './bench-config.ts';
import { measureCount, scratchRunDir, type CountFigures } from './measure.ts';
import type { BenchmarkOptions } from './options.ts';
import { runPlain } from './plain-baseline.ts';
import { machine, plainReport, withScaling, writeReport, type BenchmarkReport } from './report.ts';
import { benchmarkTables } from './table.ts';

const workersText = (n: number) => `${n} worker${n > 1 ? 's' : ''}`;
const rateText = (rate: number | null) => (rate === null ? 'warming up' : `${rate.toFixed(rate >= 100 ? 1 : 2)} images/s so far`);

export async function runBenchmark(o: BenchmarkOptions, out: Progress, m: Machine = { gpus: discoverGpus().gpus.length }): Promise<BenchmarkReport> {
  const subject = await benchmarkSubject(o);
  const base = subject.cfg;
  const onSim = simulated(base, o, m);
  // The first count's devices say where the workers run, and give the baseline worker 0's device.
  const probeDir = scratchRunDir();
  const plan = await planDevices(configFor(base, o, 1, m, probeDir)).finally(() => fs.rmSync(probeDir, { recursive: true, force: true }));
  const backend = o.backend ?? base.devices.backend;
  const devices = onSim ? `simulated GPUs on the CPU, backend ${backend}` : `${plan.devices[0]?.label ?? 'GPU'}, backend ${plan.backend}`;
  const steps = { warmup: o.warmup, steps: o.steps };
  out.line(`plain tfjs, 1 process: ${o.warmup} warm-up steps, then ${o.steps} measured`);
  const device = plan.devices[0];
  const plain = plainReport(
    await runPlain({
      cfg: base,
      backend: plan.backend,
      env: { ...(device?.env ?? {}), ...(device && !device.simulated ? { CUDA_VISIBLE_DEVICES: device.cudaVisibleDevices } : {}) },
      batch: o.batch,
      ...steps,
      progress: (done, total, rate) => out.step(done, total, `plain tfjs: ${rateText(rate)}`),
    }),
  );
  out.done();
  const counts: CountFigures[] = [];
  for (const n of o.workers) {
    out.line(`mgpu-train, ${workersText(n)} (global batch ${o.batch * n}): ${o.warmup} warm-up steps, then ${o.steps} measured`);
    const runDir = scratchRunDir();
    try {
      const cfg = configFor(base, o, n, m, runDir);
      counts.push(
        await measureCount(cfg, n, {
          ...steps,
          profile: o.profile,
          progress: (done, total, rate) => out.step(done, total, `${workersText(n)}: ${rateText(rate)}`),
        }),
      );
    } finally {
      out.done();
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  }
  const report: BenchmarkReport = {
    command: ['mgpu-train', ...process.argv.slice(2)].join(' '),
    date: new Date().toISOString(),
    machine: machine(m.gpus),
    subject: { what: subject.what, data: subject.data, model: { ...base.model }, loss: base.loss, optimizer: base.optimizer.name },
    devices,
    simulated: onSim,
    backend,
    batchPerWorker: o.batch,
    steps: o.steps,
    warmup: o.warmup,
    results: withScaling(counts, plain),
    plain,
  };
  for (const line of benchmarkTables(report)) out.line(line);
  if (o.json !== null) {
    writeReport(o.json, report);
    out.line(`every figure: ${o.json}`);
  }
  return report;
}
