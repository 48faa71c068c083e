// The lines a run prints before its first step, like the header of a good experiment script:
// what trains on what, and the batch arithmetic.
import type { Config } from '../shared/config/types.ts';
import { floatKernels, nativeKernelsUnavailableReason } from '../shared/float-kernels.ts';
import { shardSizes } from '../shared/shard.ts';
import type { BatchPlan } from './batch-plan.ts';
import type { Dataset } from './data/rows.ts';
import type { WorkerDevice } from './devices.ts';
import { plural, type Progress } from './progress.ts';
import type { Session } from './session.ts';

export function printHeader(out: Progress, cfg: Config, s: Session, devices: WorkerDevice[], plan: BatchPlan, train: Dataset, evalSet: Dataset | null): void {
  const sizes = shardSizes(cfg.training.batchSize, devices.length);
  const lo = Math.min(...sizes);
  const hi = Math.max(...sizes);
  const per = lo === hi ? `${lo}` : `${lo}-${hi}`;
  const params = s.flat.trainable.toLocaleString('en-US');
  out.line(`mgpu-train: ${cfg.name}`);
  devices.forEach((d, r) => out.line(`  rank ${r}: ${d.label}`));
  out.line(`  backend     ${s.group.backend}`);
  out.line(`  model       ${params} trainable parameters (${(s.flat.total - s.flat.trainable).toLocaleString('en-US')} non-trainable), ${s.group.layout.variables.length} variables`);
  out.line(`  batch       global ${cfg.training.batchSize} = ${plural(devices.length, 'worker')} x ${per} per worker`);
  out.line(`  data        ${train.count} training samples${evalSet ? `, ${evalSet.count} eval samples` : ''}; ${plan.stepsPerEpoch} steps per epoch, ${plan.totalSteps} steps`);
  out.line(`  optimizer   ${cfg.optimizer.name} lr ${cfg.optimizer.learningRate}, schedule ${cfg.schedule.name}${cfg.schedule.warmupSteps ? ` after ${cfg.schedule.warmupSteps} warmup steps` : ''}`);
  const k = floatKernels();
  const kernels = k.kind === 'native' ? 'C kernels' : `JavaScript kernels (${nativeKernelsUnavailableReason})`;
  out.line(`  reduce      ${s.pool.threads ? `${s.pool.threads} threads` : 'on the coordinator thread'}, ${kernels}; slab ${(s.layout.size / 2 ** 20).toFixed(1)} MiB, ${s.slab.mode === 'mapped' ? 'mapped' : `positional I/O (${s.slab.fallbackReason})`}`);
  out.line(`  run dir     ${cfg.runDir}`);
}
