// Ordering and wording shared by the judge's reasons. Everything here is deterministic and
// locale-free (snprintf in the "C" locale), because `gpuaccept judge DIR` must reproduce
// the live run's report byte for byte.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "suites/judge_parts.hpp"
#include "topology/natural_order.hpp"
#include "topology/text.hpp"

namespace ga::judging {

bool place_less(const std::string& a, const std::string& b) {
  if (a == b) return false;
  if (a == "cluster") return true;
  if (b == "cluster") return false;
  return natural_less(a, b);
}

std::string format_number(double v) {
  if (v == 0) return "0";
  if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "nan");
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 1e15 || a < 1e-4) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  // Integers print whole (8 GPUs, 4194304 bytes); fractions keep three significant digits.
  if (a >= 100 && std::fabs(v - std::round(v)) < 1e-9 * a) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, 2 - magnitude);
  return topo::fixed_trimmed(v, decimals);
}

namespace {

struct Scale {
  double factor;
  const char* name;
};

std::string scaled(double v, const std::vector<Scale>& scales) {
  const double a = std::fabs(v);
  for (const auto& s : scales)
    if (a >= s.factor) return format_number(v / s.factor) + " " + s.name;
  return format_number(v / scales.back().factor) + " " + scales.back().name;
}

// Units that measure the same thing, with the factor to the first (base) one.
const std::vector<std::map<std::string, double>>& unit_families() {
  static const std::vector<std::map<std::string, double>> families = {
      {{"B/s", 1}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}, {"b/s", 0.125},
       {"Mb/s", 1.25e5}, {"Gb/s", 1.25e8}, {"Tb/s", 1.25e11}},
      {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}},
      {{"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
       {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}},
      {{"FLOP/s", 1}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}},
  };
  return families;
}

}  // namespace

std::string format_value(double v, const std::string& unit) {
  if (unit == "B/s")  // decimal, as link and memory bandwidths are quoted (anchors.md)
    return scaled(v, {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}, {1, "B/s"}});
  if (unit == "B")  // binary, as memory and buffer sizes are configured
    return scaled(v, {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1, "B"}});
  if (unit == "s") return scaled(v, {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}});
  if (unit == "FLOP/s") return scaled(v, {{1e12, "TFLOP/s"}, {1e9, "GFLOP/s"}, {1, "FLOP/s"}});
  if (unit == "bool") return v != 0 ? "yes" : "no";
  if (unit == "%") return format_number(v) + "%";
  if (unit.empty() || unit == "count" || unit == "text") return format_number(v);
  return format_number(v) + " " + unit;
}

std::optional<double> unit_factor(const std::string& from, const std::string& to) {
  if (from == to || from.empty() || to.empty()) return 1.0;
  for (const auto& fam : unit_families()) {
    auto f = fam.find(from), t = fam.find(to);
    if (f != fam.end() && t != fam.end()) return f->second / t->second;
  }
  return std::nullopt;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string list_text(const std::vector<std::string>& items, std::size_t show) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < show; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > show) out += " and " + std::to_string(items.size() - show) + " more";
  return out;
}

std::string ranks_text(std::vector<RankRef> ranks) {
  std::sort(ranks.begin(), ranks.end(), [](const RankRef& a, const RankRef& b) { return a.rank < b.rank; });
  std::string ids;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1].rank == ranks[j].rank + 1) ++j;
    ids += (ids.empty() ? "" : ",") + std::to_string(ranks[i].rank);
    if (j > i) ids += (j == i + 1 ? "," : "-") + std::to_string(ranks[j].rank);
    i = j + 1;
  }
  std::vector<std::string> hosts;
  for (const auto& r : ranks)
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  std::sort(hosts.begin(), hosts.end(), place_less);
  return (ranks.size() == 1 ? "rank " : "ranks ") + ids + " (" + (hosts.size() == 1 ? "host " : "hosts ") +
         list_text(hosts) + ")";
}

}  // namespace ga::judging
