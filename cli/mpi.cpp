#include "mpi.hpp"

#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "shufflempc/numbers.hpp"

#ifdef SHUFFLEMPC_WITH_MPI
#include <mpi.h>
#endif

namespace shufflempc::cli {

int launcher_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(name))
      if (const auto n = parse_unsigned(v, std::numeric_limits<int>::max()); n && *n > 0) return static_cast<int>(*n);
  return 1;
}

#ifdef SHUFFLEMPC_WITH_MPI

std::unique_ptr<MpiJob> MpiJob::join() {
  if (launcher_world_size() <= 1) return nullptr;
  int provided = 0;
  // Only the main thread calls MPI; the study's worker threads never do.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<MpiJob>(new MpiJob(rank, size));
}

MpiJob::~MpiJob() { MPI_Finalize(); }

study::Ranks MpiJob::ranks() {
  study::Ranks r{.rank = rank_, .size = size_};
  r.gather = [this](const std::string& mine) {
    if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::runtime_error("study: a rank's records exceed 2 GiB; use more ranks or fewer trials per run");
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank_ == 0) {
      std::size_t total = 0;
      for (int i = 0; i < size_; ++i) {
        if (total > static_cast<std::size_t>(std::numeric_limits<int>::max()))
          throw std::runtime_error("study: the ranks' records exceed 2 GiB; use fewer trials per run");
        offsets[static_cast<std::size_t>(i)] = static_cast<int>(total);
        total += static_cast<std::size_t>(lengths[static_cast<std::size_t>(i)]);
      }
      all.resize(total);
    }
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> parts;
    if (rank_ == 0)
      for (int i = 0; i < size_; ++i)
        parts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(i)]),
                                   static_cast<std::size_t>(lengths[static_cast<std::size_t>(i)])));
    return parts;
  };
  return r;
}

void MpiJob::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

#else

std::unique_ptr<MpiJob> MpiJob::join() {
  if (const int n = launcher_world_size(); n > 1)
    throw std::invalid_argument("started as one of " + std::to_string(n) +
                                " MPI ranks, but this shufflempc was built without MPI (install libopenmpi-dev and rebuild; "
                                "every rank would run the whole study)");
  return nullptr;
}

MpiJob::~MpiJob() = default;

study::Ranks MpiJob::ranks() { return {.rank = rank_, .size = size_}; }

void MpiJob::abort(int status) { std::_Exit(status); }

#endif

}  // namespace shufflempc::cli
