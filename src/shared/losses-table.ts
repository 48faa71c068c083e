// One entry per built-in loss: what every part of a run knows of it besides its kernel
// (src/worker/losses.ts, keyed by the same names: a loss without a kernel does not compile).
// The config's checks, the label checks of the data, class weights and the eval metrics all
// read this table, so adding a loss is one entry here and its kernel there.

/** A custom loss: a module whose default export (yTrue, yPred, tf) gives each sample's loss; module: an absolute path. */
export interface CustomLoss {
  module: string;
}
/** One output's loss: a built-in name, or a custom module. */
export type LossEntry = LossName | CustomLoss;
/**
 * `loss`: one loss for every output of the model, or one per output, keyed by the model's output
 * names. A mapping whose only key is `module`, with a value that is not a built-in name, is one
 * custom loss for every output (src/config/loss.ts: isCustomLoss); anything else is a mapping per output.
 */
export type LossSpec = LossEntry | Record<string, LossEntry>;

export interface LossTraits {
  /**
   * The labels it takes: one-hot (or probability) rows, one class index per position, 0/1 per
   * output (each output a yes/no problem), or plain values (a regression).
   */
  labels: 'onehot' | 'index' | 'binary' | 'value';
  /** Whether it has classes: accuracy, precision, recall, f1 and auc are measured, class weights taken. */
  hasClasses: boolean;
  /** Whether it gives a score per class (a softmax over the last axis): top-k is measured. */
  topK: boolean;
  /** How AUC reads its scores: one-vs-rest per class, each output against its own 0/1 labels, or not at all. */
  aucLayout: 'classes' | 'outputs' | null;
  /** The fewest units the output's last dimension may have: 2 for a softmax over classes (one class is no choice). */
  leastUnits: 1 | 2;
}

const LOSS_TABLE = {
  categoricalCrossentropy: { labels: 'onehot', hasClasses: true, topK: true, aucLayout: 'classes', leastUnits: 2 },
  sparseCategoricalCrossentropy: { labels: 'index', hasClasses: true, topK: true, aucLayout: 'classes', leastUnits: 2 },
  binaryCrossentropy: { labels: 'binary', hasClasses: true, topK: false, aucLayout: 'outputs', leastUnits: 1 },
  meanSquaredError: { labels: 'value', hasClasses: false, topK: false, aucLayout: null, leastUnits: 1 },
} as const satisfies Record<string, LossTraits>;

type Table = typeof LOSS_TABLE;
export type LossName = keyof Table;
/** The built-in losses that have classes (hasClasses), as a type. */
export type ClassLossName = { [K in LossName]: Table[K]['hasClasses'] extends true ? K : never }[LossName];

export const LOSSES: Readonly<Record<LossName, LossTraits>> = LOSS_TABLE;
/** The built-in names, in the table's order (the order messages list them in). */
export const LOSS_NAMES = Object.keys(LOSS_TABLE) as readonly LossName[];
/** The losses that give a score per class (top-k), in the table's order. */
export const TOP_K_LOSSES: readonly LossName[] = LOSS_NAMES.filter((l) => LOSSES[l].topK);
