// The model's variables as one flat float32 vector, and where each region of the slab sits.
// Every offset in the project is computed here, from these two descriptions, so the
// coordinator, the reduce threads and the workers cannot disagree on where a byte lives.

/** One model variable, as a worker reports it. */
export interface VariableSpec {
  name: string; // the variable's originalName: the key in model.json's weightsManifest
  shape: number[];
  dtype: 'float32';
  trainable: boolean;
}

/** One input or output of the model: its layer's name and its shape. */
export interface ModelPort {
  name: string;
  shape: (number | null)[];
}

/** What a worker reports about its model replica; all workers must report the same. */
export interface ModelLayout {
  /** Trainable variables first (in model.trainableWeights order), then non-trainable. */
  variables: VariableSpec[];
  /** Index into `variables` of each of model.weights, in model.weights order (the save order). */
  saveOrder: number[];
  inputShape: (number | null)[]; // including the batch dimension (null); the first input's
  outputShape: (number | null)[]; // the first output's
  /** Every input and output of the model, in its order (model.inputNames / outputNames), shapes with the batch dimension. */
  inputs: ModelPort[];
  outputs: ModelPort[];
  topology: unknown; // model.toJSON(null, false): the LayersModel topology for model.json
  /** Layer classes of the model that are not tfjs's own (registered by the user's modules), sorted. */
  customLayers?: string[];
}

export const PAGE = 4096;
export const align = (n: number, to = PAGE): number => Math.ceil(n / to) * to;
export const sizeOf = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** Values per sample of the model's (first) output: its classes for a classifier. */
export const outputsPerSample = (layout: Pick<ModelLayout, 'outputShape'>): number => sizeOf(layout.outputShape.slice(1) as number[]);

/**
 * Values per sample of every output of the model together: what a predict shard writes to its
 * output region (each output's rows after the previous one's). outputsPerSample for one output.
 */
export const predictionsPerSample = (layout: Pick<ModelLayout, 'outputs'>): number =>
  layout.outputs.reduce((a, o) => a + sizeOf(o.shape.slice(1) as number[]), 0);

/** Float offsets of each variable in the flat vector, and the trainable / total counts. */
export interface FlatLayout {
  offsets: number[];
  sizes: number[];
  trainable: number; // Pt: the trainable part is [0, Pt)
  total: number; // P: the non-trainable part is [Pt, P)
}

export function flatten(variables: readonly VariableSpec[]): FlatLayout {
  const offsets: number[] = [];
  const sizes: number[] = [];
  let at = 0;
  let trainable = 0;
  for (const v of variables) {
    offsets.push(at);
    const n = sizeOf(v.shape);
    sizes.push(n);
    at += n;
    if (v.trainable) trainable = at;
  }
  return { offsets, sizes, trainable, total: at };
}

/** Byte offsets of the slab's regions (see docs/design.md, "The slab"), each page-aligned. */
export interface SlabLayout {
  workers: number;
  params: number; // P
  trainable: number; // Pt
  inputBytes: number; // capacity of one input buffer
  header: number;
  weights: number;
  grads: number[]; // per rank: Pt floats, pre-scaled by n_i / B
  state: number[]; // per rank: P - Pt floats, the non-trainables after the step
  outputBytes: number; // capacity of one output buffer
  output: number[]; // per rank: predictions, float32 rows (each output's rows after the previous one's), or eval scores
  input: number[][]; // per rank, two buffers: staged while the other is read (last, so they can grow)
  size: number;
  hash: number; // of the model layout: workers check it against the header
}

export const HEADER_BYTES = PAGE;

export function slabLayout(flat: FlatLayout, workers: number, inputBytes: number, outputBytes: number, hash: number): SlabLayout {
  let at = HEADER_BYTES;
  const take = (bytes: number): number => {
    const start = at;
    at += align(Math.max(bytes, 1));
    return start;
  };
  const weights = take(flat.total * 4);
  const grads = Array.from({ length: workers }, () => take(flat.trainable * 4));
  const state = Array.from({ length: workers }, () => take((flat.total - flat.trainable) * 4));
  const output = Array.from({ length: workers }, () => take(outputBytes));
  const input = Array.from({ length: workers }, () => [take(inputBytes), take(inputBytes)]);
  return {
    workers,
    params: flat.total,
    trainable: flat.trainable,
    inputBytes,
    outputBytes,
    header: 0,
    weights,
    grads,
    state,
    output,
    input,
    size: at,
    hash,
  };
}

/** FNV-1a over the variables' names, shapes and trainability: equal layouts, equal hashes. */
export function layoutHash(variables: readonly VariableSpec[]): number {
  const text = variables.map((v) => `${v.name}:${v.shape.join('x')}:${v.dtype}:${v.trainable ? 't' : 'n'}`).join('|');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
