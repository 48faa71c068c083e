// The shape of a map-style data module's default export, as a PyTorch Dataset (map-module.ts reads it).

export interface MapStyle {
  length: number;
  get(index: number, ctx: { epoch: number; split: string }): unknown;
}

/** An object with `get` and `length`: samples read by index on demand, not collected. */
export function isMapStyle(v: unknown): v is MapStyle {
  return typeof v === 'object' && v !== null && typeof (v as MapStyle).get === 'function' && 'length' in v;
}
