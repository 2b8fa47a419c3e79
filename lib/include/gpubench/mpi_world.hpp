#pragma once
/// The processes of a collective run as MPI's world (docs/fleet.md): launched by mpirun, or by
/// srun where Slurm's PMIx plugin starts MPI programs (srun --mpi=pmix). Built only where CMake's
/// find_package(MPI) succeeds (GPUBENCH_HAVE_MPI); without it `gpubench collective` says why.
#include <memory>

#include "gpubench/rank_group.hpp"

namespace gpubench {

/// Initialises MPI (once per process) and returns MPI_COMM_WORLD as a rank_group; MPI is
/// finalised when it goes. Throws runtime_error when MPI cannot start.
std::unique_ptr<rank_group> open_mpi_world();

}  // namespace gpubench
