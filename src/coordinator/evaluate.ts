// Evaluation and prediction over a whole dataset, sharded over the active workers in chunks.
// Evaluation workers return sums, so totals are exact: every sample counted once, weighted by
// count. Prediction workers write their rows to their output buffers, read back in input order.
import type { LossName, LossSpec } from '../shared/config/types.ts';
import { MgpuError } from '../shared/errors.ts';
import { outputsPerSample, sizeOf } from '../shared/layout.ts';
import type { EvaluatedMessage, PredictedMessage } from '../shared/protocol.ts';
import type { Shard } from '../shared/shard.ts';
import type { Dataset } from './data/rows.ts';
import { addCounts } from './metrics/counts.ts';
import { computeMetrics, scoreShape, type EvalMetrics, type EvalTotals } from './metrics/index.ts';
import type { Session } from './session.ts';

export interface EvalResult {
  samples: number;
  loss: number; // mean per-sample loss (regularisation not included)
  accuracy: number | null; // null for losses without classes (mean squared error)
  topK: number | null; // top-k accuracy; null without classes or with k >= classes
  k: number;
  mae: number; // NaN for a model with several outputs (not measured; metrics.jsonl writes null)
  /** A model with several outputs: each output's mean loss (without its loss weight), by output name; else null. */
  outputLosses: Record<string, number> | null;
  /** The config's metrics, keyed as metrics.jsonl logs them, in its order; null without `metrics`. */
  metrics: Record<string, number | null> | null;
}

/** Runs `visit` over consecutive chunks of the dataset, each staged and split over the active ranks. */
async function chunks(s: Session, ds: Dataset, batch: number, visit: (shards: Shard[], start: number, chunk: number) => Promise<void>): Promise<void> {
  let chunk = 0;
  for (let start = 0; start < ds.count; start += batch) {
    const size = Math.min(batch, ds.count - start);
    const indices = new Uint32Array(size).map((_, i) => start + i);
    const shards = s.shards(size);
    s.stager.stage(ds, indices, shards, 0);
    await visit(shards, start, chunk++);
  }
}

/**
 * `deadlineMs`: how long each chunk may take before a worker that has not answered is called
 * stalled. `metrics`: the config's metrics (null: the shipped figures only).
 */
export async function evaluate(
  s: Session,
  ds: Dataset,
  batch: number,
  lossSpec: LossSpec,
  k: number,
  deadlineMs: number,
  metrics: EvalMetrics | null = null,
): Promise<EvalResult> {
  const outputs = s.group.layout.outputs;
  const several = outputs.length > 1;
  // With several outputs the figures of one output (accuracy, top-k, mae, metrics) are not measured.
  const loss: LossName = typeof lossSpec === 'string' ? lossSpec : lossSpec[outputs[0]!.name]!;
  const t = { n: 0, lossSum: 0, correct: 0, abs: 0, topK: 0, outputs: new Array<number>(several ? outputs.length : 0).fill(0) };
  const classes = outputsPerSample(s.group.layout);
  // The config's metrics: sums over every rank and chunk, and every row's scores (auc).
  const extra: EvalTotals = { n: 0, correct: 0, topK: 0, abs: 0, sq: 0, counts: null, scores: null, custom: metrics?.custom.map(() => ({})) ?? [] };
  const shape = scoreShape(loss, s.group.layout.outputShape);
  const scoreRows = ds.count * shape.rowsPerSample;
  const scores = metrics?.specs.some((m) => !('module' in m) && m.name === 'auc')
    ? { values: new Float32Array(scoreRows * shape.width), labels: new Float32Array(scoreRows * shape.labelWidth), width: shape.width }
    : null;
  await chunks(s, ds, batch, async (shards, start, id) => {
    const byRank = new Map(shards.map((sh) => [sh.rank, sh]));
    const replies = await s.group.all<EvaluatedMessage>(
      (r) => ({
        type: 'eval',
        id,
        n: byRank.get(r)!.end - byRank.get(r)!.start,
        slot: 0,
        weightsVersion: s.weightsVersion,
        stateVersion: s.stateVersion,
        topK: k,
      }),
      'eval',
      shards.map((sh) => sh.rank),
      deadlineMs,
    );
    for (const m of replies) {
      t.n += m.n;
      t.lossSum += m.lossSum;
      t.correct += m.correct;
      t.abs += m.absErrorSum;
      t.topK += m.topKCorrect;
      m.outputLossSums?.forEach((v, i) => (t.outputs[i]! += v));
      if (!metrics) continue;
      extra.sq += m.sqErrorSum;
      if (m.counts) extra.counts = addCounts(extra.counts, m.counts);
      m.custom?.forEach((sums, i) => {
        const into = extra.custom[i];
        for (const [key, v] of Object.entries(sums)) into![key] = (into![key] ?? 0) + v;
      });
      if (scores) {
        // Rank m.rank wrote its rows' scores, then their labels, to its output region; they go
        // where its rows sit in the eval set.
        const sh = byRank.get(m.rank)!;
        const rows = m.scored;
        if (rows !== (sh.end - sh.start) * shape.rowsPerSample) {
          throw new MgpuError('E_INTERNAL', `eval chunk ${id}: rank ${m.rank} scored ${rows} rows, expected ${(sh.end - sh.start) * shape.rowsPerSample}`);
        }
        const got = new Float32Array(rows * (shape.width + shape.labelWidth));
        s.slab.read(s.layout.output[m.rank]!, got);
        const at = (start + sh.start) * shape.rowsPerSample;
        scores.values.set(got.subarray(0, rows * shape.width), at * shape.width);
        scores.labels.set(got.subarray(rows * shape.width), at * shape.labelWidth);
      }
    }
  });
  if (s.cluster.size > 1) await sumOverMachines(s, t, extra, scores, metrics ? classes : 0);
  const classed = loss !== 'meanSquaredError' && !several;
  return {
    samples: t.n,
    loss: t.lossSum / t.n,
    accuracy: classed ? t.correct / t.n : null,
    topK: classed && loss !== 'binaryCrossentropy' && classes > k ? t.topK / t.n : null,
    k,
    mae: several ? NaN : t.abs / t.n,
    outputLosses: several ? Object.fromEntries(outputs.map((o, i) => [o.name, t.outputs[i]! / t.n])) : null,
    metrics: metrics ? computeMetrics(metrics, loss, { ...extra, n: t.n, correct: t.correct, topK: t.topK, abs: t.abs, scores }) : null,
  };
}

/** One output of the model over every predicted row: float32 [rows, ...its shape]. */
export interface PredictedOutput {
  name: string; // the output's layer name (model.outputNames)
  values: Float32Array;
  shape: number[];
}

/**
 * Every output of the model for every row of `ds`, in input order, in the model's output order:
 * float32 [count, ...outputShape_k]. A rank's output region holds its n rows of output 0, then
 * its n rows of output 1, and so on (the worker's onPredict).
 */
export async function predict(s: Session, ds: Dataset, batch: number, deadlineMs: number): Promise<{ outputs: PredictedOutput[] }> {
  const ports = s.group.layout.outputs.map((o) => ({ name: o.name, row: o.shape.slice(1) as number[] }));
  const per = ports.map((p) => sizeOf(p.row));
  const outputs = ports.map((p, k) => ({ name: p.name, values: new Float32Array(ds.count * per[k]!), shape: [ds.count, ...p.row] }));
  await chunks(s, ds, batch, async (shards, start, id) => {
    const byRank = new Map(shards.map((sh) => [sh.rank, sh]));
    await s.group.all<PredictedMessage>(
      (r) => ({
        type: 'predict',
        id,
        n: byRank.get(r)!.end - byRank.get(r)!.start,
        slot: 0,
        weightsVersion: s.weightsVersion,
        stateVersion: s.stateVersion,
      }),
      'predict',
      shards.map((sh) => sh.rank),
      deadlineMs,
    );
    for (const sh of shards) {
      const n = sh.end - sh.start;
      let at = s.layout.output[sh.rank]!;
      outputs.forEach((o, k) => {
        s.slab.read(at, o.values.subarray((start + sh.start) * per[k]!, (start + sh.end) * per[k]!));
        at += n * per[k]! * 4;
      });
    }
  });
  return { outputs };
}

/**
 * Several machines: each evaluated its workers' rows of every chunk; every sum is added up over
 * the machines (the per-class counts too; the score rows are disjoint, so their sum is the whole).
 */
async function sumOverMachines(
  s: Session,
  t: { n: number; lossSum: number; correct: number; abs: number; topK: number; outputs: number[] },
  extra: EvalTotals,
  scores: { values: Float32Array; labels: Float32Array } | null,
  classes: number,
): Promise<void> {
  const c = extra.counts ?? { tp: new Array<number>(classes).fill(0), fp: new Array<number>(classes).fill(0), fn: new Array<number>(classes).fill(0) };
  const sums = new Float64Array([t.n, t.lossSum, t.correct, t.abs, t.topK, extra.sq, ...c.tp, ...c.fp, ...c.fn]);
  await s.cluster.sum(sums, 'the evaluation sums');
  if (t.outputs.length) {
    const each = Float64Array.from(t.outputs);
    await s.cluster.sum(each, 'the per-output evaluation losses');
    t.outputs = Array.from(each);
  }
  [t.n, t.lossSum, t.correct, t.abs, t.topK, extra.sq] = [sums[0]!, sums[1]!, sums[2]!, sums[3]!, sums[4]!, sums[5]!];
  if (classes > 0 && (extra.counts || sums.subarray(6).some((v) => v !== 0))) {
    const k = c.tp.length;
    extra.counts = {
      tp: Array.from(sums.subarray(6, 6 + k)),
      fp: Array.from(sums.subarray(6 + k, 6 + 2 * k)),
      fn: Array.from(sums.subarray(6 + 2 * k, 6 + 3 * k)),
    };
  }
  if (scores) {
    await s.cluster.sum(scores.values, 'the evaluation scores');
    await s.cluster.sum(scores.labels, 'the evaluation labels');
  }
  if (extra.custom.length) {
    // Custom sums have names of their own: gathered as JSON, added in rank order.
    const mine = Buffer.alloc(CUSTOM_BYTES);
    const json = JSON.stringify(extra.custom);
    if (Buffer.byteLength(json) > CUSTOM_BYTES)
      throw new MgpuError(
        'E_METRIC',
        `the custom metrics' sums take ${Buffer.byteLength(json)} bytes as JSON; several machines exchange at most ${CUSTOM_BYTES}`,
      );
    mine.write(json);
    const all = await s.cluster.gather(new Uint8Array(mine), 'the custom metric sums');
    extra.custom = extra.custom.map(() => ({}));
    for (const b of all) {
      const theirs = JSON.parse(Buffer.from(b).toString('utf8').replace(/\0+$/, '')) as Record<string, number>[];
      theirs.forEach((sums, i) => {
        const into = extra.custom[i]!;
        for (const [key, v] of Object.entries(sums)) into[key] = (into[key] ?? 0) + v;
      });
    }
  }
}

const CUSTOM_BYTES = 16384;
