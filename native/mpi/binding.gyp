{
  # The MPI binding (mgpu_mpi.node): built by scripts/build-mpi.sh only where `mpicc` is found
  # (Open MPI or MPICH), so that a machine without MPI still installs. Compiler and linker flags
  # come from the MPI wrapper itself. Loaded by src/shared/mpi.ts.
  "targets": [
    {
      "target_name": "mgpu_mpi",
      "sources": ["mpi.c"],
      "cflags_c": ["-std=c11", "-O2", "-Wall", "-Wextra", "<!@(mpicc --showme:compile 2>/dev/null || mpicc -compile_info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\\n' | grep '^-I' | tr '\\n' ' ')"],
      "libraries": ["<!@(mpicc --showme:link 2>/dev/null || mpicc -link_info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\\n' | grep -E '^-(L|l|Wl)' | tr '\\n' ' ')"]
    }
  ]
}
