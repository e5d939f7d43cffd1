// The mpirun and srun lines gpuaccept launch builds: golden argv, so a change to how a run is
// launched is a change someone meant.
#include <gtest/gtest.h>

#include "launchers/launch.hpp"

namespace ga::launch {
namespace {

Request two_hosts() {
  Request r;
  r.hosts = {"gpu-001", "gpu-002"};
  r.ranks_per_host = 8;
  r.program = {"/opt/gpuaccept/bin/gpuaccept", "run", "--suite", "default"};
  return r;
}

TEST(Launch, MpirunOnTwoHostsOneRankPerGpuBoundToNuma) {
  EXPECT_EQ(mpirun_argv(two_hosts()),
            (std::vector<std::string>{"mpirun", "-np", "16", "--host", "gpu-001:8,gpu-002:8", "--map-by", "ppr:8:node",
                                      "--bind-to", "numa", "/opt/gpuaccept/bin/gpuaccept", "run", "--suite", "default"}));
}

TEST(Launch, MpirunForwardsVariablesByNameAndMcaAsGiven) {
  Request r = two_hosts();
  r.allow_root = true;
  r.oversubscribe = true;
  r.bind_to_numa = false;
  r.mca = {"btl=self,vader,tcp"};
  r.forward = {"NCCL_IB_HCA", "UCX_NET_DEVICES"};
  EXPECT_EQ(mpirun_argv(r),
            (std::vector<std::string>{"mpirun", "-np", "16", "--host", "gpu-001:8,gpu-002:8", "--map-by", "ppr:8:node",
                                      "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "--allow-run-as-root",
                                      "--bind-to", "none", "--mca", "btl", "self,vader,tcp", "-x", "NCCL_IB_HCA", "-x",
                                      "UCX_NET_DEVICES", "/opt/gpuaccept/bin/gpuaccept", "run", "--suite", "default"}));
  r.mca = {"no-equals"};
  EXPECT_THROW(mpirun_argv(r), std::invalid_argument);
}

TEST(Launch, MpirunOnThisHostOnly) {
  Request r;
  r.ranks_per_host = 4;
  r.bind_to_numa = false;
  r.program = {"gpuaccept", "run"};
  EXPECT_EQ(mpirun_argv(r), (std::vector<std::string>{"mpirun", "-np", "4", "--map-by", "ppr:4:node", "--bind-to",
                                                      "none", "gpuaccept", "run"}));
}

TEST(Launch, SrunOnNamedHostsAndOnTheWholeAllocation) {
  EXPECT_EQ(srun_argv(two_hosts()),
            (std::vector<std::string>{"srun", "--mpi=pmix", "--ntasks=16", "--nodes=2", "--nodelist=gpu-001,gpu-002",
                                      "--ntasks-per-node=8", "--cpu-bind=ldoms", "/opt/gpuaccept/bin/gpuaccept", "run",
                                      "--suite", "default"}));
  Request r = two_hosts();
  r.hosts.clear();  // inside an allocation: all its nodes, 8 each
  EXPECT_EQ(srun_argv(r), (std::vector<std::string>{"srun", "--mpi=pmix", "--ntasks-per-node=8", "--cpu-bind=ldoms",
                                                    "/opt/gpuaccept/bin/gpuaccept", "run", "--suite", "default"}));
  r.job_tasks = true;  // sbatch -n: the job's own tasks, no count of ours (the sbatch script's -n path)
  EXPECT_EQ(srun_argv(r), (std::vector<std::string>{"srun", "--mpi=pmix", "--cpu-bind=ldoms",
                                                    "/opt/gpuaccept/bin/gpuaccept", "run", "--suite", "default"}));
  r.program.clear();
  EXPECT_THROW(srun_argv(r), std::invalid_argument);
}

}  // namespace
}  // namespace ga::launch
