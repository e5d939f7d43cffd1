#include "suites/rdma_rates.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga::judging {

namespace {

// One kind of counters read at the run's bounds: the rdma probe's port counters, the gpu
// probe's NVLink counters. Both derive the same way; they differ in names and in the rate
// their errors are held to.
struct Family {
  const char* probe;
  const char* counter;                  // prefix of the raw readings
  const char* read_at;                  // the host's clock at each reading
  const char* rise;                     // prefix of the derived rises
  const char* interval;
  // Counters also derived as a rate: per bit the link carried (rdma), or per second (gpu).
  std::vector<std::string> rated;
  const char* rate_prefix;
  const char* rate_unit;
  bool per_bit;                         // divide by rdma.rate_gbps x 1e9 x interval, else by interval
};

// The counters whose rise is held against the link's bit count: each one is at least one bit
// in error (a symbol, or a packet that failed its CRC).
const Family kRdma{"rdma", "rdma.counter.", "rdma.counters_read_at", "rdma.counter_rise.", "rdma.counter_interval",
                   {"symbol_error", "port_rcv_errors"}, "rdma.counter_per_bit.", "errors/bit", true};
// NVLink CRC errors are judged by their rate a second, as DCGM's health watch does (100 a
// second fail, suites/data/criteria-default-gpu.yaml); replays and recoveries by their count.
const Family kNvLink{"gpu", "gpu.nvlink_counter.", "gpu.nvlink_counters_read_at", "gpu.nvlink_counter_rise.",
                     "gpu.nvlink_counter_interval", {"crc_flit", "crc_data"}, "gpu.nvlink_counter_rate.", "errors/s",
                     false};

std::string read_of(const Metric& m) {
  auto it = m.params.find("read");
  return it != m.params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Metric derived(const char* probe, const std::string& name, const std::string& place, double v, const char* unit,
               Better better) {
  Metric m;
  m.metric = name;
  m.probe = probe;
  m.place = place;
  m.unit = unit;
  m.better = better;
  m.value = m.min = m.max = v;
  m.count = 1;
  return m;
}

void derive_family(const base::ByName<Metric>& by_name, const Family& f, std::vector<Metric>& out) {
  // host -> reading -> the host's clock at it
  std::map<std::string, std::map<std::string, double>> read_at;
  // One counter's value at one reading, by views into the metrics (at 4096 hosts ~1.3 M of
  // them: string-keyed maps three deep were most of the judge's time here).
  struct Reading {
    std::string_view place, counter;
    const std::string* read;
    double value;
  };
  std::vector<Reading> readings;
  std::unordered_map<std::string_view, double> rate_gbps;  // port -> its link rate
  // params -> its "read" (or empty): the params are shared objects, a few per run.
  std::unordered_map<const std::string*, std::string> read_by_params;
  auto read_name = [&](const Metric& m) -> const std::string& {
    auto [it, fresh] = read_by_params.try_emplace(&m.params.dump());
    if (fresh) it->second = read_of(m);
    return it->second;
  };
  const std::size_t prefix = std::char_traits<char>::length(f.counter);
  // The family's readings, its clock and (per bit) the ports' rates, in the metrics' order.
  std::vector<const Metric*> of_family = base::items_with_prefix(by_name, f.counter);
  for (const Metric* m : f.per_bit ? base::items_named(by_name, {f.read_at, "rdma.rate_gbps"})
                                   : base::items_named(by_name, {f.read_at}))
    of_family.push_back(m);
  std::sort(of_family.begin(), of_family.end(), std::less<const Metric*>());
  of_family.erase(std::unique(of_family.begin(), of_family.end()), of_family.end());  // a clock named like a counter
  for (const Metric* mp : of_family) {
    const Metric& m = *mp;
    if (!m.value) continue;
    if (m.metric == f.read_at) {
      if (const auto& r = read_name(m); !r.empty()) read_at[m.place][r] = *m.value;
    } else if (m.metric.compare(0, prefix, f.counter) == 0) {
      if (const auto& r = read_name(m); !r.empty())
        readings.push_back({m.place, std::string_view(m.metric).substr(prefix), &r, *m.value});
    } else if (f.per_bit && m.metric == "rdma.rate_gbps") {
      rate_gbps[m.place] = *m.value;
    }
  }
  // By place, then counter (each in byte order, as the maps this replaces gave them), then
  // reading; a later equal reading wins, as the map's assignment did.
  std::stable_sort(readings.begin(), readings.end(), [](const Reading& x, const Reading& y) {
    if (x.place != y.place) return x.place < y.place;
    if (x.counter != y.counter) return x.counter < y.counter;
    return *x.read < *y.read;
  });

  for (std::size_t at = 0; at < readings.size();) {
    const std::string_view where = readings[at].place;
    std::size_t end = at;
    while (end < readings.size() && readings[end].place == where) ++end;
    const std::size_t place_begin = at;
    at = end;
    const std::string place_text(where);
    const auto h = read_at.find(place::host_of(place_text));
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
    for (std::size_t c = place_begin; c < end;) {
      const std::string_view name = readings[c].counter;
      std::optional<double> a, b;
      for (; c < end && readings[c].counter == name; ++c) {
        if (*readings[c].read == first->first) a = readings[c].value;
        if (*readings[c].read == last->first) b = readings[c].value;
      }
      if (!a || !b) continue;
      // A counter that went down was reset (or wrapped): what it holds now rose since.
      const double rise = *b >= *a ? *b - *a : *b;
      const std::string counter(name);
      out.push_back(derived(f.probe, f.rise + counter, place_text, rise, "count", Better::lower));
      any = true;
      if (std::find(f.rated.begin(), f.rated.end(), counter) == f.rated.end() || !(interval > 0)) continue;
      if (f.per_bit) {
        const auto r = rate_gbps.find(where);
        if (r != rate_gbps.end() && r->second > 0)
          out.push_back(derived(f.probe, f.rate_prefix + counter, place_text, rise / (r->second * 1e9 * interval),
                                f.rate_unit, Better::lower));
      } else {
        out.push_back(derived(f.probe, f.rate_prefix + counter, place_text, rise / interval, f.rate_unit, Better::lower));
      }
    }
    if (any) out.push_back(derived(f.probe, f.interval, place_text, interval, "s", Better::none));
  }
}

}  // namespace

std::vector<Metric> derive_rdma_counter_metrics(const std::vector<Metric>& metrics) {
  return derive_rdma_counter_metrics(metrics_by_name(metrics));
}

std::vector<Metric> derive_rdma_counter_metrics(const base::ByName<Metric>& by_name) {
  std::vector<Metric> out;
  derive_family(by_name, kRdma, out);
  derive_family(by_name, kNvLink, out);
  return out;
}

void add_rdma_counter_metrics(std::vector<Metric>& metrics) { add_in_order(metrics, derive_rdma_counter_metrics(metrics)); }

}  // namespace ga::judging
