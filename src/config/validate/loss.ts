// loss and lossWeights: one loss for every output or one per output, and the outputs' weights.

import { ConfigError } from '../../shared/errors.ts';
import { closest, fail, failCheck, isMapping, nonNegative, oneOf, Section } from '../checker.ts';
import { isCustomLoss, oneLoss, perOutputLosses } from '../loss.ts';
import type { OutputKind } from '../metric-keys.ts';
import { LOSS_NAMES, type CustomLoss, type LossEntry, type LossSpec } from '../types.ts';

/**
 * The loss as given (`spec`); the one loss that the checks of a loss's kind read (`loss`: the
 * first output's, with one per output); the outputs, when the spec names several; their weights.
 */
export interface LossSection {
  spec: LossSpec;
  loss: LossEntry;
  outputs: OutputKind[] | null;
  weights: Record<string, number> | null;
}

export function lossSection(top: Section, baseDir: string): LossSection {
  const lossAll = lossSpec(top, baseDir);
  // The checks below that read the loss's kind (metrics, monitors, class weights) are for one
  // loss; with one loss per output, metrics and monitors are checked per output (`outputs`, their
  // classes known once the model is built) and class weights are refused (checkPerOutputLoss).
  const each = perOutputLosses(lossAll);
  const loss: LossEntry = each === null ? (lossAll as LossEntry) : Object.values(each)[0]!;
  const outputs: OutputKind[] | null =
    each !== null && Object.keys(each).length > 1 ? Object.entries(each).map(([name, l]) => ({ name, loss: l, classes: null })) : null;
  const lossWeightMap = lossWeights(top);
  checkPerOutputLoss(lossAll, isMapping(top.obj.training) ? top.obj.training.classWeights : undefined);
  return { spec: lossAll, loss, outputs, weights: lossWeightMap };
}

const LOSS_FORM = `${oneOf(LOSS_NAMES).expected}, or { module: ./my-loss.ts } (a custom loss)`;

/** A custom loss entry `{ module: <file> }` at `path`: the file resolved against the config's directory. */
function customLoss(raw: Record<string, unknown>, path: string, baseDir: string): CustomLoss {
  const s = Section.open(raw, path, ['module']);
  if (!s.has('module')) fail(path, `a loss: ${LOSS_FORM}`, raw);
  return { module: s.file('module', baseDir) };
}

/**
 * `loss`: one loss for every output, or a mapping of the model's output names to losses; a loss
 * is a built-in name or `{ module: <file> }`. The one rule for a mapping (isCustomLoss): its only
 * key `module` with a string value that is not a built-in name is a custom loss for every
 * output; any other mapping is per output (an output named `module` is written
 * `{ module: { module: ./x.ts } }` or `{ module: meanSquaredError }`).
 */
function lossSpec(top: Section, baseDir: string): LossSpec {
  const names = oneOf(LOSS_NAMES);
  if (!top.has('loss') || !isMapping(top.obj.loss)) {
    if (top.has('loss') && typeof top.obj.loss === 'string' && !names.test(top.obj.loss)) {
      const near = closest(top.obj.loss, LOSS_NAMES);
      fail(
        'loss',
        LOSS_FORM,
        top.obj.loss,
        near ? `did you mean ${near}?` : 'a custom loss is a module: loss: { module: ./my-loss.ts } (a path alone is not read as a module)',
      );
    }
    return top.req('loss', names);
  }
  const raw = top.obj.loss;
  if (isCustomLoss(raw)) return customLoss(raw, 'loss', baseDir);
  const entries = Object.entries(raw);
  if (entries.length === 0) fail('loss', `${LOSS_FORM}, or a mapping of the model's output names to them`, raw);
  const out: Record<string, LossEntry> = {};
  for (const [output, v] of entries) {
    const at = `loss.${output}`;
    if (isMapping(v)) {
      out[output] = customLoss(v, at, baseDir);
      continue;
    }
    if (!names.test(v)) {
      const hint =
        output === 'module'
          ? 'one custom loss for every output is loss: { module: ./my-loss.ts } with no other key; for an output named module, write loss.module: { module: ./x.ts } or a built-in name'
          : typeof v === 'string'
            ? closest(v, LOSS_NAMES) !== undefined
              ? `did you mean ${closest(v, LOSS_NAMES)}?`
              : `a custom loss is a module: ${at}: { module: ${v} }`
            : undefined;
      fail(at, LOSS_FORM, v, hint);
    }
    out[output] = v;
  }
  return out;
}

/** `lossWeights`: null, or a mapping of output names to weights (finite, >= 0). */
function lossWeights(top: Section): Record<string, number> | null {
  const v = top.has('lossWeights') ? top.obj.lossWeights : null;
  if (v === null || v === undefined) return null;
  if (!isMapping(v) || Object.keys(v).length === 0) fail('lossWeights', "a mapping of the model's output names to weights, e.g. { class: 1, box: 0.5 }", v);
  const out: Record<string, number> = {};
  for (const [output, w] of Object.entries(v)) {
    if (!nonNegative.test(w)) failCheck(`lossWeights.${output}`, nonNegative, w);
    out[output] = w;
  }
  return out;
}

/**
 * With one loss per output, class weights are refused: they weigh one output's classes. (Eval
 * metrics and monitors apply per output: `metrics` and resolveMonitor below.)
 */
function checkPerOutputLoss(loss: LossSpec, classWeightsRaw: unknown): void {
  if (oneLoss(loss) !== null) return;
  if (classWeightsRaw !== undefined && classWeightsRaw !== null) {
    throw new ConfigError(
      'training.classWeights',
      "is set, but loss names one loss per output: class weights weigh one output's classes",
      'weigh samples with sample weights (npy weights:) instead',
    );
  }
}
