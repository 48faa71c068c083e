// data.onBadSample: skip against the training source: it leaves out a sample that fails as the
// run makes it (an image that does not decode, a map-style module's get() that throws), so a
// source whose samples cannot fail one by one (the source table's failsPerSample) refuses it
// rather than accept a setting that does nothing. A module's is checked once it is loaded (only
// a map-style one makes its samples one by one): badSampleSkipRefused in the data reader.
import { ConfigError } from '../../shared/errors.ts';
import { sourceTraits } from '../data-sources-table.ts';
import type { Config } from '../types.ts';

/** Throws when data.onBadSample is skip and data.train's source type cannot fail per sample. */
export function checkOnBadSample(data: Pick<Config['data'], 'train' | 'onBadSample'>): void {
  if (data.onBadSample !== 'skip' || sourceTraits(data.train).failsPerSample !== false) return;
  throw badSampleSkipRefused(`data.train is a '${data.train.type}' source`);
}

/** The refusal, `what` saying which source it is (`data.train is a 'npy' source`). */
export function badSampleSkipRefused(what: string): ConfigError {
  return new ConfigError(
    'data.onBadSample',
    `is skip, but ${what}, whose samples are not made one by one as the run trains, so none can be left out (skip applies to an image that does not decode and to a map-style module's get() that throws)`,
    'remove data.onBadSample (the default, error, ends the run at a bad sample naming it), and fix or drop bad samples in the data itself',
  );
}
