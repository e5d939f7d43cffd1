#include "probes/devices/gpu_models.hpp"

#include <algorithm>
#include <cctype>

namespace ga::gpu {

std::optional<double> pcie_bytes_per_second(int gen, int width) {
  // GB/s per lane, one direction: GT/s x encoding efficiency / 8.
  static const double per_lane[] = {0, 2.5 * 0.8 / 8, 5.0 * 0.8 / 8, 8.0 * 128 / 130 / 8, 16.0 * 128 / 130 / 8,
                                    32.0 * 128 / 130 / 8, 64.0 * 242 / 256 / 8};
  if (gen < 1 || gen > 6 || width < 1 || width > 32) return std::nullopt;
  return per_lane[gen] * width * 1e9;
}

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

bool has(const std::string& s, const char* sub) { return s.find(sub) != std::string::npos; }

}  // namespace

std::optional<GpuModelSpec> model_spec(const std::string& cuda_name) {
  const std::string n = upper(cuda_name);
  // Rows from ../shared/docs/anchors.md where it has them (A100, H100, H200, B200 NVLink and
  // HBM, bf16 peaks); the rest from NVIDIA's product datasheets. Order: most specific first.
  const std::string anchors = "anchors.md", sheet = "NVIDIA datasheet";
  if (has(n, "GH200")) return GpuModelSpec{"GH200", 4.0e12, 989e12, 989e12, 450e9, sheet};
  if (has(n, "H200")) return GpuModelSpec{"H200", 4.8e12, 989e12, 989e12, 450e9, anchors};
  if (has(n, "H100") && has(n, "NVL")) return GpuModelSpec{"H100 NVL", 3.9e12, 835e12, 835e12, 0, sheet};
  if (has(n, "H100") && has(n, "PCIE")) return GpuModelSpec{"H100 PCIe", 2.0e12, 756e12, 756e12, 0, sheet};
  if (has(n, "H100")) return GpuModelSpec{"H100 SXM", 3.35e12, 989e12, 989e12, 450e9, anchors};
  if (has(n, "B200")) return GpuModelSpec{"B200", 8.0e12, 2250e12, 2250e12, 900e9, anchors};
  if (has(n, "A100") && has(n, "PCIE") && has(n, "80GB")) return GpuModelSpec{"A100 PCIe 80GB", 1.935e12, 312e12, 312e12, 0, sheet};
  if (has(n, "A100") && has(n, "PCIE")) return GpuModelSpec{"A100 PCIe 40GB", 1.555e12, 312e12, 312e12, 0, sheet};
  if (has(n, "A100") && has(n, "80GB")) return GpuModelSpec{"A100 SXM 80GB", 2.039e12, 312e12, 312e12, 300e9, anchors};
  if (has(n, "A100")) return GpuModelSpec{"A100 SXM 40GB", 1.555e12, 312e12, 312e12, 300e9, sheet};
  if (has(n, "L40S")) return GpuModelSpec{"L40S", 0.864e12, 362e12, 362e12, 0, sheet};
  if (has(n, "V100")) return GpuModelSpec{"V100", 0.9e12, 0, 125e12, has(n, "PCIE") ? 0 : 150e9, sheet};
  return std::nullopt;
}

}  // namespace ga::gpu
