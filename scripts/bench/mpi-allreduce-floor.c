// The floor for the binding's allreduce: Open MPI's own, from C, over the same link. For each P
// given (floats), rank 0 prints one JSON line with the medians over `reps` of MPI_Allreduce
// (blocking: coll/tuned picks the algorithm) and of MPI_Iallreduce + MPI_Wait (coll/libnbc, what
// the binding posts), both in place, MPI_SUM, MPI_FLOAT. Built and run by mpi-overlap.ts:
//   mpicc -O2 -o floor mpi-allreduce-floor.c && mpirun -np 2 ./floor reps P...
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

static double median_ms(float *buf, int n, int reps, int nonblocking) {
  double t[64];
  for (int r = 0; r <= reps; r++) { // the first one warms up and is not kept
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (nonblocking) {
      MPI_Request q;
      MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
      MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (r > 0) t[r - 1] = (MPI_Wtime() - t0) * 1e3;
  }
  qsort(t, (size_t)reps, sizeof t[0], cmp);
  return t[reps / 2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1 || reps > 64) reps = 5;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int a = 2; a < argc; a++) {
    int n = atoi(argv[a]);
    float *buf = calloc((size_t)n, sizeof(float));
    double blocking = median_ms(buf, n, reps, 0), nonblocking = median_ms(buf, n, reps, 1);
    if (rank == 0) printf("{\"machines\":%d,\"params\":%d,\"allreduce_ms\":%.3f,\"iallreduce_wait_ms\":%.3f}\n", size, n, blocking, nonblocking);
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
