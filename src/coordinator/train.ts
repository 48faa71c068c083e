// The coordinator's training loop. Setup is in session.ts; each step, read top to bottom:
//   a) plan      the step's B sample indices, split into shards that differ by at most one
//   b) stage     each shard's rows into its rank's input buffer in the slab
//   c) dispatch  `step` to every rank with samples     d) gather their `grads` replies
//   e) reduce    Σ grads in rank order, optimizer update of the master weights, new weights
//                into the slab; non-trainables averaged by shard size
//   f) publish   weightsVersion++: each worker reloads the weights before its next step
//   g) log / eval at their intervals
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { serializeConfig } from '../shared/config/load.ts';
import type { Config } from '../shared/config/types.ts';
import { writeLayersModel } from '../shared/model-files.ts';
import type { GradsMessage } from '../shared/protocol.ts';
import { shardRanges } from '../shared/shard.ts';
import { BatchPlan } from './batch-plan.ts';
import { loadDataset, type Dataset } from './data/dataset.ts';
import { evaluate, type EvalResult } from './evaluate.ts';
import { MetricsLog, type TrainLine } from './metrics-log.ts';
import type { Progress } from './progress.ts';
import { averageState } from './reduce/average-state.ts';
import { learningRateAt } from './schedules.ts';
import { openSession, runDevices, type Session } from './session.ts';
import { printHeader } from './run-header.ts';

export interface TrainResult {
  runDir: string;
  modelPath: string;
  steps: number;
  finalLoss: number;
  eval: EvalResult | null;
  weights: Float32Array; // the final master weights, flat (trainable first)
}

export async function train(cfg: Config, out: Progress): Promise<TrainResult> {
  // ---- setup -------------------------------------------------------------------------------
  const trainSet = await loadDataset(cfg.data.train, 'data.train');
  const evalSet: Dataset | null = cfg.data.eval ? await loadDataset(cfg.data.eval, 'data.eval') : null;
  const B = cfg.training.batchSize;
  const plan = new BatchPlan(trainSet.count, B, cfg.training.seed, cfg.training.dropLast, cfg.training);
  const evalBatch = cfg.eval.batchSize ?? B;
  const devices = runDevices(cfg, out);
  const data = evalSet ? [trainSet, evalSet] : [trainSet];
  const s = await openSession(cfg, devices, data, evalSet ? ['data.train', 'data.eval'] : ['data.train'], Math.max(B, evalBatch));
  fs.mkdirSync(cfg.runDir, { recursive: true });
  fs.writeFileSync(path.join(cfg.runDir, 'config.yaml'), serializeConfig(cfg));
  const metrics = new MetricsLog(path.join(cfg.runDir, 'metrics.jsonl'));
  printHeader(out, cfg, s, devices, plan, trainSet, evalSet);
  const runEval = async (step: number, epoch: number): Promise<EvalResult> => {
    const r = await evaluate(s, evalSet!, evalBatch, cfg.loss);
    metrics.write({ type: 'eval', step, epoch, samples: r.samples, loss: r.loss, accuracy: r.accuracy, mae: r.mae });
    out.line(`eval @ step ${step}: loss ${r.loss.toFixed(4)}` + (r.accuracy === null ? ` mae ${r.mae.toFixed(4)}` : ` accuracy ${(100 * r.accuracy).toFixed(2)}%`) + ` (${r.samples} samples)`);
    return r;
  };

  const window = newWindow();
  let lastLoss = NaN;
  let epoch = 0;
  try {
    for (let step = 0; step < plan.totalSteps; step++) {
      const t0 = performance.now();
      // ---- a) plan ---------------------------------------------------------------------------
      const batch = plan.batchAt(step);
      epoch = batch.epoch;
      const n = batch.indices.length;
      const ranges = shardRanges(n, s.group.size);
      const sizes = ranges.map(([a, b]) => b - a);
      const ranks = sizes.flatMap((k, r) => (k > 0 ? [r] : []));
      const slot = (step % 2) as 0 | 1;
      // ---- b) stage --------------------------------------------------------------------------
      s.stager.stage(trainSet, batch.indices, ranges, slot);
      const t1 = performance.now();
      // ---- c) dispatch + d) gather -----------------------------------------------------------
      const replies = await s.group.all<GradsMessage>((r) => ({
        type: 'step', step, n: sizes[r], batch: n, slot, weightsVersion: s.weightsVersion,
      }), `step ${step}`, ranks);
      const t2 = performance.now();
      // ---- e) reduce + apply -----------------------------------------------------------------
      const lr = learningRateAt(cfg.optimizer.learningRate, cfg.schedule, step);
      await s.pool.run(ranks, lr, step + 1);
      averageState(s, ranks, sizes, n);
      // ---- f) publish ------------------------------------------------------------------------
      s.weightsVersion++;
      const t3 = performance.now();
      // ---- g) log / eval ---------------------------------------------------------------------
      lastLoss = replies.reduce((a, m) => a + m.lossSum, 0) / n;
      const ms = replies.map((m) => m.ms);
      window.add(lastLoss, n, Math.max(...ms), Math.min(...ms), t3 - t2, t1 - t0, t3 - t0);
      const done = step + 1;
      const text = `epoch ${epoch + 1} loss ${lastLoss.toFixed(4)} lr ${lr.toPrecision(3)}`;
      out.step(done, plan.totalSteps, text);
      if (done % cfg.log.every === 0 || done === plan.totalSteps) {
        metrics.write(window.flush(done, epoch, lr));
      }
      if (evalSet && cfg.eval.every > 0 && done % cfg.eval.every === 0 && done !== plan.totalSteps) {
        await runEval(done, epoch);
      }
    }
    out.done();
    // ---- end: evaluate, save -----------------------------------------------------------------
    const finalEval = evalSet ? await runEval(plan.totalSteps, epoch) : null;
    const modelDir = path.join(cfg.runDir, 'final');
    writeLayersModel(modelDir, s.group.layout, s.master);
    const modelPath = path.join(modelDir, 'model.json');
    out.line(`model saved to ${modelPath} (load with tf.loadLayersModel)`);
    return { runDir: cfg.runDir, modelPath, steps: plan.totalSteps, finalLoss: lastLoss, eval: finalEval, weights: s.master.slice() };
  } finally {
    metrics.close();
    await s.close();
  }
}

/** Per-step figures accumulated between two metrics lines. */
function newWindow() {
  let steps = 0, loss = 0, samples = 0, cmax = 0, cmin = 0, sync = 0, data = 0, wall = 0;
  return {
    add(l: number, n: number, max: number, min: number, syncMs: number, dataMs: number, stepMs: number) {
      steps++; loss += l; samples += n; cmax += max; cmin += min; sync += syncMs; data += dataMs; wall += stepMs;
    },
    flush(step: number, epoch: number, lr: number): TrainLine {
      const r = (x: number) => Math.round(x * 1000) / 1000;
      const line: TrainLine = {
        type: 'train', step, epoch, loss: loss / steps, lr, samples_per_sec: r(samples / (wall / 1000)),
        compute_max_ms: r(cmax / steps), compute_min_ms: r(cmin / steps), sync_ms: r(sync / steps),
        data_ms: r(data / steps), step_ms: r(wall / steps),
      };
      steps = loss = samples = cmax = cmin = sync = data = wall = 0;
      return line;
    },
  };
}

export type { Session };
