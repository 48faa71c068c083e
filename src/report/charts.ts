// The report's charts, from the metrics of a run: which series go on which chart, in which
// colours, and the notes under each one (values left out, bars cut). Each chart's `plot` is the
// data the page's script draws with uPlot (plot-data.ts).
import { fmtInt, fmtSig, listSteps } from './format.ts';
import { metricBase, outputFigure, outputNames, type OutputFigure } from './outputs.ts';
import { barPlot, linePlot, type BarPlot, type LinePlot, type Marker, type Point, type Series, type ValueFormat } from './plot-data.ts';
import type { RunData } from './read-run.ts';
import { maxOf } from './scale.ts';
import { lineWeights, metricKeys, metricPercent, otherMs } from './summary.ts';

export const COLORS = {
  train: '#2563eb',
  eval: '#ea580c',
  accuracy: '#16a34a',
  topK: '#7c3aed',
  mae: '#0891b2',
  lr: '#0891b2',
  throughput: '#4f46e5',
  gradNorm: '#db2777',
  computeMax: '#3b82f6',
  computeMin: '#1e3a8a',
  sync: '#f59e0b',
  data: '#10b981',
  other: '#a3a3a3',
  skip: '#d97706',
  failure: '#9333ea',
  stop: '#64748b',
};

/** Colours of the config's metrics, in the order they are drawn on one chart. */
export const METRIC_PALETTE = ['#16a34a', '#7c3aed', '#ea580c', '#0891b2', '#db2777', '#ca8a04', '#2563eb', '#4b5563', '#059669', '#9333ea'];

export interface Chart {
  id: string;
  title: string;
  subtitle: string;
  plot: LinePlot | BarPlot;
  notes: string[];
  size: 'half' | 'third' | 'full';
}

/**
 * A centred moving average over `half` points either side, of the finite values only; a NaN/Inf
 * point stays as it is. Centred and symmetric (narrower towards the ends, the end points as they
 * are), so the curve neither lags the data nor bends at the ends: a loss that falls fast in its
 * first lines still starts where it started.
 */
export function smooth(points: Point[], half: number): Point[] {
  // Running sums of the finite values and of their count: each window in O(1), so 100,000 points
  // with a window of 4,000 take milliseconds, not seconds.
  const sums = [0];
  const counts = [0];
  for (const p of points) {
    const ok = Number.isFinite(p.y);
    sums.push(sums[sums.length - 1]! + (ok ? p.y : 0));
    counts.push(counts[counts.length - 1]! + (ok ? 1 : 0));
  }
  return points.map((p, i) => {
    if (!Number.isFinite(p.y)) return p;
    const h = Math.min(half, i, points.length - 1 - i);
    return { x: p.x, y: (sums[i + h + 1]! - sums[i - h]!) / (counts[i + h + 1]! - counts[i - h]!) };
  });
}

/** A noisy series: with many points, a faint raw line under a smoothed one. */
function noisy(name: string, color: string, points: Point[], format: ValueFormat): { series: Series[]; smoothed: boolean } {
  const finite = points.filter((p) => Number.isFinite(p.y)).length;
  if (finite < 100) return { series: [{ name, color, points, style: 'line', format }], smoothed: false };
  return {
    smoothed: true,
    series: [
      { name: `${name} (raw)`, color, points, style: 'line', width: 1.25, opacity: 0.3, format },
      {
        name: `${name} (smoothed)`,
        color,
        points: smooth(points, Math.max(2, Math.round(points.length / 50))),
        style: 'line',
        width: 2.25,
        format,
        derived: true,
      },
    ],
  };
}

/** At most `max` bars: consecutive lines merged, each value the step-weighted mean. */
export function binLines<T extends Record<string, number>>(
  rows: T[],
  spans: { start: number; end: number }[],
  weights: number[],
  max: number,
): { rows: T[]; spans: { start: number; end: number }[]; per: number } {
  if (rows.length <= max) return { rows, spans, per: 1 };
  const per = Math.ceil(rows.length / max);
  const outRows: T[] = [];
  const outSpans: { start: number; end: number }[] = [];
  for (let i = 0; i < rows.length; i += per) {
    const idx = rows.slice(i, i + per).map((_, j) => i + j);
    const acc = {} as Record<string, number>;
    let wsum = 0;
    for (const j of idx) {
      const okRow = Object.values(rows[j]!).every(Number.isFinite);
      if (!okRow) continue;
      wsum += weights[j]!;
      for (const [k, v] of Object.entries(rows[j]!)) acc[k] = (acc[k] ?? 0) + v * weights[j]!;
    }
    for (const k of Object.keys(rows[i]!)) acc[k] = wsum > 0 ? acc[k]! / wsum : NaN;
    outRows.push(acc as T);
    outSpans.push({ start: spans[idx[0]!]!.start, end: spans[idx[idx.length - 1]!]!.end });
  }
  return { rows: outRows, spans: outSpans, per };
}

function droppedNote(what: string, dropped: { x: number; y: number }[]): string[] {
  if (!dropped.length) return [];
  const kinds = new Set(dropped.map((d) => (Number.isNaN(d.y) ? 'NaN' : 'infinite')));
  return [
    `${dropped.length} ${what} value${dropped.length === 1 ? ' is' : 's are'} ${[...kinds].join(' or ')} and left out (step${dropped.length === 1 ? '' : 's'} ${listSteps(dropped.map((d) => d.x))}); red marks show where.`,
  ];
}

export function buildCharts(run: RunData): Chart[] {
  const steps = [...run.train, ...run.evals, ...run.events].map((r) => r.step).filter(Number.isFinite);
  const xMax = steps.length ? maxOf(steps) : 1;
  const outputs = outputNames(run.evals);
  return [
    lossChart(run, xMax, outputs),
    accuracyChart(run, xMax, outputs),
    ...metricCharts(run, xMax),
    lrChart(run, xMax),
    throughputChart(run, xMax),
    gradNormChart(run, xMax),
    phaseChart(run, xMax),
  ];
}

const NO_TRAIN = 'no training line in metrics.jsonl';

/** One figure of each training line, as points at its step. */
function trainPoints(run: RunData, get: (t: RunData['train'][number]) => number): Point[] {
  return run.train.map((t) => ({ x: t.step, y: get(t) }));
}

const EVENT = { skip: ['skipped step', 'skipped'], failure: ['worker failure', 'failure'], stop: ['stop asked for', 'stopped'] } as const;

/** The run's events (skipped steps, worker failures, stops) as markers on the loss chart. */
function eventMarkers(run: RunData): Marker[] {
  return run.events.map((e) => ({
    x: e.type === 'skip' ? e.step + 1 : e.step,
    color: COLORS[e.type],
    legend: EVENT[e.type][0],
    label: `${EVENT[e.type][1]} at step ${e.step}${e.ranks.length ? ` (rank ${e.ranks.join(', ')})` : ''}: ${e.message}${e.action ? ` -> ${e.action}` : ''}`,
  }));
}

/** Training loss (smoothed when noisy), eval loss and each output's eval loss as points. */
function lossChart(run: RunData, xMax: number, outputs: string[]): Chart {
  const markers = eventMarkers(run);
  const train = noisy(
    'train loss',
    COLORS.train,
    trainPoints(run, (t) => t.loss),
    'loss',
  );
  const lossSeries: Series[] = [...train.series];
  if (run.evals.length)
    lossSeries.push({ name: 'eval loss', color: COLORS.eval, points: run.evals.map((e) => ({ x: e.step, y: e.loss })), style: 'points', format: 'loss' });
  // Several outputs: each output's eval loss too (without its loss weight), as points.
  lossSeries.push(...perOutput(run, outputs, 'loss', 'points', 'loss', 3));
  const loss = linePlot({ yLabel: 'loss', series: lossSeries, xMax, yScale: 'auto', logRatio: 10, markers, emptyText: NO_TRAIN });
  return {
    id: 'loss',
    size: 'half',
    title: 'Loss',
    subtitle: `training loss per log line${train.smoothed ? ' (faint) and smoothed' : ''}${run.evals.length ? `; eval loss${outputs.length ? ' and each output’s' : ''} as points` : ''}`,
    plot: loss.plot,
    notes: [
      ...droppedNote(
        'training loss',
        loss.dropped.filter((d) => !d.series.startsWith('eval loss')),
      ),
      ...droppedNote(
        'eval loss',
        loss.dropped.filter((d) => d.series.startsWith('eval loss')),
      ),
    ],
  };
}

/** Eval accuracy and top-k (each output's too); for a regression, the MAE chart in its place. */
function accuracyChart(run: RunData, xMax: number, outputs: string[]): Chart {
  const k = run.evals.find((e) => Number.isFinite(e.k))?.k;
  // Several outputs: each output's accuracy and top-k, for the outputs whose loss has classes.
  const outputAcc = [
    ...perOutput(run, outputs, 'accuracy', 'line', 'pct', 0),
    ...perOutput(run, outputs, 'top_k', 'line', 'pct', outputs.length, `top-${k ?? 'k'}`),
  ];
  const hasAcc = run.evals.some((e) => e.accuracy !== null) || outputAcc.length > 0;
  if (run.evals.length && !hasAcc) return maeChart(run, xMax, outputs);
  const series: Series[] = [];
  if (hasAcc)
    series.push({
      name: 'accuracy',
      color: COLORS.accuracy,
      points: run.evals.filter((e) => e.accuracy !== null).map((e) => ({ x: e.step, y: e.accuracy! })),
      style: 'line',
      format: 'pct',
    });
  if (run.evals.some((e) => e.top_k !== null))
    series.push({
      name: `top-${k ?? 'k'} accuracy`,
      color: COLORS.topK,
      points: run.evals.filter((e) => e.top_k !== null).map((e) => ({ x: e.step, y: e.top_k! })),
      style: 'line',
      format: 'pct',
    });
  series.push(...outputAcc);
  const acc = linePlot({
    yLabel: 'accuracy',
    series,
    xMax,
    yFormat: 'percent',
    clamp: [0, 1],
    emptyText: 'no eval in this run (set data.eval or data.evalFraction)',
  });
  return {
    id: 'accuracy',
    size: 'half',
    title: 'Eval accuracy',
    subtitle: run.evals.length
      ? `on ${fmtInt(run.evals[0]!.samples)} eval samples, ${run.evals.length} eval${run.evals.length === 1 ? '' : 's'}`
      : 'no eval lines',
    plot: acc.plot,
    notes: droppedNote('eval accuracy', acc.dropped),
  };
}

/** A regression's eval mean absolute error (each output's), where the accuracy chart would be. */
function maeChart(run: RunData, xMax: number, outputs: string[]): Chart {
  const mae = linePlot({
    yLabel: 'mean absolute error',
    series: outputs.length
      ? perOutput(run, outputs, 'mae', 'line', 'loss', 0)
      : [{ name: 'eval MAE', color: COLORS.mae, points: run.evals.map((e) => ({ x: e.step, y: e.mae })), style: 'line', format: 'loss' }],
    xMax,
    yScale: 'auto',
  });
  return {
    id: 'accuracy',
    size: 'half',
    title: 'Eval mean absolute error',
    subtitle: outputs.length ? 'of each output; no accuracy: no output has a classification loss' : 'no accuracy: the loss is not a classification loss',
    plot: mae.plot,
    notes: droppedNote('eval MAE', mae.dropped),
  };
}

/** The learning rate at each log line; the subtitle says its range or schedule. */
function lrChart(run: RunData, xMax: number): Chart {
  const T = run.train;
  const lr = linePlot({
    yLabel: 'learning rate',
    series: [{ name: 'learning rate', color: COLORS.lr, points: trainPoints(run, (t) => t.lr), style: 'line', format: 'sig4' }],
    xMax,
    includeZero: true,
    emptyText: NO_TRAIN,
  });
  const lrs = [...new Set(T.map((t) => t.lr).filter(Number.isFinite))];
  // "constant" only when the schedule is: a cosine run logged once also shows a single value.
  const schedule = (run.config?.schedule as { name?: string } | undefined)?.name ?? 'constant';
  const lrSub =
    lrs.length === 1
      ? schedule === 'constant'
        ? `constant at ${fmtSig(lrs[0]!, 4)}`
        : `${fmtSig(lrs[0]!, 4)} (${schedule} schedule, logged once)`
      : lrs.length
        ? `from ${fmtSig(T.find((t) => Number.isFinite(t.lr))!.lr, 3)} to ${fmtSig([...T].reverse().find((t) => Number.isFinite(t.lr))!.lr, 3)}, at each log line`
        : 'at each log line';
  return { id: 'lr', size: 'third', title: 'Learning rate', subtitle: lrSub, plot: lr.plot, notes: droppedNote('learning rate', lr.dropped) };
}

/** Training samples per second (smoothed when noisy). */
function throughputChart(run: RunData, xMax: number): Chart {
  const sps = linePlot({
    yLabel: 'samples / s',
    series: noisy(
      'samples/s',
      COLORS.throughput,
      trainPoints(run, (t) => t.samples_per_sec),
      'int',
    ).series,
    xMax,
    includeZero: true,
    emptyText: NO_TRAIN,
  });
  return {
    id: 'throughput',
    size: 'third',
    title: 'Throughput',
    subtitle: 'training samples per second of step time, all workers',
    plot: sps.plot,
    notes: droppedNote('samples/s', sps.dropped),
  };
}

/** The global gradient norm before clipping (smoothed when noisy). */
function gradNormChart(run: RunData, xMax: number): Chart {
  const gn = linePlot({
    yLabel: 'gradient norm',
    series: noisy(
      'L2 norm',
      COLORS.gradNorm,
      trainPoints(run, (t) => t.grad_norm),
      'sig4',
    ).series,
    xMax,
    yScale: 'auto',
    emptyText: NO_TRAIN,
  });
  return {
    id: 'grad-norm',
    size: 'third',
    title: 'Gradient norm',
    subtitle: 'global L2 norm of the summed gradient, before clipping',
    plot: gn.plot,
    notes: droppedNote('gradient norm', gn.dropped),
  };
}

/** Where a step goes: compute, sync, data and other per log interval, at most 120 bars. */
function phaseChart(run: RunData, xMax: number): Chart {
  const T = run.train;
  const weights = lineWeights(
    T,
    run.events.filter((e) => e.type === 'skip').map((e) => e.step),
  );
  // A line averages the steps since the previous line: its bar spans (previous step, step], whatever
  // the weights (which leave skipped steps out) say.
  const allSpans = T.map((t, i) => ({ start: i === 0 ? 0 : Math.min(t.step, T[i - 1]!.step), end: t.step }));
  const phaseRowsAll = T.map((t) => ({ cmax: t.compute_max_ms, cmin: t.compute_min_ms, sync: t.sync_ms, data: t.data_ms, other: otherMs(t) }));
  const binned = binLines(phaseRowsAll, allSpans, weights, 120);
  const P = binned.rows;
  const stacked = barPlot({
    yLabel: 'ms per step',
    xMax,
    spans: binned.spans,
    layers: [
      { name: 'compute (slowest worker)', color: COLORS.computeMax, values: P.map((r) => r.cmax) },
      { name: 'sync', color: COLORS.sync, values: P.map((r) => r.sync) },
      { name: 'data', color: COLORS.data, values: P.map((r) => r.data) },
      { name: 'other', color: COLORS.other, values: P.map((r) => r.other) },
    ],
    overlay: { name: 'compute (fastest worker)', color: COLORS.computeMin, values: P.map((r) => r.cmin), dash: [5, 3], width: 1.75 },
    emptyText: NO_TRAIN,
  });
  return {
    id: 'phases',
    title: 'Where a step goes',
    subtitle: `mean ms per step over each ${binned.per > 1 ? `bar (${binned.per} log lines)` : 'log interval'}: slowest worker's compute, sync (reduce + update + publish), data staging, other`,
    plot: stacked.plot,
    notes: phaseNotes(stacked),
    size: 'full',
  };
}

/** The phase chart's notes: where its axis is cut, and lines whose phases exceed the step time. */
function phaseNotes(stacked: { cappedAt: number | null; negativeOther: number }): string[] {
  const notes: string[] = [];
  if (stacked.cappedAt !== null)
    notes.push(`The axis stops at ${fmtSig(stacked.cappedAt, 3)} ms so the typical step stays readable; bars marked ▲ are taller (hover for their values).`);
  if (stacked.negativeOther)
    notes.push(
      `${stacked.negativeOther} line${stacked.negativeOther === 1 ? ' has' : 's have'} compute + sync + data above the step time (timer overlap); their "other" is drawn as 0.`,
    );
  return notes;
}

/**
 * Several outputs: one series per output that has `figure` in some eval line, named as the line
 * names the field (`accuracy.class`, or `<label>.class`), coloured from METRIC_PALETTE from `from`.
 */
function perOutput(
  run: RunData,
  outputs: string[],
  figure: OutputFigure,
  style: 'line' | 'points',
  format: ValueFormat,
  from: number,
  label: string = figure,
): Series[] {
  return outputs.flatMap((o, i) => {
    const points = run.evals.flatMap((e) => {
      const y = outputFigure(e, figure, o);
      return y === null ? [] : [{ x: e.step, y }];
    });
    if (!points.length) return [];
    const name = figure === 'loss' ? `eval loss.${o}` : `${label}.${o}`;
    return [{ name, color: METRIC_PALETTE[(from + i) % METRIC_PALETTE.length]!, points, style, format }];
  });
}

/**
 * The config's metrics (the eval lines' `metrics`), on up to three charts: the classification
 * scores in [0, 1] (precision, recall, F1, AUC; accuracy and top-k are on the accuracy chart),
 * the errors (MAE, RMSE), and the custom metrics' values. None without `metrics`.
 */
export function metricCharts(run: RunData, xMax: number): Chart[] {
  const keys = metricKeys(run.evals);
  if (!keys.length) return [];
  // Several outputs: a key ends in `.<output>`; which chart it goes on is its base key's.
  const outputs = outputNames(run.evals);
  const base = (key: string) => metricBase(key, outputs).base;
  const series = (ks: string[]): Series[] =>
    ks.map((key, i) => ({
      name: key,
      color: METRIC_PALETTE[i % METRIC_PALETTE.length]!,
      style: 'line' as const,
      format: metricPercent(key, outputs) ? ('pct' as const) : ('sig4' as const),
      // An undefined value (null: e.g. AUC with one class present) is not drawn; NaN/Inf are, as left out.
      points: run.evals.filter((e) => e.metrics && e.metrics[key] !== null && e.metrics[key] !== undefined).map((e) => ({ x: e.step, y: e.metrics![key]! })),
    }));
  const sub = `on ${fmtInt(run.evals[0]!.samples)} eval samples, from counts and scores over the whole eval set`;
  const out: Chart[] = [];
  const scores = keys.filter((k) => /^(precision|recall|f1)_|^auc$/.test(base(k)));
  if (scores.length) {
    const c = linePlot({ yLabel: 'score', series: series(scores), xMax, clamp: [0, 1], emptyText: 'no value (undefined for this eval set)' });
    out.push({
      id: 'eval-metrics',
      size: 'half',
      title: 'Eval metrics',
      subtitle: `${scores.join(', ')}; ${sub}`,
      plot: c.plot,
      notes: droppedNote('eval metric', c.dropped),
    });
  }
  const errors = keys.filter((k) => base(k) === 'mae' || base(k) === 'rmse');
  if (errors.length) {
    const c = linePlot({ yLabel: 'error', series: series(errors), xMax, yScale: 'auto', includeZero: false, emptyText: 'no value' });
    out.push({
      id: 'eval-errors',
      size: 'half',
      title: 'Eval errors',
      subtitle: `${errors.join(', ')}; over every output of every eval sample`,
      plot: c.plot,
      notes: droppedNote('eval error', c.dropped),
    });
  }
  const custom = keys.filter((k) => base(k).includes('.'));
  if (custom.length) {
    const c = linePlot({ yLabel: 'value', series: series(custom), xMax, yScale: 'auto', emptyText: 'no value' });
    out.push({
      id: 'eval-custom',
      size: 'half',
      title: 'Custom metrics',
      subtitle: `${custom.join(', ')}; from the modules' sums over the whole eval set`,
      plot: c.plot,
      notes: droppedNote('custom metric', c.dropped),
    });
  }
  return out;
}
