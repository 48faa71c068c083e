// A piscina thread of the reduce pool: builds its reducer once from the pool's workerData and
// stays warm for the whole run.
import { workerData } from 'piscina';
import { makeReducer, type Reducer, type ReduceShared, type ReduceTask } from './reducer.ts';

let reducer: Reducer | null = null;

export default function run(task: ReduceTask): number[] {
  reducer ??= makeReducer(workerData as ReduceShared);
  return reducer(task);
}
