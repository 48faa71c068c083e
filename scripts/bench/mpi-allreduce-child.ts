// One MPI rank of the allreduce benchmark: times the allreduce (the project's binding, polled as
// the coordinator polls it) of P float32 for each P given, and, on rank 0, prints one JSON line
// per P with the median over `reps`. Run by scripts/bench/mpi.ts under mpirun.
import { loadMpi } from '../../src/shared/mpi.ts';

const [repsArg = '10', ...sizes] = process.argv.slice(2);
const mpi = loadMpi({ size: 2, by: 'mpirun' });
const me = mpi.init();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const p of sizes.map(Number)) {
  const buf = new Float32Array(p).fill(1);
  const times: number[] = [];
  for (let r = 0; r <= Number(repsArg); r++) {
    const t0 = performance.now();
    const id = mpi.iallreduceSum(buf);
    while (!mpi.test(id)) await new Promise((resolve) => setImmediate(resolve));
    if (r > 0) times.push(performance.now() - t0);
  }
  if (me.rank === 0) console.log(JSON.stringify({ machines: me.size, params: p, allreduce_ms: median(times) }));
}
mpi.finalize();
