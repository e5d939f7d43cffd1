// The Slurm job a run belongs to, from the variables srun/sbatch set. Only these named,
// non-secret variables are read: nothing else of the environment reaches a report.
#pragma once
#include <nlohmann/json.hpp>

namespace ga::slurm {

// null when not under Slurm.
nlohmann::json capture_job();

}  // namespace ga::slurm
