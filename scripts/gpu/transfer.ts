// Host <-> GPU transfer times on webgpu for P float32 parameters, as a worker moves them each
// step: a readback (await data(), what the worker does with its flat gradient vector) and an
// upload (a tensor from a Float32Array of the slab, then a sum on the GPU and a 4-byte readback
// so that the upload has really happened). Prints one JSON line per size: medians of `reps`.
//   node --import tsx scripts/gpu/transfer.ts <reps> <P> [<P> ...]
import * as tf from '@tensorflow/tfjs';
import { installDawn } from '../../src/worker/backend.ts';

const [repsArg = '10', ...sizes] = process.argv.slice(2);
const reps = Number(repsArg);
await installDawn();
await import('@tensorflow/tfjs-backend-webgpu');
await tf.setBackend('webgpu');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

for (const p of sizes.map(Number)) {
  const host = new Float32Array(p).map((_, i) => (i % 97) / 97);
  const onGpu = tf.tidy(() => tf.add(tf.tensor1d(host), 0)); // resident on the GPU
  await onGpu.data();
  const readback: number[] = [];
  const upload: number[] = [];
  for (let r = 0; r < reps + 1; r++) {
    const fresh = tf.tidy(() => tf.mul(onGpu, 1)); // a new GPU buffer each time: no cached copy on the host
    let t0 = performance.now();
    await fresh.data();
    if (r > 0) readback.push(performance.now() - t0);
    fresh.dispose();
    t0 = performance.now();
    const t = tf.tensor1d(host);
    const s = tf.sum(t);
    await s.data();
    if (r > 0) upload.push(performance.now() - t0);
    tf.dispose([t, s]);
  }
  onGpu.dispose();
  console.log(
    JSON.stringify({
      params: p,
      readback_ms: median(readback),
      upload_ms: median(upload),
      readback_GBps: (p * 4) / median(readback) / 1e6,
      upload_GBps: (p * 4) / median(upload) / 1e6,
    }),
  );
}
process.exit(0);
