// Builds the worker's model replica (from a model module, a model.json or a network by name) and describes its
// variables as the flat layout every rank must agree on.
import type { LayersModel, io } from '@tensorflow/tfjs';
import { importUserModule } from '../shared/import-user-module.ts';
import { MgpuError } from '../shared/errors.ts';
import type { ModelLayout, VariableSpec } from '../shared/layout.ts';
import { readLayersModel } from '../shared/model-files.ts';
import { withSeededMathRandomAsync } from '../shared/rng.ts';
import type { TF } from './backend.ts';
import { registerCustomLayers } from './custom-layers.ts';
import { savedTopology } from './saved-topology.ts';
import { buildNet, isNetName } from '../nets/nets-table.ts';
import type { NetSpec } from '../nets/net-options.ts';

/** What a model module's builder receives besides `tf`. */
export interface BuildContext {
  rank: number;
  seed: number;
}

export type ModelBuilder = (tf: TF, ctx: BuildContext) => LayersModel | Promise<LayersModel>;

function isLayersModel(m: unknown): m is LayersModel {
  const x = m as LayersModel | null | undefined;
  return !!x && typeof x.apply === 'function' && Array.isArray(x.weights) && typeof x.toJSON === 'function' && Array.isArray(x.inputs);
}

async function fromModule(tf: TF, file: string, ctx: BuildContext): Promise<LayersModel> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(file);
  } catch (err) {
    throw new MgpuError('E_MODEL', `model.module ${file} failed to load: ${(err as Error).message}`, {
      hint: 'run it with node to see the full error',
    });
  }
  const build = (mod.default ?? mod.buildModel ?? mod.createModel) as ModelBuilder | undefined;
  if (typeof build !== 'function') {
    throw new MgpuError('E_MODEL', `model.module ${file} exports no model builder function`, {
      hint: 'export default function (tf, ctx) { return tf.sequential({...}) }',
    });
  }
  let model: unknown;
  try {
    // tfjs's initialisers draw their seeds from Math.random when none is given: seeding it here
    // makes the initial weights a function of the config seed.
    model = await withSeededMathRandomAsync(ctx.seed, async () => build(tf, ctx));
  } catch (err) {
    throw new MgpuError('E_MODEL', `model.module ${file} threw while building the model: ${(err as Error).message}`);
  }
  if (!isLayersModel(model)) {
    throw new MgpuError('E_MODEL', `model.module ${file} returned ${model === null ? 'null' : typeof model}, not a tf.LayersModel`, {
      hint: 'return the model (tf.sequential(...) or tf.model(...)), built with the `tf` argument',
    });
  }
  return model;
}

async function fromJson(tf: TF, file: string): Promise<LayersModel> {
  const artifacts = readLayersModel(file);
  const handler: io.IOHandler = { load: async () => artifacts as io.ModelArtifacts };
  try {
    return await tf.loadLayersModel(handler);
  } catch (err) {
    const message = (err as Error).message;
    throw new MgpuError('E_MODEL', `model.json ${file} could not be loaded by tfjs: ${message}`, {
      hint: /Unknown layer/.test(message)
        ? 'the model has layers of its own classes: set model.customLayers to a module that registers them (see "Custom layers" in docs/config.md)'
        : undefined,
    });
  }
}

/** A network of the table, built with Math.random seeded as a module's builder is (tfjs's initialisers draw from it). */
async function fromNet(tf: TF, { name, ...options }: NetSpec, ctx: BuildContext): Promise<LayersModel> {
  if (!isNetName(name)) throw new MgpuError('E_MODEL', `model.net ${name} is no network this worker knows`, { hint: 'mgpu-train nets lists them' });
  try {
    return await withSeededMathRandomAsync(ctx.seed, () => Promise.resolve(buildNet(tf, name, options)));
  } catch (err) {
    throw new MgpuError('E_MODEL', `model.net ${name} could not be built: ${(err as Error).message}`);
  }
}

export async function loadModel(
  tf: TF,
  spec: { module: string | null; json: string | null; net?: NetSpec | null; customLayers?: string | null },
  ctx: BuildContext,
): Promise<LayersModel> {
  if (spec.customLayers) await registerCustomLayers(tf, spec.customLayers);
  if (spec.net) return await fromNet(tf, spec.net, ctx);
  return spec.module ? await fromModule(tf, spec.module, ctx) : await fromJson(tf, spec.json!);
}

export function describe(model: LayersModel): ModelLayout {
  // Trainable means trained by the model: a variable of a frozen layer keeps its own `trainable`
  // flag true, but the model lists it among its non-trainable weights, and so must the layout
  // (else the optimizer would touch it: AdamW's weight decay would shrink a frozen base).
  const trainable = new Set(model.trainableWeights);
  const spec = (w: LayersModel['weights'][number]): VariableSpec => {
    if (w.dtype !== 'float32') {
      throw new MgpuError('E_MODEL', `variable ${w.originalName} has dtype ${w.dtype}; only float32 variables can be trained`);
    }
    return { name: w.originalName, shape: [...w.shape] as number[], dtype: 'float32', trainable: trainable.has(w) };
  };
  const ordered = [...model.trainableWeights, ...model.nonTrainableWeights];
  const names = new Set<string>();
  for (const w of ordered) {
    if (names.has(w.originalName)) throw new MgpuError('E_MODEL', `two variables share the name ${w.originalName}`);
    names.add(w.originalName);
  }
  return {
    variables: ordered.map(spec),
    saveOrder: model.weights.map((w) => ordered.indexOf(w)),
    inputShape: [...model.inputs[0]!.shape],
    outputShape: [...model.outputs[0]!.shape],
    inputs: model.inputs.map((t, i) => ({ name: model.inputNames[i]!, shape: [...t.shape] })),
    outputs: model.outputs.map((t, i) => ({ name: model.outputNames[i]!, shape: [...t.shape] })),
    topology: savedTopology(model), // model.toJSON, tfjs's DepthwiseConv2D config repaired
  };
}
