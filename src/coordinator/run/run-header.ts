// The lines a run prints before its first step, like the header of a good experiment script:
// what trains on what, and the batch arithmetic.
import { adapterLabel } from '../../shared/adapters.ts';
import type { Config } from '../../config/types.ts';
import { sampleWeightsOf } from '../../config/data-sources-table.ts';
import type { ReadyMessage } from '../../shared/protocol.ts';
import { floatKernels, nativeKernelsUnavailableReason } from '../../shared/float-kernels.ts';
import { wasmConvolutions } from '../../worker/wasm-kernels/native-conv.ts';
import { shardSizes } from '../../shared/shard.ts';
import type { BatchPlan } from '../../data/batch-plan.ts';
import { globalWorkers } from '../devices/cluster.ts';
import { describeMapping, type ClassMapping } from '../../data/classes.ts';
import { inputArrays } from '../../data/parts.ts';
import { mmapUnavailableReason } from '../../shared/mapped-memory.ts';
import { patternLines } from './pattern-lines.ts';
import type { Dataset } from '../../data/rows.ts';
import type { WorkerDevice } from '../devices/devices.ts';
import { plural, type Progress } from '../console/progress.ts';
import type { Session } from '../engine/session.ts';

export function printHeader(
  out: Progress,
  cfg: Config,
  s: Session,
  devices: WorkerDevice[],
  plan: BatchPlan,
  train: Dataset,
  evalSet: Dataset | null,
  placement: string | null = null,
  classes: ClassMapping | null = null,
): void {
  const active = s.group.active; // all ranks, unless one was retired at start-up (reshard)
  const c = s.cluster;
  const total = globalWorkers(c, active); // every machine's workers
  const sizes = shardSizes(cfg.training.batchSize, total);
  const lo = Math.min(...sizes);
  const hi = Math.max(...sizes);
  const per = lo === hi ? `${lo}` : `${lo}-${hi}`;
  const params = s.flat.trainable.toLocaleString('en-US');
  out.line(`mgpu-train: ${cfg.name}`);
  // What each rank really computes on, as the worker reported it after starting its backend.
  devices.forEach((d, r) => out.line(`  rank ${r}: ${d.label} -> ${active.includes(r) ? computesOn(s.group.ready[r]) : 'retired: it failed to start'}`));
  if (placement) out.line(`  placement   ${placement}`);
  if (c.size > 1)
    out.line(`  machines    ${c.size} over MPI: ${c.workers.map((w, r) => `${c.where(r)} ${w} worker${w === 1 ? '' : 's'}`).join(', ')}; this is rank 0`);
  out.line(
    `  model       ${cfg.model.net ? `${cfg.model.net.name} at ${cfg.model.net.inputShape.join('x')}: ` : ''}${params} trainable parameters (${(s.flat.total - s.flat.trainable).toLocaleString('en-US')} non-trainable), ${s.group.layout.variables.length} variables`,
  );
  out.line(`  batch       global ${cfg.training.batchSize} = ${plural(total, 'worker')}${c.size > 1 ? ` on ${c.size} machines` : ''} x ${per} per worker`);
  for (const note of dataNotes(train, evalSet, s.group.layout.inputShape)) out.line(`  data note   ${note}`);
  out.line(
    `  data        ${plural(train.count, 'training sample')}${evalSet ? `, ${plural(evalSet.count, 'eval sample')}` : ''}; ${plural(plan.stepsPerEpoch, 'step')} per epoch, ${plural(plan.totalSteps, 'step')}${orderOf(train)}; ${readingOf(train)}${evalSet && readingOf(evalSet) !== readingOf(train) ? ` (eval: ${readingOf(evalSet)})` : ''}`,
  );
  for (const line of patternLines(train, evalSet)) out.line(`  files       ${line}`);
  for (const ds of evalSet?.pipeline && evalSet.pipeline !== train.pipeline ? [train, evalSet] : [train])
    if (ds.pipeline) out.line(`  input       ${ds.pipeline.describe()}, ${cfg.data.prefetch} steps ahead`);
  for (const ds of [train, evalSet]) if (ds?.describe) out.line(`  input       ${ds.describe}`);
  if (classes) out.line(`  labels      ${describeMapping(classes.classes, classes.from)}`);
  const weights = weightsLine(cfg, evalSet);
  if (weights) out.line(`  weights     ${weights}`);
  out.line(
    `  optimizer   ${cfg.optimizer.name} lr ${cfg.optimizer.learningRate}, schedule ${cfg.schedule.name}${cfg.schedule.warmupSteps ? ` after ${cfg.schedule.warmupSteps} warmup steps` : ''}`,
  );
  const k = floatKernels();
  const kernels = k.kind === 'native' ? 'C kernels' : `JavaScript kernels (${nativeKernelsUnavailableReason})`;
  out.line(
    `  reduce      ${s.pool.threads ? `${s.pool.threads} threads` : 'on the coordinator thread'}, ${kernels}; slab ${(s.layout.size / 2 ** 20).toFixed(1)} MiB, ${s.slab.mode === 'mapped' ? 'mapped' : `positional I/O (${s.slab.fallbackReason})`}`,
  );
  if (s.group.ready.some((r) => r.backend === 'wasm')) out.line(`  convolution ${wasmConvolutions()}`);
  out.line(`  run dir     ${cfg.runDir}`);
}

/** How a split's features are read: held in memory, mapped from files, or made on demand. */
function readingOf(ds: Dataset): string {
  const kinds = new Set(inputArrays(ds).map((a) => a.array.kind));
  if (kinds.has('made')) return 'made on demand';
  if (kinds.has('mapped')) {
    const arrays = inputArrays(ds).filter((a) => a.array.kind === 'mapped');
    const files = arrays.reduce((n, a) => n + (a.parts?.length ?? 1), 0) === 1 ? 'its file' : 'its files';
    const pread = arrays.filter((a) => a.array.positional);
    if (pread.length === 0) return `mapped from ${files} (page cache, not the heap)`;
    const why = mmapUnavailableReason ?? 'the filesystem refused the mapping';
    if (pread.length === arrays.length && pread.every((a) => a.array.positional === 'all')) return `read from ${files} with pread, not mapped (${why})`;
    return `mapped from ${files} (page cache, not the heap), some read with pread (${why})`;
  }
  return 'held in memory';
}

/** Loss weights, when any: what weighs the training loss, and whether the eval loss is weighted. */
function weightsLine(cfg: Config, evalSet: Dataset | null): string | null {
  const cw = cfg.training.classWeights;
  const trainSw = sampleWeightsOf(cfg.data.train);
  if (!cw && !trainSw && !evalSet?.weights) return null;
  const parts = [
    cw
      ? `class weights ${Object.entries(cw)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')} (others 1)`
      : null,
    trainSw ? `sample weights ${trainSw}` : null,
  ].filter(Boolean);
  const train = parts.length ? `training: ${parts.join(' x ')}, loss Σ w·l / B` : 'training: unweighted';
  return `${train}; eval: ${evalSet?.weights ? 'loss weighted by its sample weights' : 'unweighted'}`;
}

function computesOn(ready: ReadyMessage | undefined): string {
  if (!ready) return 'not started';
  return ready.adapter ? `${ready.backend} on ${adapterLabel(ready.adapter)}` : ready.backend;
}

/** What was done to the data on reading that a user would not guess: dtype conversions, reshapes. */
export function dataNotes(train: Dataset, evalSet: Dataset | null, inputShape: readonly (number | null)[]): string[] {
  const notes: string[] = [];
  for (const ds of evalSet ? [train, evalSet] : [train]) {
    for (const [what, a] of [
      ['features', ds.features],
      ['labels', ds.labels],
    ] as const) {
      if (a.storedAs) notes.push(`${what} of ${ds.source} are stored as ${a.storedAs}, read as ${a.dtype}`);
    }
  }
  const row = train.features.shape.slice(1);
  const model = inputShape.slice(1);
  if (inputArrays(train).length === 1 && model.every((d) => d !== null) && row.join('x') !== model.join('x')) {
    notes.push(`feature rows of shape [${row.join(', ')}] are reshaped to the model's input [${model.join(', ')}]`);
  }
  return notes;
}

/** The training order when it is not the global permutation (data.train.order: shards). */
function orderOf(train: Dataset): string {
  const o = train.shardOrder;
  if (!o) return '';
  const shards = new Set(o.shardOf).size;
  return `, in shard order (${shards} shards shuffled, ${Math.min(o.openShards, shards)} at a time)`;
}
