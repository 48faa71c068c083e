// `mgpu-train benchmark`: how fast a model trains on 1, 2, ... N workers and how close to linear,
// as tf_cnn_benchmarks and Horovod's synthetic benchmark answer it. Every worker count is checked
// first (bench-config.ts), then plain one-process tfjs on the same backend and device at one
// worker's batch (the baseline), then each worker count in turn (measure.ts), all in this run;
// the figures as tables and (--json) as one JSON file. Ctrl-C keeps what was measured
// (interrupt.ts): printed and written, marked partial.
import fs from 'node:fs';
import { planDevices } from '../coordinator/devices/device-plan.ts';
import { discoverGpus } from '../coordinator/devices/devices.ts';
import { plural, type Progress } from '../coordinator/console/progress.ts';
import { Interrupted } from '../coordinator/console/signals.ts';
import { benchmarkSubject, checkWorkerCounts, configFor, simulated, type Machine } from './bench-config.ts';
import { benchmarkSignals, type BenchmarkSignals } from './interrupt.ts';
import { measureCount, scratchRunDir, type CountFigures } from './measure.ts';
import type { BenchmarkOptions } from './options.ts';
import { runPlain } from './plain-baseline.ts';
import { trainFacts } from './plain-classes.ts';
import { machine, plainReport, withScaling, writeReport, type BenchmarkReport, type PlainReport } from './report.ts';
import { benchmarkTables, countLine, plainLine } from './table.ts';
import type { ModelFlops } from './model-flops.ts';
import { cpuPeak, gpuPeak, utilisationRows } from './utilisation.ts';

const workersText = (n: number) => plural(n, 'worker');
const rateText = (rate: number | null) => (rate === null ? 'warming up' : `${rate.toFixed(rate >= 100 ? 1 : 2)} images/s so far`);

export async function runBenchmark(
  o: BenchmarkOptions,
  out: Progress,
  m: Machine = { gpus: discoverGpus().gpus.length },
  signals: BenchmarkSignals = benchmarkSignals((text) => out.line(text)),
): Promise<BenchmarkReport> {
  try {
    return await measureAll(o, out, m, signals);
  } finally {
    signals.dispose();
  }
}

async function measureAll(o: BenchmarkOptions, out: Progress, m: Machine, signals: BenchmarkSignals): Promise<BenchmarkReport> {
  const subject = await benchmarkSubject(o);
  const base = subject.cfg;
  const onSim = simulated(base, o, m);
  // The scratch run directories: removed on every way out, a second Ctrl-C's included.
  const scratch = new Set<string>();
  const removeScratch = () => {
    for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
    scratch.clear();
  };
  try {
    // The first count's devices say where the workers run, and give the baseline worker 0's device.
    const probeDir = scratchRunDir();
    scratch.add(probeDir);
    const plan = await planDevices(configFor(base, o, 1, m, probeDir));
    removeScratch();
    // Every count is checked against the machine and the data before anything is measured.
    // (A Ctrl-C while the data is read: nothing measured, nothing to check.)
    const facts = await signals.duringStartup(async (abort) => {
      try {
        return await trainFacts(configFor(base, o, 1, m, ''), abort);
      } catch (err) {
        if (err instanceof Interrupted) return { rows: Infinity, classes: null };
        throw err;
      }
    });
    checkWorkerCounts(base, o, m, facts.rows);
    const backend = o.backend ?? base.devices.backend;
    const steps = { warmup: o.warmup, steps: o.steps };
    const counts: CountFigures[] = [];
    let plain: PlainReport = { imagesPerSec: null, skipped: 'interrupted before it started' };
    let flops: ModelFlops | null = null;
    // The peak the rows are held to: one core's, measured now (0.4 s), or the GPU's nominal one.
    const peak = onSim ? cpuPeak() : gpuPeak(plan.devices[0]?.label ?? '');
    let current: () => CountFigures | null = () => null;
    const report = (): BenchmarkReport => {
      const stopped = signals.requested();
      const measuring = stopped === null ? null : current();
      const results = measuring && !counts.includes(measuring) ? [...counts, measuring] : counts;
      const perSample = flops?.training ?? null;
      return {
        command: ['mgpu-train', ...process.argv.slice(2)].join(' '),
        date: new Date().toISOString(),
        machine: machine(m.gpus),
        subject: { what: subject.what, data: subject.data, model: { ...base.model }, loss: base.loss, optimizer: base.optimizer.name },
        devices: onSim ? `simulated GPUs on the CPU, backend ${backend}` : `${plan.devices[0]?.label ?? 'GPU'}, backend ${plan.backend}`,
        simulated: onSim,
        backend,
        batchPerWorker: o.batch,
        steps: o.steps,
        warmup: o.warmup,
        results: withScaling(results, plain),
        partial: stopped !== null,
        interrupted: stopped,
        plain,
        flops,
        peak,
        utilisation: utilisationRows(plain.imagesPerSec, results, perSample, peak, m.gpus),
      };
    };
    const publish = (r: BenchmarkReport) => {
      out.done();
      for (const line of benchmarkTables(r)) out.line(line);
      if (o.json !== null) {
        writeReport(o.json, r);
        out.line(`every figure: ${o.json}${r.partial ? ' (partial)' : ''}`);
      }
    };
    // A second Ctrl-C: what was measured, printed and written, before the process exits.
    signals.onGiveUp(() => {
      removeScratch();
      publish(report());
    });
    if (signals.requested() === null) {
      out.line(plainLine(o.warmup, o.steps));
      const device = plan.devices[0];
      const outcome = await runPlain({
        cfg: base,
        backend: plan.backend,
        env: { ...(device?.env ?? {}), ...(device && !device.simulated ? { CUDA_VISIBLE_DEVICES: device.cudaVisibleDevices } : {}) },
        batch: o.batch,
        ...steps,
        classes: facts.classes,
        progress: (done, total, rate) => out.step(done, total, `plain tfjs: ${rateText(rate)}`),
        signals,
      });
      plain = plainReport(outcome);
      flops = outcome.flops;
      out.done();
      // Said now, not only in the table: a worker count that fails after it would hide it.
      if (plain.skipped !== null && signals.requested() === null) out.line(`plain tfjs: not timed (${plain.skipped})`);
    }
    for (const n of o.workers) {
      if (signals.requested() !== null) break;
      out.line(countLine(n, o.batch * n, o.warmup, o.steps));
      const runDir = scratchRunDir();
      scratch.add(runDir);
      try {
        const figures = await measureCount(configFor(base, o, n, m, runDir), n, {
          ...steps,
          profile: o.profile,
          progress: (done, total, rate) => out.step(done, total, `${workersText(n)}: ${rateText(rate)}`),
          signals,
          soFar: (f) => (current = f),
        });
        if (figures) counts.push(figures);
      } finally {
        current = () => null;
        out.done();
        removeScratch();
      }
    }
    const r = report();
    publish(r);
    return r;
  } finally {
    removeScratch();
  }
}
