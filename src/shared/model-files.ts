// The tfjs LayersModel format on disk: model.json (topology + weights manifest) and one
// weights.bin, loadable by tf.loadLayersModel anywhere. The coordinator writes it from the flat
// master weights without loading tfjs; workers read a user's model.json with `readLayersModel`.
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from './errors.ts';
import { flatten, type ModelLayout } from './layout.ts';

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | 'bool' | 'string' | 'complex64';
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
export function writeLayersModel(dir: string, layout: ModelLayout, weights: Float32Array, extra: Record<string, string> = {}): void {
  const flat = flatten(layout.variables);
  const specs: WeightSpec[] = [];
  const bin = new Float32Array(flat.total);
  let at = 0;
  for (const index of layout.saveOrder) {
    const v = layout.variables[index];
    specs.push({ name: v.name, shape: v.shape, dtype: 'float32' });
    bin.set(weights.subarray(flat.offsets[index], flat.offsets[index] + flat.sizes[index]), at);
    at += flat.sizes[index];
  }
  const json: ModelJson = {
    modelTopology: layout.topology,
    format: 'layers-model',
    generatedBy: 'mgpu-train',
    convertedBy: null,
    weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
  };
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  fs.writeFileSync(path.join(tmp, 'weights.bin'), new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength));
  for (const [name, text] of Object.entries(extra)) fs.writeFileSync(path.join(tmp, name), text);
  // model.json last: its presence marks the directory complete.
  fs.writeFileSync(path.join(tmp, 'model.json'), JSON.stringify(json));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
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
  const dir = path.dirname(modelJsonPath);
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
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  return { modelTopology: json.modelTopology, weightSpecs, weightData, format: json.format, generatedBy: json.generatedBy, convertedBy: json.convertedBy };
}
