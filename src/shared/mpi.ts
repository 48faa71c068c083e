// The MPI binding (native/mpi, built where mpicc is found) and whether this process was started
// by an MPI launcher (mpirun, mpiexec, srun). A run under a launcher with more than one process
// trains as one of several machines (src/coordinator/devices/cluster.ts).
import { MgpuError } from './errors.ts';
import { loadAddon } from './native-addon.ts';

export interface MpiAddon {
  init(): { rank: number; size: number; host: string };
  iallreduceSum(buffer: Float32Array | Float64Array): number;
  iallgather(send: Uint8Array, recv: Uint8Array): number;
  isendInt(dest: number, tag: number, value: number): number;
  irecvInt(source: number, tag: number, into: Int32Array): number;
  test(id: number): boolean;
  abort(code: number): never;
  finalize(): void;
}

/** The world size an MPI launcher gave this process, or null when none started it. */
export function launchedSize(env: NodeJS.ProcessEnv = process.env): { size: number; by: string } | null {
  for (const key of ['OMPI_COMM_WORLD_SIZE', 'PMI_SIZE', 'PMIX_SIZE', 'MPI_LOCALNRANKS']) {
    const v = env[key];
    if (v !== undefined && /^\d+$/.test(v)) return { size: Number(v), by: key };
  }
  if (env.PMIX_RANK !== undefined) return { size: Number(env.PMIX_SIZE ?? 0) || 2, by: 'PMIX_RANK' };
  return null;
}

/** The binding; an E_CONFIG error (exit 2) that says how to build it when it is not there (MGPU_MPI=0 turns it off). */
export function loadMpi(launch: { size: number; by: string }, env: NodeJS.ProcessEnv = process.env): MpiAddon {
  const off = /^(0|false|off|no)$/i.test(env.MGPU_MPI ?? '');
  const got = off
    ? { addon: null, reason: `the MPI binding is turned off by MGPU_MPI=${env.MGPU_MPI}` }
    : loadAddon<MpiAddon>('mgpu_mpi', 'MPI', ['init', 'iallreduceSum', 'iallgather', 'isendInt', 'irecvInt', 'test', 'abort', 'finalize'], 'native/mpi');
  if (got.addon) return got.addon;
  throw new MgpuError(
    'E_CONFIG',
    `started by an MPI launcher as one of ${launch.size} processes (${launch.by}), but ${got.reason.replace('npm run build:native', 'npm run build:mpi')}`,
    {
      hint: 'install MPI (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev) on every machine, then npm run build:mpi',
    },
  );
}
