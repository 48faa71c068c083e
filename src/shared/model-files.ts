// The tfjs LayersModel format on disk: model.json (topology + weights manifest) and one
// weights.bin, loadable by tf.loadLayersModel anywhere. The coordinator writes it from the flat
// master weights without loading tfjs; workers read a user's model.json with `readLayersModel`.
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from './errors.ts';
import { bytesPerValue, CHECKSUM_FILE, checksumsJson, DamagedFileError, verifyChecksums } from './file-integrity.ts';
import { syncDir, writeDurably } from './atomic-write.ts';
import { flatten, type ModelLayout } from './layout.ts';

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | 'bool' | 'string' | 'complex64';
  quantization?: { dtype?: string };
}

interface ModelJson {
  modelTopology: unknown;
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
  weightsManifest: Array<{ paths: string[]; weights: WeightSpec[] }>;
  trainingConfig?: unknown;
}

/**
 * Writes model.json + weights.bin into `dir`. The files go to a sibling temporary directory
 * that is renamed into place, so a crash mid-write never leaves a directory that looks complete.
 */
export function writeLayersModel(dir: string, layout: ModelLayout, weights: Float32Array, extra: Record<string, string | Uint8Array> = {}): void {
  const flat = flatten(layout.variables);
  const specs: WeightSpec[] = [];
  const bin = new Float32Array(flat.total);
  let at = 0;
  for (const index of layout.saveOrder) {
    const v = layout.variables[index]!;
    specs.push({ name: v.name, shape: v.shape, dtype: 'float32' });
    const size = flat.sizes[index]!;
    bin.set(weights.subarray(flat.offsets[index], flat.offsets[index]! + size), at);
    at += size;
  }
  const json: ModelJson = {
    modelTopology: layout.topology,
    format: 'layers-model',
    generatedBy: 'mgpu-train',
    convertedBy: null,
    weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
  };
  const files: Record<string, Uint8Array> = { 'weights.bin': new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength) };
  for (const [name, data] of Object.entries(extra)) files[name] = typeof data === 'string' ? Buffer.from(data) : data;
  files['model.json'] = Buffer.from(JSON.stringify(json));
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    for (const [name, data] of Object.entries(files)) writeDurably(path.join(tmp, name), data);
    // The size and CRC-32C of every file, checked on every load (file-integrity.ts).
    writeDurably(path.join(tmp, CHECKSUM_FILE), checksumsJson(files));
    syncDir(tmp);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true }); // the previous copy stays as it was
    throw err;
  }
  // The rename is the commit: before it only the .tmp directory exists, after it all files do.
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  syncDir(path.dirname(dir));
}

/** Reads the weights of a LayersModel directory back into the flat layout (trainable first). */
export function readFlatWeights(modelJsonPath: string, layout: ModelLayout): Float32Array {
  const artifacts = readLayersModel(modelJsonPath);
  const flat = flatten(layout.variables);
  const out = new Float32Array(flat.total);
  const index = new Map(layout.variables.map((v, i) => [v.name, i]));
  const data = new Float32Array(artifacts.weightData);
  let at = 0;
  for (const spec of artifacts.weightSpecs) {
    const i = index.get(spec.name);
    const n = spec.shape.reduce((a, b) => a * b, 1);
    if (i === undefined || spec.dtype !== 'float32' || n !== flat.sizes[i]) {
      const model = i === undefined ? 'the model has no weight of that name' : `the model's is float32 ${JSON.stringify(layout.variables[i]!.shape)}`;
      throw new MgpuError('E_MODEL', `${modelJsonPath}: weight ${spec.name} (${spec.dtype} ${JSON.stringify(spec.shape)}) does not match the model: ${model}`);
    }
    out.set(data.subarray(at, at + n), flat.offsets[i]);
    at += n;
  }
  return out;
}

/** The artifacts tf.loadLayersModel wants, read from a model.json and the weight files beside it. */
export function readLayersModel(modelJsonPath: string): {
  modelTopology: unknown;
  weightSpecs: WeightSpec[];
  weightData: ArrayBuffer;
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
} {
  const dir = path.dirname(modelJsonPath);
  // model.json and then the weight files it names, against checksums.json when the model has one.
  verifyChecksums(dir, ['model.json']);
  let json: ModelJson;
  try {
    json = JSON.parse(fs.readFileSync(modelJsonPath, 'utf8')) as ModelJson;
  } catch (err) {
    throw new MgpuError('E_MODEL', `cannot read ${modelJsonPath}: ${(err as Error).message}`, {
      hint: 'model.json must be a tfjs LayersModel file (tensorflowjs_converter --output_format tfjs_layers_model)',
    });
  }
  if (json.modelTopology == null || !Array.isArray(json.weightsManifest)) {
    throw new MgpuError('E_MODEL', `${modelJsonPath} is not a tfjs LayersModel file (no modelTopology or weightsManifest)`, {
      hint: 'a graph model (tfjs_graph_model) cannot be trained: convert with --output_format tfjs_layers_model',
    });
  }
  verifyChecksums(
    dir,
    json.weightsManifest.flatMap((g) => g.paths),
  );
  const buffers: Buffer[] = [];
  const weightSpecs: WeightSpec[] = [];
  for (const group of json.weightsManifest) {
    for (const p of group.paths) {
      const file = path.join(dir, p);
      if (!fs.existsSync(file)) throw new MgpuError('E_MODEL', `${modelJsonPath} names weight file ${p}, which is missing (${file})`);
      buffers.push(fs.readFileSync(file));
    }
    weightSpecs.push(...group.weights);
  }
  const all = Buffer.concat(buffers);
  checkWeightBytes(modelJsonPath, json, all.byteLength);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return { modelTopology: json.modelTopology, weightSpecs, weightData, format: json.format, generatedBy: json.generatedBy, convertedBy: json.convertedBy };
}

/**
 * The weight files hold what model.json's weightsManifest declares, byte for byte: a file cut
 * short (or emptied) would otherwise be read as zeros. Skipped for string weights (no fixed size).
 */
function checkWeightBytes(modelJsonPath: string, json: ModelJson, actual: number): void {
  let declared = 0;
  for (const spec of json.weightsManifest.flatMap((g) => g.weights)) {
    const each = bytesPerValue(spec);
    if (each === null) return;
    declared += each * spec.shape.reduce((a, b) => a * b, 1);
  }
  if (declared === actual) return;
  const paths = json.weightsManifest.flatMap((g) => g.paths);
  const what = paths.length === 1 ? `is ${actual} bytes` : `are ${actual} bytes together`;
  throw new DamagedFileError(
    path.dirname(modelJsonPath),
    paths.join(' + '),
    `${what}, ${path.basename(modelJsonPath)}'s weightsManifest declares ${declared}`,
    'the file was cut short or replaced: use another copy of the model, or another checkpoint',
  );
}
