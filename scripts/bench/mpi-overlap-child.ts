// One MPI rank of the overlap benchmark (scripts/bench/mpi-overlap.ts runs it under mpirun): for
// each P given, the machine's sum of two workers' gradients (P float32 each) followed by the
// gradient allreduce, as a step does it (overlapped-allreduce.ts, the cluster's polling), with
// the overlap off (chunk 0: the whole sum, then one allreduce) and in chunks of each size given,
// and the allreduce alone.
// Rank 0 prints one JSON line per P and mode: the median over `reps`, and whether the chunked
// result has the bits of the unchunked one.
//   mpi-overlap-child.ts reps chunk,chunk,... P...
import { openCluster } from '../../src/coordinator/devices/cluster.ts';
import { gradientCombine, overlappedAllreduce } from '../../src/coordinator/engine/overlapped-allreduce.ts';
import { floatKernels } from '../../src/shared/float-kernels.ts';

const [repsArg = '5', chunksArg = '0', ...sizes] = process.argv.slice(2);
const reps = Number(repsArg);
const chunks = [
  0,
  ...chunksArg
    .split(',')
    .map(Number)
    .filter((c) => c > 0),
];
const c = openCluster({ stepTimeout: 600, startTimeout: null });
const k = floatKernels();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const barrier = () => c.sum(new Float64Array(1), 'the barrier');
let step = 0;

for (const p of sizes.map(Number)) {
  // Two workers' gradients, different on every machine so that the sum means something.
  const g = [0, 1].map((w) => Float32Array.from({ length: p }, (_, i) => Math.sin(i * 0.37 + w + c.rank * 1.3)));
  const gradSum = new Float32Array(p);
  const sumRange = async (s: number, e: number) => {
    const out = gradSum.subarray(s, e);
    out.set(g[0]!.subarray(s, e));
    k.add(out, g[1]!.subarray(s, e));
  };
  let reference: Buffer | null = null;
  const localSum: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    await sumRange(0, p);
    localSum.push(performance.now() - t0);
  }
  // The binding's allreduce alone, of the whole vector, as the cluster polls it.
  const alone: number[] = [];
  for (let r = 0; r <= reps; r++) {
    await barrier();
    const t0 = performance.now();
    await c.sum(gradSum, 'the allreduce');
    if (r > 0) alone.push(performance.now() - t0);
  }
  for (const chunk of chunks) {
    const times: number[] = [];
    for (let r = 0; r <= reps; r++) {
      await barrier();
      const t0 = performance.now();
      await overlappedAllreduce(gradSum, sumRange, gradientCombine(c, step++, chunk));
      if (r > 0) times.push(performance.now() - t0);
    }
    const bits = Buffer.from(gradSum.buffer);
    if (chunk === 0) reference = Buffer.from(bits);
    const same = reference!.equals(bits);
    if (c.rank === 0) {
      console.log(
        JSON.stringify({ machines: c.size, params: p, chunk, ms: median(times), allreduce_ms: median(alone), local_sum_ms: median(localSum), same_bits: same }),
      );
    }
  }
}
c.close();
