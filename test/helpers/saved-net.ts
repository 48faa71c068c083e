// A network saved as a run saves it: the worker's description of the model (describe: its
// variables and topology) and the coordinator's writeLayersModel of the flat weights, in the
// layout's order; and the two ways back: plain tfjs reading the files (no project code) and the
// worker's `model: { json }` loader.
import fs from 'node:fs';
import path from 'node:path';
import type { io, LayersModel } from '@tensorflow/tfjs';
import { writeLayersModel } from '../../src/shared/model-files.ts';
import { describe, loadModel } from '../../src/worker/model-loader.ts';
import type { TF } from './train-fixture.ts';

/** Writes `model` to `dir` (model.json + weights.bin) by the run's own path; returns model.json's path. */
export function saveAsRun(model: LayersModel, dir: string): string {
  const layout = describe(model);
  const byName = new Map(model.weights.map((w) => [w.originalName, w]));
  const parts = layout.variables.map((v) => byName.get(v.name)!.read().dataSync() as Float32Array);
  const flat = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    flat.set(p, at);
    at += p.length;
  }
  writeLayersModel(dir, layout, flat);
  return path.join(dir, 'model.json');
}

/** tf.loadLayersModel of model.json and its weight files, read here as a server would serve them. */
export async function loadPlain(tf: TF, modelJson: string): Promise<LayersModel> {
  const handler: io.IOHandler = {
    async load() {
      const json = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
      const specs: io.WeightsManifestEntry[] = [];
      const parts: Buffer[] = [];
      for (const group of json.weightsManifest as io.WeightsManifestConfig) {
        for (const p of group.paths) parts.push(fs.readFileSync(path.join(path.dirname(modelJson), p)));
        specs.push(...group.weights);
      }
      const all = Buffer.concat(parts);
      return { modelTopology: json.modelTopology, weightSpecs: specs, weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) };
    },
  };
  return tf.loadLayersModel(handler);
}

/** The worker's loader for `model: { json }`. */
export function loadAsJsonModel(tf: TF, modelJson: string): Promise<LayersModel> {
  return loadModel(tf, { module: null, json: modelJson }, { rank: 0, seed: 1 });
}
