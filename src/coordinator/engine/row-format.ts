// Checks, before the first step, that a dataset fits the model the workers built, and says how
// its rows are shaped in the input buffers: one part per model input, one per output's target
// (none when the rows have no labels: prediction), and the loss weight when rows are weighted.
import { DataError, MgpuError } from '../../shared/errors.ts';
import { LOSSES } from '../../shared/losses-table.ts';
import { sizeOf, type ModelLayout, type ModelPort } from '../../shared/layout.ts';
import type { NdArray } from '../../shared/npy.ts';
import type { RowFormat, RowPart } from '../../shared/protocol.ts';
import { inputArrays, targetArrays } from '../../data/parts.ts';
import { heldArray, type Column } from '../../data/columns.ts';
import type { Dataset, NamedArray } from '../../data/rows.ts';
import { matchPorts, type OutputLoss } from './model-io.ts';

const shape = (s: readonly (number | null)[]) => `[${s.map((d) => d ?? 'batch').join(', ')}]`;
const BYTES = { float32: 4, int32: 4, uint8: 1 } as const;

/** Bytes of one row over all the parts of a format. */
export function rowBytesOf(rows: RowFormat): number {
  return rows.parts.reduce((a, p) => a + sizeOf(p.shape) * BYTES[p.dtype], 0);
}

/** A float32 loss weight per row, after the inputs and targets (`weighted`). */
const WEIGHT_PART: RowPart = { role: 'weight', name: 'weight', dtype: 'float32', shape: [] };

/** `losses`: each model output's loss, in the model's order (model-io.ts). */
export function rowFormat(ds: Dataset, layout: ModelLayout, losses: OutputLoss[], keyPath: string, weighted: boolean): RowFormat {
  const several = layout.inputs.length > 1 || layout.outputs.length > 1;
  // Rows without labels (prediction): nothing to check, nothing to copy.
  const labelRow = ds.labels.shape.slice(1);
  const unlabelled = ds.targets === undefined && labelRow.length === 1 && labelRow[0] === 0;
  // Messages name a named array's file, and the one array of a one-input model by its split's source, as they always did.
  const where = (a: NamedArray) => (a.name === '' ? ds.source : a.file);
  const matched = unlabelled ? matchPredictInputs(inputArrays(ds), layout.inputs, keyPath) : matchPorts(inputArrays(ds), layout.inputs, keyPath, 'features');
  const inputs = matched.map((a, i) => inputPart(a.array, where(a), layout.inputs[i]!, keyPath, several));
  if (unlabelled) return { parts: inputs };
  const targets = matchPorts(targetArrays(ds), layout.outputs, keyPath, 'labels').map((a, k) => targetPart(a.array, where(a), losses[k]!, keyPath, several));
  // Held arrays now; a mapped file's rows as they are staged (mapped-npy.ts), so start-up reads no more than the header.
  for (const a of inputArrays(ds)) {
    const held = heldArray(a.array);
    if (held) checkFinite(held, where(a), keyPath);
  }
  return { parts: [...inputs, ...targets, ...(weighted ? [WEIGHT_PART] : [])] };
}

/**
 * Prediction's inputs (`keyPath`: `--input`, or the API's `predict(): input`) in the model's
 * input order: one unnamed array for a model with one input, else one array per input name,
 * each named once. A name the model lacks, an input left out, or one unnamed array for several
 * inputs is a usage error that lists the model's inputs.
 */
export function matchPredictInputs(arrays: NamedArray[], ports: ModelPort[], keyPath: string): NamedArray[] {
  if (arrays.length === 1 && arrays[0]!.name === '' && ports.length === 1) return arrays;
  const names = ports.map((p) => `'${p.name}'`).join(', ');
  const cli = keyPath === '--input';
  const hint = cli
    ? `name each of the model's inputs once: ${ports.map((p) => `--input ${p.name}=<file>.npy`).join(' ')}`
    : `name each of the model's inputs once: input: { ${ports.map((p) => `${p.name}: '<file>.npy'`).join(', ')} }`;
  const given = (a: NamedArray) => (cli ? `${a.name}=${a.file}` : `${a.name}: ${a.file}`);
  if (arrays.some((a) => a.name === '')) {
    throw new MgpuError('E_USAGE', `${keyPath}: the model has ${ports.length} inputs (${names}) but ${arrays[0]!.file} is one array`, { hint });
  }
  for (const a of arrays) {
    if (!ports.some((p) => p.name === a.name)) {
      const where = cli ? `${keyPath} ${a.name}=${a.file}` : `${keyPath}.${a.name} (${a.file})`;
      throw new MgpuError('E_USAGE', `${where}: the model has no input '${a.name}' (its inputs: ${names})`, { hint });
    }
  }
  const byName = new Map(arrays.map((a) => [a.name, a]));
  const missing = ports.filter((p) => !byName.has(p.name));
  if (missing.length) {
    throw new MgpuError(
      'E_USAGE',
      `${keyPath}: no file for the model's input${missing.length > 1 ? 's' : ''} ${missing.map((p) => `'${p.name}'`).join(', ')} (given ${arrays.map(given).join(', ')}; its inputs: ${names})`,
      { hint },
    );
  }
  return ports.map((p) => byName.get(p.name)!);
}

function inputPart(a: Column, file: string, port: ModelPort, keyPath: string, several: boolean): RowPart {
  const modelRow = port.shape.slice(1);
  const dataRow = a.shape.slice(1);
  let featureShape = dataRow;
  if (modelRow.every((d): d is number => d !== null)) {
    if (sizeOf(modelRow) !== sizeOf(dataRow)) {
      throw new DataError(
        `${keyPath}: feature rows of ${file} have shape ${shape(dataRow)} (${sizeOf(dataRow)} values) but the model's input${several ? ` '${port.name}'` : ''} is ${shape(port.shape)} (${sizeOf(modelRow)} values per sample)`,
        'reshape the features, or change the model input shape',
      );
    }
    featureShape = modelRow; // same values per row: rows are reshaped to the model's input
  }
  return { role: 'input', name: port.name, dtype: a.dtype, shape: featureShape };
}

function targetPart(a: Column, file: string, out: OutputLoss, keyPath: string, several: boolean): RowPart {
  const { port, loss } = out;
  const outRow = port.shape.slice(1) as number[];
  const labelRow = a.shape.slice(1);
  const outSize = sizeOf(outRow);
  const output = several ? ` '${port.name}'` : '';
  if (typeof loss !== 'string') {
    // A custom loss judges its own labels: any row shape and dtype, as staged. Rows with the
    // output's count of values take its shape, as a built-in loss's do; others keep their own.
    return { role: 'target', name: port.name, dtype: a.dtype, shape: sizeOf(labelRow) === outSize && outRow.length ? outRow : labelRow };
  }
  // Sparse labels: one class index per position of the output without its class axis ([n] for
  // an [n, K] output, [n, T] or [n, T, 1] for [n, T, K]).
  const classes = outRow[outRow.length - 1] ?? 1;
  const positions = outRow.slice(0, -1);
  const labels = LOSSES[loss].labels;
  if (labels === 'index') {
    if (sizeOf(labelRow) !== sizeOf(positions)) {
      const want = positions.length ? `an index per position: rows of ${shape(positions)} or ${shape([...positions, 1])}` : 'one class index per sample';
      throw new DataError(
        `${keyPath}: ${loss} wants ${want} (the model's output${output} is ${shape(port.shape)}), but label rows of ${file} have shape ${shape(labelRow)}`,
        'use categoricalCrossentropy for one-hot labels',
      );
    }
    checkLabels(
      a,
      file,
      keyPath,
      (v) => Number.isInteger(v) && v >= 0 && v < classes,
      `class indices 0..${classes - 1} (the model${output ? `'s output${output}` : ''} has ${classes} ${positions.length ? 'classes' : 'outputs'})`,
    );
  } else if (sizeOf(labelRow) !== outSize) {
    throw new DataError(
      `${keyPath}: label rows of ${file} have shape ${shape(labelRow)} (${sizeOf(labelRow)} values) but the model's output${output} is ${shape(port.shape)} (${outSize} values per sample)`,
      labels === 'onehot' && sizeOf(labelRow) === 1 ? 'class-index labels need loss: sparseCategoricalCrossentropy' : undefined,
    );
  }
  if (labels === 'binary') checkLabels(a, file, keyPath, (v) => v >= 0 && v <= 1, 'values in [0, 1]');
  if (labels === 'onehot') checkLabels(a, file, keyPath, (v) => v >= 0 && v <= 1, 'one-hot or probability rows (values in [0, 1])');
  return { role: 'target', name: port.name, dtype: a.dtype, shape: labels === 'index' ? positions : outRow.length ? outRow : labelRow };
}

/**
 * Names the first label that the loss cannot take: its sample, its value and what was expected.
 * Labels made on demand (a map-style module) are checked as each row is made.
 */
function checkLabels(c: Column, file: string, keyPath: string, ok: (v: number) => boolean, expected: string): void {
  if (c.kind === 'made') {
    if (!c.checkEach) throw new MgpuError('E_INTERNAL', `${keyPath}: labels made on demand in ${file} cannot be checked`);
    c.checkEach(ok, expected);
    return;
  }
  const a = c.toArray();
  const data = a.data;
  const count = a.shape[0]!;
  const per = Math.max(1, data.length / Math.max(1, count));
  for (let i = 0; i < data.length; i++) {
    if (!ok(data[i]!)) {
      throw new DataError(
        `${keyPath}: label of sample ${Math.floor(i / per)} in ${file} is ${data[i]}; the loss expects ${expected}`,
        'check the labels file and the loss in the config',
      );
    }
  }
}

/** A NaN or infinite feature would only show up mid-run as a NaN loss: name it now. */
function checkFinite(a: NdArray, file: string, keyPath: string): void {
  if (a.dtype !== 'float32') return;
  const data = a.data;
  const count = a.shape[0]!;
  const per = Math.max(1, data.length / Math.max(1, count));
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      throw new DataError(
        `${keyPath}: feature ${i % per} of sample ${Math.floor(i / per)} in ${file} is ${data[i]}`,
        'clean or impute the features before training',
      );
    }
  }
}
