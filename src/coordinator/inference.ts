// `mgpu-train eval` and `mgpu-train predict`: a trained model (a checkpoint, or any LayersModel
// directory such as runs/<name>/final) evaluated or applied by the same workers that train,
// each rank taking its share of every chunk.
//
// Prediction takes what training takes, told by what the files are: image files or folders, a
// TFRecord or WebDataset tar shard, one .npy of rows for a model with one input, or one per
// input name (`--input image=a.npy --input meta=b.npy`); it writes one .npy (a model with one output), a
// .csv of class names, or a directory with one <output name>.npy per output.
//
// Class names (data/classes.ts): `eval` encodes names with the model's labels.json when it has
// one (data.classes, if set, must list the same); `predict --output x.csv` writes the name of
// each row's highest output, and needs that labels.json.
import fs from 'node:fs';
import { writeFileAtomically } from '../shared/atomic-write.ts';
import path from 'node:path';
import type { Config } from '../config/types.ts';
import { readsClassNames } from '../config/data-sources-table.ts';
import { evalBatchSize } from '../config/batch-sizes.ts';
import { ConfigError, MgpuError } from '../shared/errors.ts';
import type { ModelLayout } from '../shared/layout.ts';
import { readFlatWeights } from '../shared/model-files.ts';
import { writeNpy } from '../shared/npy.ts';
import { memoryColumn, type RowPipeline } from '../data/columns.ts';
import { imageInput, imagePredictionsCsv, type ImageInput } from '../data/images/predict-images.ts';
import { inputKindOf, INPUT_KINDS_TAKEN } from '../data/predict-input-kind.ts';
import { shardInput } from '../data/predict-shards.ts';
import { mappedNpy } from '../data/mapped-npy.ts';
import { findCheckpoint, readCheckpoint, STATE_FILE } from './run/checkpoint.ts';
import { verifyModelDir } from './run/checkpoint-integrity.ts';
import { LABELS_FILE, readLabels, sameClasses, showClasses, type ClassMapping } from '../data/classes.ts';
import type { Dataset, NamedArray } from '../data/rows.ts';
import { loadSplits } from '../data/splits.ts';
import type { EvalResult, PredictedOutput } from './engine/eval-result.ts';
import { evaluate, outputFields, predict } from './engine/evaluate.ts';
import { metricLabel, metricValue } from './metrics/format.ts';
import { loadEvalMetrics } from './metrics/index.ts';
import { plural, type Progress } from './console/progress.ts';
import { StartupRecovery } from './run/recovery.ts';
import { openSession, runDevices } from './engine/session.ts';
import { unwritableDirReason } from './run/writable.ts';

export interface ModelSource {
  dir: string; // a checkpoint, a run directory (its newest checkpoint) or a LayersModel directory
  ema: boolean; // use the checkpoint's EMA weights
}

/** The weights to run, read once the workers have reported the model layout. */
function weightsFrom(src: ModelSource): (layout: ModelLayout) => Float32Array {
  return (layout) => {
    const isModelDir = fs.existsSync(path.join(src.dir, 'model.json')) && !fs.existsSync(path.join(src.dir, STATE_FILE));
    if (isModelDir) {
      if (src.ema) throw new MgpuError('E_USAGE', `--ema needs a checkpoint with EMA weights; ${src.dir} is a plain model directory`);
      return readFlatWeights(path.join(src.dir, 'model.json'), layout);
    }
    const ckpt = readCheckpoint(findCheckpoint(src.dir, 'load'), layout);
    if (!src.ema) return ckpt.weights;
    if (!ckpt.ema) throw new MgpuError('E_USAGE', `${ckpt.dir} holds no EMA weights (the run had no training.ema)`);
    return ckpt.ema;
  };
}

/** The directory of the weights `src` names: a model directory, or the checkpoint it finds. */
export function modelDirOf(src: ModelSource): string {
  const isModelDir = fs.existsSync(path.join(src.dir, 'model.json')) && !fs.existsSync(path.join(src.dir, STATE_FILE));
  return isModelDir ? src.dir : findCheckpoint(src.dir, 'load');
}

/** An output file that gets class names (CSV) rather than scores (.npy). */
export const wantsNames = (output: string) => /\.csv$/i.test(output);

/** The class names of the model `src` names, which a prediction written as names needs. */
export function labelsForNames(src: ModelSource, what: string, output: string): ClassMapping {
  const dir = modelDirOf(src);
  const labels = readLabels(dir);
  if (labels) return labels;
  throw new MgpuError(
    'E_USAGE',
    `${what} ${output}: a .csv output gets class names, but ${dir} has no ${LABELS_FILE} (written beside a model trained on class-name labels, labelType: class)`,
    {
      hint: `write the scores with ${what} predictions.npy instead, or put { "classes": ["name of output 0", ...] } in ${path.join(dir, LABELS_FILE)}`,
    },
  );
}

/**
 * Each row's class: the name of its highest output (the first of equal ones), and that output.
 * `values`: rows x classes, as predict returns them.
 */
export function namePredictions(values: Float32Array, shape: number[], labels: ClassMapping): { names: string[]; scores: Float32Array } {
  const rows = shape[0]!;
  const width = rows === 0 ? 0 : values.length / rows;
  const k = labels.classes.length;
  if (shape.length !== 2 || width !== k) {
    throw new MgpuError(
      'E_MODEL',
      `the model's outputs are [${shape.join(', ')}] per prediction, but ${labels.from} names ${k} classes (${showClasses(labels.classes)})`,
      {
        hint: 'class names need one output per class: [rows, classes]',
      },
    );
  }
  const names: string[] = new Array<string>(rows);
  const scores = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let best = 0;
    for (let c = 1; c < k; c++) if (values[r * k + c]! > values[r * k + best]!) best = c;
    names[r] = labels.classes[best]!;
    scores[r] = values[r * k + best]!;
  }
  return { names, scores };
}

/** predictions.csv: a header `class,score`, then one line per input row, in input order. */
export function predictionsCsv(names: readonly string[], scores: Float32Array): string {
  const field = (t: string) => (/[",\r\n]/.test(t) || t.trim() !== t ? `"${t.replace(/"/g, '""')}"` : t);
  // The shortest decimal that reads back as the same float32: 9 significant digits always do
  // (NaN, which equals nothing, falls through to String).
  const float = (v: number) => {
    for (let p = 1; p <= 9; p++) {
      const t = v.toPrecision(p);
      if (Math.fround(Number(t)) === v) return String(Number(t));
    }
    return String(v);
  };
  const lines = ['class,score'];
  for (let i = 0; i < names.length; i++) lines.push(`${field(names[i]!)},${float(scores[i]!)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * What `--output` names: a .npy file (the outputs of a model with one), a .csv (class names), or,
 * any other path, a directory that gets one `<output name>.npy` per output of the model.
 */
export type OutputKind = 'npy' | 'csv' | 'dir';
export const outputKind = (output: string): OutputKind => (wantsNames(output) ? 'csv' : /\.npy$/i.test(output) ? 'npy' : 'dir');

/** --output is checked before any worker starts: the predictions come after all the work. */
export function checkOutput(output: string, what = '--output'): void {
  const fail = (why: string, hint: string) => {
    throw new MgpuError('E_USAGE', `${what} ${output}: ${why}`, { hint });
  };
  const exists = fs.existsSync(output);
  if (outputKind(output) === 'dir') {
    // A directory: written into if it exists, else created in its parent (one level).
    if (exists && !fs.statSync(output).isDirectory())
      fail(
        'is a file; an output named without .npy or .csv is a directory that gets one <output name>.npy per model output',
        'name a .npy file (a model with one output), a .csv file (class names) or a directory',
      );
    const why = exists ? unwritableDirReason(output) : null;
    if (why) fail(why, 'write the predictions to a directory this user can write');
    if (exists) return;
  } else if (exists && fs.statSync(output).isDirectory()) {
    fail(
      'is a directory',
      'name the file to write, e.g. --output y.npy (scores) or --output y.csv (class names); a path without .npy or .csv is a directory that gets one <output name>.npy per output',
    );
  }
  const dir = path.dirname(output);
  if (!fs.existsSync(dir)) fail(`the directory ${dir} does not exist`, 'create it first, or write the predictions elsewhere');
  const why = unwritableDirReason(dir);
  if (why) fail(why, 'write the predictions to a directory this user can write');
}

/** An output name that is a file name everywhere: letters, digits, '.', '_', '-', not starting with '.' or '-'. */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * Once the workers have built the model, before any row is predicted: a .npy or .csv output
 * takes a model with one output, and a directory takes output names that are safe file names
 * (and distinct ignoring case, for case-insensitive file systems).
 */
export function checkOutputFitsModel(output: string, layout: ModelLayout, what = '--output'): void {
  const kind = outputKind(output);
  const names = layout.outputs.map((o) => o.name);
  const list = names.map((n) => `'${n}'`).join(', ');
  if (kind !== 'dir' && names.length > 1) {
    throw new MgpuError(
      'E_USAGE',
      `${what} ${output}: the model has ${names.length} outputs (${list}); ${kind === 'csv' ? 'class names are those of a model with one output' : 'a .npy file holds one'}`,
      {
        hint: `name a directory instead: ${what} ${kind === 'csv' ? output.replace(/\.csv$/i, '') : output.replace(/\.npy$/i, '')} writes ${names.map((n) => `${n}.npy`).join(', ')} into it`,
      },
    );
  }
  if (kind !== 'dir') return;
  const unsafe = names.find((n) => !SAFE_NAME.test(n));
  if (unsafe !== undefined) {
    throw new MgpuError(
      'E_USAGE',
      `${what} ${output}: the model's output '${unsafe}' is not a safe file name (letters, digits, '.', '_' and '-', not starting with '.' or '-'), so it cannot name ${unsafe}.npy`,
      {
        hint: `rename the output layer (its \`name\`)${names.length === 1 ? ', or write a .npy file' : ''}; from code, predict() returns the outputs by name whatever they are`,
      },
    );
  }
  const seen = new Map<string, string>();
  for (const n of names) {
    const other = seen.get(n.toLowerCase());
    if (other !== undefined)
      throw new MgpuError(
        'E_USAGE',
        `${what} ${output}: the model's outputs '${other}' and '${n}' differ only in case, so their files would be one on some file systems`,
        {
          hint: 'rename one of the output layers',
        },
      );
    seen.set(n.toLowerCase(), n);
  }
}

/** Writes the outputs as `output` names them (checked by checkOutput and checkOutputFitsModel). */
export function writePredictions(output: string, outputs: readonly PredictedOutput[]): void {
  if (outputKind(output) !== 'dir') {
    const o = outputs[0]!;
    writeNpy(output, { dtype: 'float32', shape: o.shape, data: o.values });
    return;
  }
  if (!fs.existsSync(output)) fs.mkdirSync(output);
  for (const o of outputs) writeNpy(path.join(output, `${o.name}.npy`), { dtype: 'float32', shape: o.shape, data: o.values });
}

/** How a line reports what was written: `float32 [rows, ...]`, or (several outputs, a directory) each output's name and shape. */
export const describeOutputs = (outputs: readonly PredictedOutput[], named = outputs.length > 1): string =>
  named ? outputs.map((o) => `${o.name} float32 [${o.shape.join(', ')}]`).join(', ') : `float32 [${outputs[0]!.shape.join(', ')}]`;

/**
 * `--input` values: one .npy path (a model with one input), or `name=path.npy` pairs naming
 * every input of the model once. A value is a pair when the text before its first '=' holds
 * no path separator (a file whose name holds '=' is given as ./a=b.npy). Paths resolve against `cwd`.
 */
export function parseInputArgs(values: readonly string[], cwd = process.cwd(), what = '--input'): { name: string; file: string }[] {
  const hint = `give one .npy (a model with one input) or name each input of the model once: ${what} image=x_image.npy ${what} meta=x_meta.npy`;
  if (values.length === 0) throw new MgpuError('E_USAGE', `${what}: no input given`, { hint });
  const parsed = values.map((v) => {
    const m = /^([^=/\\]+)=(.*)$/.exec(v);
    if (!m) return { name: '', file: path.resolve(cwd, v), raw: v };
    if (m[2] === '') throw new MgpuError('E_USAGE', `${what} ${v}: no file after '='`, { hint });
    return { name: m[1]!, file: path.resolve(cwd, m[2]!), raw: v };
  });
  const unnamed = parsed.filter((p) => p.name === '');
  if (unnamed.length > 0 && parsed.length > 1) {
    throw new MgpuError('E_USAGE', `${what} ${unnamed[0]!.raw}: several inputs are given, but this one names no model input`, { hint });
  }
  const seen = new Set<string>();
  for (const p of parsed) {
    if (p.name !== '' && seen.has(p.name)) throw new MgpuError('E_USAGE', `${what}: the input '${p.name}' is given more than once`, { hint });
    seen.add(p.name);
  }
  return parsed.map(({ name, file }) => ({ name, file }));
}

export async function runEval(cfg: Config, out: Progress, src: ModelSource): Promise<EvalResult> {
  verifyModelDir(modelDirOf(src)); // a damaged model is named before any worker starts
  const { eval: evalSet, classes } = await loadSplits(cfg, modelClasses(cfg, src), null, 'eval');
  if (!evalSet) throw new MgpuError('E_CONFIG', 'data.eval: nothing to evaluate on', { hint: 'set data.eval or data.evalFraction in the config' });
  const batch = evalBatchSize(cfg);
  const evalMetrics = await loadEvalMetrics(cfg);
  const s = await openSession(cfg, await runDevices(cfg, out, 'evaluating'), {
    data: [evalSet],
    dataKeys: [cfg.data.eval ? 'data.eval' : 'data.evalFraction'],
    maxBatch: batch,
    initialWeights: weightsFrom(src),
    onStartFailure: new StartupRecovery(cfg, out, 0).decide,
    classes: { mapping: classes, key: cfg.data.eval ? 'data.eval' : 'data.evalFraction' },
  });
  try {
    const r = await evaluate(s, evalSet, batch, cfg.loss, cfg.eval.topK, cfg.reliability.stepTimeout * 1000, evalMetrics);
    out.line(`evaluated ${src.dir}${src.ema ? ' (EMA weights)' : ''} on ${evalSet.source}, ${plural(s.group.active.length, 'worker')}:`);
    if (r.metrics || r.outputs) {
      // Several outputs: each output's figures; then the config's metrics, in its order, after
      // the sample count and the loss.
      const perOutput = Object.entries(outputFields(r));
      const rows: [string, string][] = [
        ['samples', String(r.samples)],
        ['loss', r.loss.toFixed(6)],
        // A metric that is also an output's own figure (accuracy.class with metrics: [accuracy]) once.
        ...[...perOutput, ...Object.entries(r.metrics ?? {}).filter(([key]) => !perOutput.some(([shown]) => shown === key))].map(
          ([key, v]): [string, string] => [metricLabel(key, r.k), metricValue(key, v, 6)],
        ),
      ];
      const w = Math.max(...rows.map(([label]) => label.length)) + 2;
      for (const [label, value] of rows) out.line(`  ${label.padEnd(w)}${value}`);
      return r;
    }
    out.line(`  samples   ${r.samples}`);
    out.line(`  loss      ${r.loss.toFixed(6)}`);
    if (r.accuracy !== null) out.line(`  accuracy  ${(100 * r.accuracy).toFixed(2)}%`);
    if (r.topK !== null) out.line(`  top-${r.k}     ${(100 * r.topK).toFixed(2)}%`);
    out.line(`  mae       ${r.mae.toFixed(6)}`);
    return r;
  } finally {
    await s.close();
  }
}

/**
 * `--output y.npy`: the outputs, float32 [rows, ...]; `--output y.csv`: each row's class name
 * and its output (class,score), by the model's labels.json; `--output dir`: one
 * dir/<output name>.npy per output. `input`: the `--input` values (parseInputArgs).
 */
export async function runPredict(
  cfg: Config,
  out: Progress,
  src: ModelSource,
  input: string | readonly string[],
  output: string,
): Promise<{ shape: number[]; outputs: PredictedOutput[] }> {
  checkOutput(output);
  const labels = wantsNames(output) ? labelsForNames(src, '--output', output) : null;
  const given = typeof input === 'string' ? [input] : input;
  const read = await predictInput(cfg, given);
  const images = read.images;
  const check = (layout: ModelLayout) => checkOutputFitsModel(output, layout);
  const { outputs, values, shape, workers } = await predictRows(cfg, out, src, read.inputs, '--input', check, read.pipeline ?? undefined).finally(() =>
    read.pipeline?.close(),
  );
  if (labels) {
    const { names, scores } = namePredictions(values, shape, labels);
    const csv = predictionsCsv(names, scores);
    writeFileAtomically(output, images ? imagePredictionsCsv(images.given, csv) : csv);
    out.line(
      `predicted ${shape[0]} rows with ${plural(workers, 'worker')} → ${output} (${images ? 'path,' : ''}class,score; ${labels.classes.length} classes from ${labels.from})`,
    );
    return { shape, outputs };
  }
  writePredictions(output, outputs);
  out.line(
    `predicted ${shape[0]} rows with ${plural(workers, 'worker')} → ${output} (${describeOutputs(outputs, outputs.length > 1 || outputKind(output) === 'dir')})`,
  );
  return { shape, outputs };
}

/**
 * The rows `--input` gives, by what its files are (predict-input-kind.ts): image files and
 * folders (decoded as the config's image source decodes), one TFRecord or WebDataset tar shard
 * (read as training reads shards), one .npy, or name=path pairs of .npy files, one per model input.
 */
async function predictInput(cfg: Config, given: readonly string[], cwd = process.cwd()): Promise<PredictInput> {
  const npy = (name: string, file: string): NamedArray => ({ name, file, array: mappedNpy(file, '--input', false) });
  // A value is a path when it is one (a file named a=b.jpg is a path), else it may be a name=path pair.
  const paths = given.length > 0 && given.every((v) => fs.existsSync(path.resolve(cwd, v)));
  if (!paths) {
    const pairs = parseInputArgs(given, cwd);
    for (const p of pairs) {
      const kind = inputKindOf(p.file, p.name ? `${p.name}=${p.file}` : p.file);
      if (kind !== 'npy' && p.name !== '')
        throw new MgpuError('E_USAGE', `--input ${p.name}=${p.file}: a ${kind}; an input named by the model's input name is a .npy array`, {
          hint: `give one value for images or a shard (--input photos/), or name each input's .npy (--input ${p.name}=x_${p.name}.npy)`,
        });
    }
    return { inputs: pairs.map((p) => npy(p.name, p.file)), pipeline: null, images: null };
  }
  const kinds = given.map((v) => inputKindOf(path.resolve(cwd, v), v));
  if (kinds.every((k) => k === 'image' || k === 'folder')) {
    const images = imageInput(cfg, given, cwd);
    return { inputs: [images.input], pipeline: images.pipeline, images };
  }
  if (given.length > 1) {
    throw new MgpuError(
      'E_USAGE',
      `--input ${given.join(' ')}: ${kinds.join(', ')}; predict takes several values only as images (files and folders) or as name=path pairs of .npy files`,
      {
        hint: `give one shard or one .npy, or several images; predict takes ${INPUT_KINDS_TAKEN}`,
      },
    );
  }
  return predictFileInput(cfg, given[0]!, cwd);
}

/** The rows one path gives (`what`: the option that gave it): images (a file or folder), a shard, or an .npy. */
export async function predictFileInput(cfg: Config, value: string, cwd = process.cwd(), what = '--input'): Promise<PredictInput> {
  const file = path.resolve(cwd, value);
  const kind = inputKindOf(file, value, what);
  if (kind === 'npy') return { inputs: [{ name: '', file, array: mappedNpy(file, what, false) }], pipeline: null, images: null };
  if (kind === 'image' || kind === 'folder') {
    const images = imageInput(cfg, [value], cwd, what);
    return { inputs: [images.input], pipeline: images.pipeline, images };
  }
  const shard = await shardInput(cfg, kind, file, value, what);
  return { inputs: shard.inputs, pipeline: shard.pipeline, images: null };
}

/** Rows to predict: the arrays, the pipeline that makes a 'made' one's rows (close it after), and the images' files (for the CSV). */
export interface PredictInput {
  inputs: NamedArray[];
  pipeline: RowPipeline | null;
  images: ImageInput | null;
}

/**
 * The mapping `eval` encodes class names with: the model's labels.json when it has one (its
 * outputs are in that order), which data.classes, when set, must equal; else the config's.
 */
function modelClasses(cfg: Config, src: ModelSource): ClassMapping | null {
  if (!readsClassNames(cfg.data)) return null;
  const saved = readLabels(modelDirOf(src));
  if (saved && cfg.data.classes && !sameClasses(saved.classes, cfg.data.classes)) {
    throw new ConfigError(
      'data.classes',
      `lists ${showClasses(cfg.data.classes)}, but the model's ${saved.from} lists ${showClasses(saved.classes)} (the order of its outputs)`,
      "remove data.classes to use the model's labels.json, or list the same classes in the same order",
    );
  }
  return saved;
}

/**
 * The model's outputs for the rows of `inputs`, in input order, and how many workers computed
 * them: every output (model order), and the first's values and shape. `inputs`: one array named
 * '' for a model with one input, or one per input name (file: where it came from, for
 * messages); their row counts must agree. `check` runs once the workers have built the model,
 * before any row is predicted.
 */
export async function predictRows(
  cfg: Config,
  out: Progress,
  src: ModelSource,
  inputs: readonly NamedArray[],
  what: string,
  check: (layout: ModelLayout) => void = () => {},
  pipeline?: RowPipeline, // makes the rows of a 'made' input (decoded images)
): Promise<{ outputs: PredictedOutput[]; values: Float32Array; shape: number[]; workers: number }> {
  const label = (a: NamedArray) => (a.name === '' ? a.file : `${a.name}=${a.file}`);
  const first = inputs[0];
  if (!first) throw new MgpuError('E_USAGE', `${what}: no input given`);
  for (const a of inputs) {
    const rows = a.array.shape[0];
    if (rows === undefined || rows === 0) throw new MgpuError('E_DATA', `${what} ${label(a)} holds no rows (shape [${a.array.shape}])`);
  }
  const count = first.array.shape[0]!;
  const other = inputs.find((a) => a.array.shape[0] !== count);
  if (other) {
    throw new MgpuError(
      'E_DATA',
      `${what}: ${label(other)} has ${other.array.shape[0]} rows but ${label(first)} has ${count}; every input needs one row per sample, matched by index`,
      { hint: 'give every input the same samples, in the same order' },
    );
  }
  verifyModelDir(modelDirOf(src)); // a damaged model is named before any worker starts
  const named = inputs.some((a) => a.name !== '');
  // Unlabeled rows: labels with zero values per row.
  const ds: Dataset = {
    features: first.array,
    ...(named ? { inputs: [...inputs] } : {}),
    labels: memoryColumn({ dtype: 'float32', shape: [count, 0], data: new Float32Array(0) }),
    count,
    source: named ? inputs.map(label).join(', ') : first.file,
    ...(pipeline ? { pipeline } : {}),
  };
  const batch = evalBatchSize(cfg);
  // Prediction computes no metric: its workers neither load metric modules nor score rows.
  const s = await openSession({ ...cfg, metrics: null }, await runDevices(cfg, out, 'predicting'), {
    data: [ds],
    dataKeys: [what],
    maxBatch: batch,
    initialWeights: weightsFrom(src),
    onStartFailure: new StartupRecovery(cfg, out, 0).decide,
    classCount: cfg.model.net ? (readLabels(modelDirOf(src))?.classes.length ?? null) : null,
  });
  try {
    check(s.group.layout);
    const { outputs } = await predict(s, ds, batch, cfg.reliability.stepTimeout * 1000);
    return { outputs, values: outputs[0]!.values, shape: outputs[0]!.shape, workers: s.group.active.length };
  } finally {
    await s.close();
  }
}
