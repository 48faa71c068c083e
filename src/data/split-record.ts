// The record of what a split was read from, as each checkpoint keeps it (trainer-state.json's
// `data`): types only, which the rows of a dataset (rows.ts) carry and data-record.ts fills.
import type { FileFingerprint } from './file-fingerprint.ts';

export interface FileRecord extends FileFingerprint {
  key: string; // the config key that names it: data.train.features, data.train.features.image, ...
  file: string;
}

export interface IndexRecord {
  key: string; // data.train.dir or data.train.list
  count: number;
  sha256: string; // of each image's path (relative to the folder or list) and class index, in index order
}

export interface SplitRecord {
  key: string; // data.train, data.eval, or data.evalFraction (the rows held out of data.train)
  count: number;
  files: FileRecord[];
  index: IndexRecord | null;
}

export interface DataRecord {
  splits: SplitRecord[];
}
