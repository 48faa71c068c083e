// A model with several outputs: its eval lines carry each output's figures as `<figure>.<output>`
// fields (loss.class, accuracy.class, top_k.class, mae.box), and the keys of its metrics end in
// `.<output>` (f1_macro.class, rmse.box, <module>.<key>.box). The report takes the output names
// from the `loss.<output>` fields, which every such line has, and reads a metric by its base key.
import type { EvalLine as EvalPoint } from '../shared/metrics-lines.ts';

export const OUTPUT_FIGURES = ['loss', 'accuracy', 'top_k', 'mae'] as const;
export type OutputFigure = (typeof OUTPUT_FIGURES)[number];

const FIELD = new RegExp(`^(${OUTPUT_FIGURES.join('|')})\\.(.+)$`);

/** A field of an eval line that is one output's figure: which figure of which output; else null. */
export function outputField(key: string): { figure: OutputFigure; output: string } | null {
  const m = FIELD.exec(key);
  return m ? { figure: m[1] as OutputFigure, output: m[2]! } : null;
}

/** The outputs the eval lines report on, in the order first seen; none for a model of one output. */
export function outputNames(evals: EvalPoint[]): string[] {
  const names = new Set<string>();
  for (const e of evals) for (const key of Object.keys(e)) if (outputField(key)?.figure === 'loss') names.add(outputField(key)!.output);
  return [...names];
}

/** One output's figure in one eval line; null when the line does not have it (not measured). */
export function outputFigure(e: EvalPoint, figure: OutputFigure, output: string): number | null {
  const v = (e as unknown as Record<string, unknown>)[`${figure}.${output}`];
  return typeof v === 'number' ? v : null;
}

/**
 * A metric's key without the output it was measured on: `f1_macro.class` is f1_macro of 'class',
 * `mean.sum.box` a custom module's `mean.sum` of 'box'. The longest output name that ends the
 * key wins, so an output named `a.b` is not taken for `b`.
 */
export function metricBase(key: string, outputs: readonly string[]): { base: string; output: string | null } {
  const output = outputs.filter((o) => key.endsWith(`.${o}`) && key.length > o.length + 1).sort((a, b) => b.length - a.length)[0];
  return output === undefined ? { base: key, output: null } : { base: key.slice(0, -(output.length + 1)), output };
}
