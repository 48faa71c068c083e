// Custom layer classes (model.customLayers): a module whose default export (tf) defines the
// model's own layer classes with the worker's tfjs instance and registers them
// (tf.serialization.registerClass), so that a model.json naming them loads. It runs in every
// worker before the model is built or loaded: train, eval and predict alike.
import type { LayersModel } from '@tensorflow/tfjs';
import { importUserModule } from '../shared/import-user-module.ts';
import { MgpuError, messageOf } from '../shared/errors.ts';
import type { TF } from './backend.ts';

const HINT = 'export default function (tf) { class Block extends tf.layers.Layer { static className = "Block"; ... } tf.serialization.registerClass(Block); }';

/** Imports `file` and calls its default export with `tf`. */
export async function registerCustomLayers(tf: TF, file: string): Promise<void> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(file);
  } catch (err) {
    throw new MgpuError('E_MODEL', `model.customLayers ${file} failed to load: ${messageOf(err)}`, { hint: 'run it with node to see the full error' });
  }
  if (typeof mod.default !== 'function') throw new MgpuError('E_MODEL', `model.customLayers ${file} has no default export function`, { hint: HINT });
  try {
    await (mod.default as (tf: TF) => unknown)(tf);
  } catch (err) {
    throw new MgpuError('E_MODEL', `model.customLayers ${file} threw while registering its layers: ${messageOf(err)}`, { hint: HINT });
  }
}

/** The layer class names tfjs knows now: taken before any user module runs, they are tfjs's own. */
export function knownLayerClasses(tf: TF): Set<string> {
  return new Set(Object.keys(tf.serialization.SerializationMap.getMap().classNameMap));
}

/** The class names of the model's layers (nested models' too) that are not in `builtIn`, sorted. */
export function customLayerClasses(model: LayersModel, builtIn: Set<string>): string[] {
  const found = new Set<string>();
  const visit = (layers: readonly { getClassName(): string; layers?: unknown }[]) => {
    for (const l of layers) {
      if (!builtIn.has(l.getClassName())) found.add(l.getClassName());
      if (Array.isArray(l.layers)) visit(l.layers as typeof layers);
    }
  };
  visit(model.layers);
  return [...found].sort();
}
