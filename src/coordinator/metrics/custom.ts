// A custom metric module, as the coordinator sees it: its default export runs in the workers
// (src/worker/eval-metrics.ts) and returns named sums; the coordinator adds them over batches
// and ranks and hands the totals to the module's optional `finalize(sums, { samples })`, whose
// named values are the metric's (without it, the sums themselves are). The module is imported
// here too, before any worker starts, so that a module that cannot load or has no default
// export function is refused at once.
import { importUserModule } from '../../shared/import-user-module.ts';
import { MgpuError, messageOf } from '../../shared/errors.ts';

export type Finalize = (sums: Record<string, number>, info: { samples: number }) => Record<string, number | null>;

export interface CustomMetricModule {
  keyPath: string; // metrics[i]
  file: string;
  name: string; // values are logged as <name>.<key>
  finalize: Finalize | null;
}

export async function loadCustomMetric(file: string, name: string, keyPath: string): Promise<CustomMetricModule> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(file);
  } catch (err) {
    throw new MgpuError('E_METRIC', `${keyPath}.module ${file} failed to load: ${(err as Error).message}`, { hint: 'run it with node to see the full error' });
  }
  if (typeof mod.default !== 'function') {
    throw new MgpuError('E_METRIC', `${keyPath}.module ${file} has no default export function`, {
      hint: 'export default function (yTrue, yPred, tf) { return { name: tf.sum(...) } }, and optionally export function finalize(sums, { samples }) { return { value: ... } }',
    });
  }
  if (mod.finalize !== undefined && typeof mod.finalize !== 'function') {
    throw new MgpuError('E_METRIC', `${keyPath}.module ${file}: its export finalize is ${typeof mod.finalize}, not a function`, {
      hint: 'export function finalize(sums, { samples }) { return { value: sums.a / sums.b } }, or export no finalize to log the sums',
    });
  }
  return { keyPath, file, name, finalize: (mod.finalize as Finalize | undefined) ?? null };
}

/** The metric's values, keyed `<name>.<key>`: finalize(sums) or, without it, the sums. */
export function finalizeCustom(m: CustomMetricModule, sums: Record<string, number>, samples: number): Record<string, number | null> {
  let values: unknown = sums;
  if (m.finalize) {
    try {
      values = m.finalize({ ...sums }, { samples });
    } catch (err) {
      throw new MgpuError('E_METRIC', `${m.keyPath} (${m.file}): finalize threw: ${messageOf(err)}`, {
        hint: `it was given ${JSON.stringify(sums)} for ${samples} samples`,
      });
    }
  }
  const proto: unknown = typeof values === 'object' && values !== null ? Object.getPrototypeOf(values) : undefined;
  if (!(proto === Object.prototype || proto === null)) {
    throw new MgpuError(
      'E_METRIC',
      `${m.keyPath} (${m.file}): finalize returned ${values === null ? 'null' : Array.isArray(values) ? 'a list' : typeof values}, not an object of named values`,
      {
        hint: 'return { name: number, ... }',
      },
    );
  }
  const out: Record<string, number | null> = {};
  for (const [k, v] of Object.entries(values as Record<string, unknown>)) {
    if (typeof v !== 'number' && v !== null) {
      throw new MgpuError('E_METRIC', `${m.keyPath} (${m.file}): finalize's value ${JSON.stringify(k)} is ${typeof v}, not a number`, {
        hint: 'return { name: number, ... }',
      });
    }
    out[`${m.name}.${k}`] = v;
  }
  return out;
}
