// One entry per data source type (`type:` of data.train and data.eval): what the parts of a run
// know of a source besides how its config is checked (src/config/validate/data.ts) and
// how it is read (src/data/dataset.ts), both keyed by the same names (a type without one does
// not compile). The config's checks of labels and class weights, the class mapping of the splits
// and of eval/predict, and the run header read this table, so adding a source is its config type
// (types.ts, and api.ts's input form), one entry here, its check there and its reader.
// It imports only types: the config's validation and the coordinator both load it.
import type { DataSource } from './types.ts';

export type SourceType = DataSource['type'];

export interface SourceTraits<S extends DataSource = DataSource> {
  /**
   * Whether its labels are class names: mapped to indices with data.classes or the names it reads,
   * saved beside the model as labels.json, and the keys of training.classWeights.
   */
  namesClasses: (src: S) => boolean;
  /** Where its class names come from, for messages (when namesClasses). */
  classNamesFrom: string | null;
  /** The file or column of its per-sample weights, or null (none given, or a source that takes none). */
  sampleWeights: (src: S) => string | null;
  /**
   * Whether one of its samples can fail as the run reads it, so that data.onBadSample: skip can
   * leave it out: an image that does not decode, a map-style module's get() that throws
   * ('map-style': a module's only when it is map-style; a generator's samples are all read
   * before step 0). false: its samples are read whole before the first step (or made in memory).
   */
  failsPerSample: boolean | 'map-style';
}

const SOURCE_TABLE: { [T in SourceType]: SourceTraits<Extract<DataSource, { type: T }>> } = {
  npy: { namesClasses: () => false, classNamesFrom: null, sampleWeights: (s) => s.weights ?? null, failsPerSample: false },
  csv: { namesClasses: (s) => s.labelType === 'class', classNamesFrom: 'labelType: class', sampleWeights: (s) => s.weight ?? null, failsPerSample: false },
  module: { namesClasses: () => false, classNamesFrom: null, sampleWeights: () => null, failsPerSample: 'map-style' },
  mnist: { namesClasses: () => false, classNamesFrom: null, sampleWeights: () => null, failsPerSample: false },
  images: { namesClasses: () => true, classNamesFrom: "its class folders' names, or its list's labels", sampleWeights: () => null, failsPerSample: true },
  synthetic: { namesClasses: () => false, classNamesFrom: null, sampleWeights: () => null, failsPerSample: false },
  tfrecord: {
    namesClasses: (s) => 'image' in s,
    classNamesFrom: 'data.classes, or its class indices 0..K-1 as names',
    sampleWeights: () => null,
    failsPerSample: true,
  },
  webdataset: {
    namesClasses: () => true,
    classNamesFrom: 'data.classes, or its class indices 0..K-1 as names',
    sampleWeights: () => null,
    failsPerSample: true,
  },
};

/** The source types, in the table's order (the order messages list them in). */
export const SOURCE_TYPES = Object.keys(SOURCE_TABLE) as readonly SourceType[];

/** The traits of a source's type. */
export function sourceTraits(src: DataSource): SourceTraits {
  return SOURCE_TABLE[src.type] as SourceTraits;
}

/** Whether a source (null: none) labels with class names. */
export function namesClasses(src: DataSource | null): boolean {
  return src !== null && sourceTraits(src).namesClasses(src);
}

/** Whether data.train or data.eval labels with class names: the splits then share one class mapping. */
export function readsClassNames(data: { train: DataSource; eval: DataSource | null }): boolean {
  return namesClasses(data.train) || namesClasses(data.eval);
}

/** A source's per-sample weights file or column, or null (src null: no source). */
export function sampleWeightsOf(src: DataSource | null): string | null {
  return src === null ? null : sourceTraits(src).sampleWeights(src);
}
