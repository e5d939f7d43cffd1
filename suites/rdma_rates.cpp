#include "suites/rdma_rates.hpp"

#include <algorithm>
#include <map>

#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga::judging {

namespace {

constexpr const char* kCounter = "rdma.counter.";
constexpr const char* kReadAt = "rdma.counters_read_at";
// The counters whose rise is held against the link's bit count: each one is at least one bit
// in error (a symbol, or a packet that failed its CRC).
constexpr const char* kPerBit[] = {"symbol_error", "port_rcv_errors"};

std::string read_of(const Metric& m) {
  auto it = m.params.find("read");
  return it != m.params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Metric derived(const std::string& name, const std::string& place, double v, const char* unit, Better better) {
  Metric m;
  m.metric = name;
  m.probe = "rdma";
  m.place = place;
  m.unit = unit;
  m.better = better;
  m.value = m.min = m.max = v;
  m.count = 1;
  return m;
}

}  // namespace

std::vector<Metric> derive_rdma_counter_metrics(const std::vector<Metric>& metrics) {
  // host -> reading -> the host's clock at it
  std::map<std::string, std::map<std::string, double>> read_at;
  // port -> counter -> reading -> value
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> counters;
  std::map<std::string, double> rate_gbps;  // port -> its link rate
  const std::size_t prefix = std::char_traits<char>::length(kCounter);
  for (const auto& m : metrics) {
    if (!m.value) continue;
    if (m.metric == kReadAt) {
      if (const auto r = read_of(m); !r.empty()) read_at[m.place][r] = *m.value;
    } else if (m.metric.compare(0, prefix, kCounter) == 0) {
      if (const auto r = read_of(m); !r.empty()) counters[m.place][m.metric.substr(prefix)][r] = *m.value;
    } else if (m.metric == "rdma.rate_gbps") {
      rate_gbps[m.place] = *m.value;
    }
  }

  std::vector<Metric> out;
  for (const auto& [port, by_counter] : counters) {
    const auto h = read_at.find(place::host_of(port));
    if (h == read_at.end() || h->second.size() < 2) continue;  // one reading: nothing to compare
    // The host's first and last reading by its clock, whatever they are called.
    auto first = h->second.begin(), last = h->second.begin();
    for (auto it = h->second.begin(); it != h->second.end(); ++it) {
      if (it->second < first->second) first = it;
      if (it->second > last->second) last = it;
    }
    if (first == last) continue;
    const double interval = last->second - first->second;
    bool any = false;
    for (const auto& [name, reads] : by_counter) {
      const auto a = reads.find(first->first), b = reads.find(last->first);
      if (a == reads.end() || b == reads.end()) continue;
      // A counter that went down was reset (or wrapped): what it holds now rose since.
      const double rise = b->second >= a->second ? b->second - a->second : b->second;
      out.push_back(derived("rdma.counter_rise." + name, port, rise, "count", Better::lower));
      any = true;
      const auto r = rate_gbps.find(port);
      if (std::find(std::begin(kPerBit), std::end(kPerBit), name) != std::end(kPerBit) && r != rate_gbps.end() &&
          r->second > 0 && interval > 0)
        out.push_back(derived("rdma.counter_per_bit." + name, port, rise / (r->second * 1e9 * interval), "errors/bit",
                              Better::lower));
    }
    if (any) out.push_back(derived("rdma.counter_interval", port, interval, "s", Better::none));
  }
  return out;
}

void add_rdma_counter_metrics(std::vector<Metric>& metrics) { add_in_order(metrics, derive_rdma_counter_metrics(metrics)); }

}  // namespace ga::judging
