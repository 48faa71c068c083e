// The training and evaluation sets of a run: data.eval when given, else a seeded held-out
// fraction of data.train (data.evalFraction), else no evaluation.
//
// With class-name labels (labelType: class) the splits share one mapping (classes.ts): the one
// given (a checkpoint's or model's labels.json), else data.classes, else the classes of the
// shards.json beside data.train's shards (manifest-classes.ts), else the sorted names of
// data.train (the whole file: with evalFraction, the held-out rows are encoded as the rest). The
// eval split is encoded with it, never with names of its own.
//
// Each split comes with its record (data-record.ts), what a checkpoint keeps of the data it was
// trained on: taken as the data is loaded, before any step reads it.
import type { Config, DataSource } from '../config/types.ts';
import { readsClassNames } from '../config/data-sources-table.ts';
import type { ClassMapping } from './classes.ts';
import { recordSplit, type IndexPaths } from './data-record.ts';
import type { SplitRecord } from './split-record.ts';
import { loadDataset, type Dataset } from './dataset.ts';
import { manifestClasses } from './manifest-classes.ts';
import { splitHoldout } from './holdout.ts';
import { imageOptions } from './images/load-images.ts';
import type { ImageUse } from './images/decode-spec.ts';

export interface Splits {
  train: Dataset;
  eval: Dataset | null;
  /** With class-name labels: the class of each output index, and where the list came from; else null. */
  classes: ClassMapping | null;
}

/**
 * `fixed`: the mapping class names must follow (a resumed checkpoint's, an evaluated model's);
 * `abort`: stops the loading of a data module (Ctrl-C during start-up).
 */
export async function loadSplits(
  cfg: Config,
  fixed: ClassMapping | null = null,
  abort: AbortSignal | null = null,
  use: ImageUse = 'train', // the eval command: an image that does not decode gets eval's hint
): Promise<Splits> {
  const given = !readsClassNames(cfg.data)
    ? null
    : (fixed ??
      (cfg.data.classes
        ? { classes: cfg.data.classes, from: 'data.classes', hint: "add it to data.classes (the order is that of the model's outputs)" }
        : manifestClasses(cfg.data.train, 'data.train')));
  const train = await loadDataset(cfg.data.train, 'data.train', given, abort, imageOptions(cfg, use));
  const classes: ClassMapping | null = train.classes
    ? (given ?? {
        classes: train.classes,
        from: 'data.train',
        ...(train.classLines && cfg.data.train.type === 'csv' ? { found: { file: cfg.data.train.path, lines: train.classLines } } : {}),
        hint: 'eval names are mapped with the classes of data.train; list every class in data.classes (e.g. data.classes: [cat, dog, bird]), or drop the rows of that class',
      })
    : given;
  if (cfg.data.eval) {
    const evalSet = await loadDataset(cfg.data.eval, 'data.eval', classes, abort, imageOptions(cfg, use));
    return { train: recorded(cfg.data.train, 'data.train', train, train), eval: recorded(cfg.data.eval, 'data.eval', evalSet, evalSet), classes };
  }
  if (cfg.data.evalFraction !== null) {
    const held = splitHoldout(train, cfg.data.evalFraction, cfg.training.seed);
    // Held-out images are evaluated as they are: their rows come from an unaugmented pipeline of the same folder.
    const plain =
      'augment' in cfg.data.train && cfg.data.train.augment
        ? splitHoldout(await loadDataset(cfg.data.train, 'data.evalFraction', classes, abort, imageOptions(cfg, use)), cfg.data.evalFraction, cfg.training.seed)
            .eval
        : held.eval;
    // The held-out rows are data.train's: its files are recorded with the training split.
    return { train: recorded(cfg.data.train, 'data.train', train, held.train), eval: { ...plain, record: heldOutRecord(plain.count) }, classes };
  }
  return { train: recorded(cfg.data.train, 'data.train', train, train), eval: null, classes };
}

/** `split` (the samples `loaded` gives this split) with its record. */
function recorded(src: DataSource, keyPath: string, loaded: Dataset & { index?: IndexPaths }, split: Dataset): Dataset {
  return { ...split, record: recordSplit(src, keyPath, loaded, split.count) };
}

const heldOutRecord = (count: number): SplitRecord => ({ key: 'data.evalFraction', count, files: [], index: null });
