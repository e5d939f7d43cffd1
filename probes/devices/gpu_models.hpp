// Theoretical figures the criteria are held against: what a PCIe link of a generation and
// width carries, and what a GPU model's HBM, tensor cores and NVLink are specified to do.
// The topology module has no such figures; the probes emit them as samples next to the
// measured values (and the measured/theoretical fraction), so the judge and a reader see both.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ga::gpu {

// One direction, bytes/s, after line encoding (8b/10b to Gen2, 128b/130b Gen3-5, FLIT Gen6).
std::optional<double> pcie_bytes_per_second(int gen, int width);

struct GpuModelSpec {
  std::string family;                   // "H100 SXM", the table row that matched
  double hbm_bytes_per_s = 0;           // memory bandwidth, datasheet (read + write total)
  double bf16_flops = 0;                // dense tensor-core peak; 0 when the GPU has no bf16
  double fp16_flops = 0;
  double nvlink_bytes_per_s = 0;        // NVLink, one direction, all links; 0 when none
  std::string source;
};
// By the CUDA device name ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"); nullopt when
// the model is not in the table.
std::optional<GpuModelSpec> model_spec(const std::string& cuda_name);

}  // namespace ga::gpu
