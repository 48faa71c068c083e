// What a config's `loss` says, read the same way everywhere: one loss for every output, or one
// per output name; each a built-in name or a custom module. The top-level form is decided by one
// rule (isCustomLoss): a mapping whose only key is `module` with a string value that is not a
// built-in name is a custom loss for every output; every other mapping is keyed by output names.
import { LOSSES, LOSS_NAMES, type ClassLossName, type LossTraits } from '../shared/losses-table.ts';
import type { CustomLoss, LossEntry, LossName, LossSpec } from './types.ts';

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A built-in loss name. */
export function isLossName(v: unknown): v is LossName {
  return typeof v === 'string' && (LOSS_NAMES as readonly string[]).includes(v);
}

/** `{ module: <path> }`, the path not a built-in name (that form is an output named `module`). */
export function isCustomLoss(v: unknown): v is CustomLoss {
  return isMap(v) && Object.keys(v).length === 1 && typeof v.module === 'string' && !isLossName(v.module);
}

/** The one loss of every output, or null when the spec names one per output. */
export function oneLoss(spec: LossSpec): LossEntry | null {
  return typeof spec === 'string' || isCustomLoss(spec) ? spec : null;
}

/** The per-output mapping, or null for one loss of every output. */
export function perOutputLosses(spec: LossSpec): Record<string, LossEntry> | null {
  return oneLoss(spec) === null ? (spec as Record<string, LossEntry>) : null;
}

/** The loss of one output (undefined: the spec names none for it). */
export function lossOf(spec: LossSpec, output: string): LossEntry | undefined {
  const each = perOutputLosses(spec);
  return each === null ? (spec as LossEntry) : Object.hasOwn(each, output) ? each[output] : undefined;
}

/** Whether a loss has classes (accuracy, top-k, precision, ..., class weights): a built-in one that says so, never a custom one. */
export function hasClasses(l: LossEntry): l is ClassLossName {
  return typeof l === 'string' && LOSSES[l].hasClasses;
}

/** Whether a loss gives a score per class (a softmax), so that top-k is measured: a built-in one that says so. */
export function hasTopK(l: LossEntry): boolean {
  return typeof l === 'string' && LOSSES[l].topK;
}

/** The labels a built-in loss takes (its table's `labels`); null for a custom loss, which reads its own. */
export function labelsOf(l: LossEntry): LossTraits['labels'] | null {
  return typeof l === 'string' ? LOSSES[l].labels : null;
}

/** How a message names a loss: its name, or `custom (<file>)`. */
export function lossLabel(l: LossEntry): string {
  return typeof l === 'string' ? l : `custom (${l.module})`;
}

/** The config key path of an output's loss: `loss` for one loss of every output, else `loss.<output>`. */
export function lossKeyPath(spec: LossSpec, output: string): string {
  return oneLoss(spec) === null ? `loss.${output}` : 'loss';
}
