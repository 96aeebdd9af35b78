// The MPI job a `study` process belongs to, when mpirun (or Slurm's srun) started it and
// shufflempc was built with MPI (SHUFFLEMPC_WITH_MPI, found at configure time). Only the study
// uses it: the ranks share the study's trials (study::Ranks) and rank 0 writes every output.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shufflempc/study/study.hpp"

namespace shufflempc::cli {

class MpiJob {
 public:
  // The job, initialized, if this process was started as one of several ranks; nullptr when it
  // runs alone. Throws std::invalid_argument when started as one of several ranks by a
  // shufflempc built without MPI (each rank would otherwise run the whole study).
  [[nodiscard]] static std::unique_ptr<MpiJob> join();
  ~MpiJob();  // MPI_Finalize
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  [[nodiscard]] study::Ranks ranks();
  // Ends every rank of the job (one rank's failure would leave the others waiting to gather).
  [[noreturn]] void abort(int status);

 private:
  MpiJob(int rank, int size) : rank_(rank), size_(size) {}
  int rank_, size_;
};

// The world size the launcher announced in the environment (Open MPI, MPICH and PMI, a Slurm step), or 1.
[[nodiscard]] int launcher_world_size();

}  // namespace shufflempc::cli
