// Evaluation and prediction over a whole dataset, sharded over the active workers in chunks.
// Evaluation workers return sums, so totals are exact: every sample counted once, weighted by
// count. Prediction workers write their rows to their output buffers, read back in input order.
import { hasClasses } from '../../config/loss.ts';
import type { LossSpec } from '../../config/types.ts';
import { MgpuError } from '../../shared/errors.ts';
import { sizeOf } from '../../shared/layout.ts';
import type { EvaluatedMessage, OutputSums, PredictedMessage, WorkerMetrics } from '../../shared/protocol.ts';
import type { Shard } from '../../shared/shard.ts';
import type { Dataset } from '../../data/rows.ts';
import { addCounts } from '../metrics/counts.ts';
import { metricSuits, type OutputKind } from '../../config/metric-keys.ts';
import { computeMetrics, computeOutputMetrics, outputKinds, scoreShape, workerMetrics, type EvalMetrics, type EvalTotals } from '../metrics/index.ts';
import type { EvalResult, OutputFigures, PredictedOutput } from './eval-result.ts';
import type { Session } from './session.ts';
import { chunkRows } from '../input-feed.ts';

// train.ts imports it from here.

/**
 * A model with several outputs: each output's figures as fields of the eval line (and of
 * `mgpu-train eval`'s lines), output after
 * output: `loss.<output>`, `accuracy.<output>`, `top_k.<output>`, `mae.<output>` (a figure the
 * output does not measure is left out).
 */
export function outputFields(r: EvalResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [o, f] of Object.entries(r.outputs ?? {})) {
    out[`loss.${o}`] = f.loss;
    if (f.accuracy !== null) out[`accuracy.${o}`] = f.accuracy;
    if (f.topK !== null) out[`top_k.${o}`] = f.topK;
    out[`mae.${o}`] = f.mae;
  }
  return out;
}

/**
 * Runs `visit` over consecutive chunks of the dataset, each staged and split over the active
 * ranks. Rows made on demand are made only for this machine's ranks (on several machines, its
 * part of the chunk): ready before the chunk is staged, the next chunk's started.
 */
async function chunks(s: Session, ds: Dataset, batch: number, visit: (shards: Shard[], start: number, chunk: number) => Promise<void>): Promise<void> {
  let chunk = 0;
  const rowsFrom = (start: number) => (start < ds.count ? new Uint32Array(Math.min(batch, ds.count - start)).map((_, i) => start + i) : null);
  const mine = (indices: Uint32Array, shards: Shard[]) => indices.subarray(shards[0]?.start ?? 0, shards.at(-1)?.end ?? 0);
  for (let start = 0; start < ds.count; start += batch) {
    const indices = rowsFrom(start)!;
    const shards = s.shards(indices.length);
    const next = rowsFrom(start + batch);
    const rows = await chunkRows(ds, mine(indices, shards), next && mine(next, s.shards(next.length)), s.cfg.reliability.stepTimeout);
    s.stager.stage(ds, indices, shards, 0);
    await visit(shards, start, chunk++);
    rows.done();
  }
}

/** One output's sums over every rank and chunk (and machine): its loss sum beside its totals. */
interface OutputTotals extends EvalTotals {
  lossSum: number;
}

/** A shape of score rows: each row's scores, its labels, and how many rows a sample has (scoreShape). */
type ScoreShape = ReturnType<typeof scoreShape>;

/** What the chunks add into: the totals of the run and of each output, and what reading a reply needs. */
interface EvalSums {
  t: { n: number; lossSum: number };
  heads: OutputTotals[];
  kinds: OutputKind[];
  shapes: ScoreShape[];
  metrics: EvalMetrics | null;
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
  const layout = s.group.layout;
  const kinds = outputKinds({ loss: lossSpec }, layout);
  const wanted = workerMetrics(metrics?.specs ?? null);
  const shapes = layout.outputs.map((o, i) => scoreShape(kinds[i]!.loss, o.shape));
  const sums: EvalSums = { t: { n: 0, lossSum: 0 }, heads: outputTotals(ds, kinds, shapes, wanted, metrics), kinds, shapes, metrics };
  await chunks(s, ds, batch, async (shards, start, id) => {
    const byRank = new Map(shards.map((sh) => [sh.rank, sh]));
    const replies = await askEval(s, shards, byRank, id, k, deadlineMs);
    for (const m of replies) addReply(s, sums, m, byRank.get(m.rank)!, start, id);
  });
  const { t, heads } = sums;
  if (s.cluster.size > 1) await sumOverMachines(s, t, heads, wanted?.counts ? shapes.map((sh, i) => (hasClasses(kinds[i]!.loss) ? sh.width : 0)) : null);
  for (const h of heads) h.n = t.n;
  return kinds.length > 1 ? severalOutputsResult(sums, k) : oneOutputResult(sums, k);
}

/**
 * Each output's totals, at zero: sums over every rank and chunk, and (auc) room for every row's
 * scores, which each rank writes to its output region one output after another.
 */
function outputTotals(ds: Dataset, kinds: OutputKind[], shapes: ScoreShape[], wanted: WorkerMetrics | null, metrics: EvalMetrics | null): OutputTotals[] {
  return kinds.map((o, i) => {
    const sh = shapes[i]!;
    const rows = ds.count * sh.rowsPerSample;
    return {
      n: 0,
      lossSum: 0,
      correct: 0,
      topK: 0,
      abs: 0,
      sq: 0,
      counts: null,
      scores:
        wanted?.scores && hasClasses(o.loss)
          ? { values: new Float32Array(rows * sh.width), labels: new Float32Array(rows * sh.labelWidth), width: sh.width }
          : null,
      custom: metrics?.custom.map(() => ({})) ?? [],
    };
  });
}

/** Chunk `id`: each rank of `shards` evaluates its rows; their sums, once every one has answered. */
async function askEval(s: Session, shards: Shard[], byRank: Map<number, Shard>, id: number, k: number, deadlineMs: number): Promise<EvaluatedMessage[]> {
  return s.group.all<EvaluatedMessage>(
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
}

/** One rank's reply to chunk `id` (its shard `sh`), added to the totals, output after output. */
function addReply(s: Session, sums: EvalSums, m: EvaluatedMessage, sh: Shard, start: number, id: number): void {
  const { t, heads, metrics } = sums;
  t.n += m.n;
  t.lossSum += m.lossSum;
  const each: OutputSums[] = m.outputs ?? [m];
  if (each.length !== heads.length)
    throw new MgpuError('E_INTERNAL', `eval chunk ${id}: rank ${m.rank} sent ${each.length} outputs' sums, expected ${heads.length}`);
  let at = 0; // bytes of the rank's output region taken by the scores of the outputs before
  for (const [i, o] of each.entries()) {
    const h = heads[i]!;
    addOutputSums(h, o, metrics !== null);
    if (metrics && h.scores) at += readScores(s, sums, i, o.scored, m.rank, sh, start, id, at);
  }
}

/** One output's sums from one reply, added to its totals (the config's metrics' sums with `metrics`). */
function addOutputSums(h: OutputTotals, o: OutputSums, metrics: boolean): void {
  h.lossSum += o.lossSum;
  h.correct += o.correct;
  h.abs += o.absErrorSum;
  h.topK += o.topKCorrect;
  if (!metrics) return;
  h.sq += o.sqErrorSum;
  if (o.counts) h.counts = addCounts(h.counts, o.counts);
  o.custom?.forEach((sums, c) => {
    const into = h.custom[c]!;
    for (const [key, v] of Object.entries(sums)) into[key] = (into[key] ?? 0) + v;
  });
}

/**
 * Rank `rank` wrote output `i`'s rows' scores, then their labels, `at` bytes into its output
 * region (after the outputs before it); they go where its rows sit in the eval set. The bytes
 * they took.
 */
function readScores(s: Session, sums: EvalSums, i: number, rows: number, rank: number, sh: Shard, start: number, id: number, at: number): number {
  const scores = sums.heads[i]!.scores!;
  const shape = sums.shapes[i]!;
  if (rows !== (sh.end - sh.start) * shape.rowsPerSample) {
    throw new MgpuError(
      'E_INTERNAL',
      `eval chunk ${id}: rank ${rank} scored ${rows} rows of output '${sums.kinds[i]!.name}', expected ${(sh.end - sh.start) * shape.rowsPerSample}`,
    );
  }
  const got = new Float32Array(rows * (shape.width + shape.labelWidth));
  s.slab.read(s.layout.output[rank]! + at, got);
  const row = (start + sh.start) * shape.rowsPerSample;
  scores.values.set(got.subarray(0, rows * shape.width), row * shape.width);
  scores.labels.set(got.subarray(rows * shape.width), row * shape.labelWidth);
  return got.byteLength;
}

/** One output's shipped figures from its totals over the `n` samples. */
function outputFigures(h: OutputTotals, o: OutputKind, n: number, k: number): OutputFigures {
  return {
    loss: h.lossSum / n,
    accuracy: hasClasses(o.loss) ? h.correct / n : null,
    topK: metricSuits('topK', o.loss) && (o.classes ?? 0) > k ? h.topK / n : null,
    mae: h.abs / n,
  };
}

/**
 * A model of several outputs: Keras has no single accuracy (nor top-k, nor mae) for it; each
 * output's are in `outputs`, and the config's metrics are per output.
 */
function severalOutputsResult({ t, heads, kinds, metrics }: EvalSums, k: number): EvalResult {
  const outputs = Object.fromEntries(kinds.map((o, i) => [o.name, outputFigures(heads[i]!, o, t.n, k)]));
  return {
    samples: t.n,
    loss: t.lossSum / t.n,
    accuracy: null,
    topK: null,
    k,
    mae: NaN,
    outputLosses: Object.fromEntries(kinds.map((o, i) => [o.name, heads[i]!.lossSum / t.n])),
    outputs,
    metrics: metrics ? computeOutputMetrics(metrics, kinds, k, heads) : null,
  };
}

/** A model of one output: its figures are the run's. */
function oneOutputResult({ t, heads, kinds, metrics }: EvalSums, k: number): EvalResult {
  const one = outputFigures(heads[0]!, kinds[0]!, t.n, k);
  return {
    samples: t.n,
    loss: t.lossSum / t.n,
    accuracy: one.accuracy,
    topK: one.topK,
    k,
    mae: one.mae,
    outputLosses: null,
    outputs: null,
    metrics: metrics ? computeMetrics(metrics, kinds[0]!.loss, heads[0]!) : null,
  };
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
 * the machines, each output's too (the per-class counts as well; the score rows are disjoint, so
 * their sum is the whole). `countWidths`: with precision, recall or f1, each output's class count
 * (0 for one without classes), the same on every machine; null without them.
 */
async function sumOverMachines(s: Session, t: { n: number; lossSum: number }, heads: OutputTotals[], countWidths: number[] | null): Promise<void> {
  const values: number[] = [t.n, t.lossSum];
  for (const [i, h] of heads.entries()) {
    values.push(h.lossSum, h.correct, h.abs, h.topK, h.sq);
    const w = countWidths?.[i] ?? 0;
    if (w === 0) continue;
    const c = h.counts ?? { tp: new Array<number>(w).fill(0), fp: new Array<number>(w).fill(0), fn: new Array<number>(w).fill(0) };
    if (c.tp.length !== w) throw new MgpuError('E_INTERNAL', `output ${i}: ${c.tp.length} classes counted, expected ${w}`);
    values.push(...c.tp, ...c.fp, ...c.fn);
  }
  const sums = new Float64Array(values);
  await s.cluster.sum(sums, 'the evaluation sums');
  let at = 0;
  const next = () => sums[at++]!;
  const take = (n: number) => Array.from(sums.subarray(at, (at += n)));
  t.n = next();
  t.lossSum = next();
  for (const [i, h] of heads.entries()) {
    [h.lossSum, h.correct, h.abs, h.topK, h.sq] = [next(), next(), next(), next(), next()];
    const w = countWidths?.[i] ?? 0;
    if (w > 0) h.counts = { tp: take(w), fp: take(w), fn: take(w) };
  }
  for (const h of heads) {
    if (!h.scores) continue;
    await s.cluster.sum(h.scores.values, 'the evaluation scores');
    await s.cluster.sum(h.scores.labels, 'the evaluation labels');
  }
  if (heads.some((h) => h.custom.length)) {
    // Custom sums have names of their own: gathered as JSON (per output, per module), added in rank order.
    const mine = Buffer.alloc(CUSTOM_BYTES);
    const json = JSON.stringify(heads.map((h) => h.custom));
    if (Buffer.byteLength(json) > CUSTOM_BYTES)
      throw new MgpuError(
        'E_METRIC',
        `the custom metrics' sums take ${Buffer.byteLength(json)} bytes as JSON; several machines exchange at most ${CUSTOM_BYTES}`,
      );
    mine.write(json);
    const all = await s.cluster.gather(new Uint8Array(mine), 'the custom metric sums');
    for (const h of heads) h.custom = h.custom.map(() => ({}));
    for (const b of all) {
      const theirs = JSON.parse(Buffer.from(b).toString('utf8').replace(/\0+$/, '')) as Record<string, number>[][];
      theirs.forEach((custom, i) =>
        custom.forEach((sums, c) => {
          const into = heads[i]!.custom[c]!;
          for (const [key, v] of Object.entries(sums)) into[key] = (into[key] ?? 0) + v;
        }),
      );
    }
  }
}

const CUSTOM_BYTES = 16384;
