// The shape of a map-style data module's default export, as a PyTorch Dataset (map-module.ts reads it).
import { valueText } from './value-text.ts';

export interface MapStyle {
  length: number;
  get(index: number, ctx: { epoch: number; split: string }): unknown;
}

/** An object with `get` and `length`: samples read by index on demand, not collected. */
export function isMapStyle(v: unknown): v is MapStyle {
  return typeof v === 'object' && v !== null && typeof (v as MapStyle).get === 'function' && 'length' in v;
}

/**
 * What keeps an object that looks map-style (it has `length` or `get`, and is neither an array
 * nor iterable) from being one, as a message says it; null for anything else.
 */
export function mapStyleGap(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Symbol.iterator in v || Symbol.asyncIterator in v) return null;
  const hasLength = 'length' in v;
  const get = (v as { get?: unknown }).get;
  if (!hasLength && get === undefined) return null;
  if (get === undefined) return 'it has length but no get (a map-style module gives both: { length, get(i, { epoch, split }) })';
  if (typeof get !== 'function') return `its get is ${valueText(get)} (expected a function get(i, { epoch, split }) giving sample i as { x, y })`;
  return 'it has get but no length (a map-style module gives both: { length, get(i, { epoch, split }) }; length is the number of samples)';
}
