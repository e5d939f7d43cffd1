#include "slurm/slurm_env.hpp"

#include <cstdlib>

namespace ga::slurm {

nlohmann::json capture_job() {
  const char* id = std::getenv("SLURM_JOB_ID");
  if (!id) return nullptr;
  nlohmann::json j = {{"job_id", id}};
  for (const char* k : {"SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES", "SLURM_NTASKS",
                        "SLURM_CLUSTER_NAME", "SLURM_JOB_PARTITION", "SLURM_STEP_ID"}) {
    if (const char* v = std::getenv(k)) {
      std::string key = k + 6;  // drop "SLURM_"
      for (auto& c : key) c = static_cast<char>(std::tolower(c));
      j[key] = v;
    }
  }
  return j;
}

}  // namespace ga::slurm
