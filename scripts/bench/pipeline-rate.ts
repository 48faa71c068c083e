// Images/s through an image pipeline, read as the training loop reads it: batches of 32 in order,
// PREFETCH batches ahead, each batch's rows copied out of the pipeline's slots (the copy the
// stager makes into the slab); the best of `reps` passes after a warm one. shards-read.ts measures
// the folder and the shards with it.
import type { ImagePipeline } from '../../src/data/images/image-pipeline.ts';

const BATCH = 32;
export const PREFETCH = 2;

export async function pipelineRate(pipeline: ImagePipeline, n: number, rowBytes: number, reps: number): Promise<number> {
  let best = 0;
  for (let rep = 0; rep <= reps; rep++) {
    const t = performance.now();
    await pipelinePass(pipeline, n, rowBytes, rep);
    if (rep > 0) best = Math.max(best, n / ((performance.now() - t) / 1000));
  }
  await pipeline.close();
  return best;
}

/** One pass over the `n` samples as epoch `epoch` (each epoch's rows are made anew). */
export async function pipelinePass(pipeline: ImagePipeline, n: number, rowBytes: number, epoch: number): Promise<void> {
  const batches = Array.from({ length: Math.ceil(n / BATCH) }, (_, b) => Uint32Array.from({ length: Math.min(BATCH, n - b * BATCH) }, (_, k) => b * BATCH + k));
  const out = new Uint8Array(BATCH * rowBytes);
  for (let b = 0; b < batches.length; b++) {
    for (let a = 1; a <= PREFETCH && b + a < batches.length; a++) pipeline.prefetch(batches[b + a]!, epoch);
    await pipeline.ready(batches[b]!, epoch);
    for (let k = 0; k < batches[b]!.length; k++) out.set(pipeline.row(batches[b]![k]!, epoch), k * rowBytes);
    pipeline.release(batches[b]!, epoch);
  }
}
