// Where a relative bound gets its number: the cluster's own median, the majority of the
// same place on every host, the expected topology, or a feature of the place's own host.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include "base/quantity.hpp"
#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga::judging {

Facts gather_facts(const JournalData& j, const std::vector<ProbeSummary>& probes) {
  Facts f;
  f.journal = &j;
  std::unordered_set<std::string> seen;
  for (const auto& r : j.ranks)
    if (seen.insert(r.host).second) f.hosts.push_back(r.host);
  if (f.hosts.empty())  // a journal without ranks still has hosts in its topology records
    for (const auto& h : j.topology.hosts) f.hosts.push_back(h.hostname);
  std::sort(f.hosts.begin(), f.hosts.end(), place_less);
  for (const auto& h : j.topology.hosts)
    if (!f.topology.count(h.hostname)) {
      f.topology[h.hostname] = &h;
      f.features[h.hostname] = topo::features(h);
    }
  if (j.expected_topology) f.expected = topo::features(*j.expected_topology);
  for (const auto& p : probes) {
    f.probes[p.name] = &p;  // a probe run twice: the last run counts, as in the journal
    auto& per_host = f.outcomes[p.name];
    per_host.clear();
    for (const auto& [host, o] : host_outcomes(p)) per_host[host] = o;
  }
  return f;
}

void add_kernel_mates(Facts& f, const std::vector<RankInfo>& ranks, const base::ByName<Metric>& by_name) {
  std::map<std::string, std::set<std::string>> by_kernel;
  for (const auto& r : ranks)
    if (!r.boot_id.empty() && !r.host.empty()) by_kernel[r.boot_id].insert(r.host);
  for (const Metric* mp : base::items_named(by_name, {"inventory.boot_id"}))
    if (const Metric& m = *mp; m.text && !m.text->empty() && place::kind(m.place) == place::Kind::host)
      by_kernel[*m.text].insert(m.place);
  for (auto& [id, host_set] : by_kernel) {
    if (host_set.size() < 2) continue;
    std::vector<std::string> hosts(host_set.begin(), host_set.end());
    std::sort(hosts.begin(), hosts.end(), place_less);
    for (const auto& h : hosts) {
      auto& mates = f.kernel_mates[h];
      for (const auto& o : hosts)
        if (o != h) mates.push_back(o);
    }
  }
}

std::string relative_place(const std::string& p) { return place::subplace(Place::parse(p)); }

const topo::Feature* find_feature(const std::vector<topo::Feature>& fs, const std::string& sub,
                                  const std::string& metric) {
  for (const auto& f : fs)
    if (f.subplace == sub && f.metric == metric) return &f;
  return nullptr;
}

std::string plural_of_kind(const std::string& p) {
  switch (place::kind(p)) {
    case place::Kind::host: return "hosts";
    case place::Kind::gpu: return "GPUs";
    case place::Kind::nic: return "NICs";
    case place::Kind::numa: return "NUMA nodes";
    case place::Kind::pair: return "pairs";
    default: return "places";
  }
}

namespace {

std::string fraction_of(double fraction, const std::string& what) {
  return fraction == 1.0 ? what : base::format_number(fraction) + " x " + what;
}

Resolved unusable(VerdictStatus s, std::string why) {
  Resolved r;
  r.unusable = s;
  r.why = std::move(why);
  return r;
}

// Scales a reference quantity into the bound, converting units (a NIC rate in Gb/s against
// a bandwidth in B/s) so that criteria can be written in the units vendors quote.
Resolved scaled(const Bound& b, double ref, const std::string& ref_unit, const Metric& m, const std::string& name) {
  auto factor = base::unit_factor(ref_unit, m.unit);
  if (!factor)
    return unusable(VerdictStatus::tool_error,
                    "cannot compare " + m.metric + " in " + m.unit + " with " + name + " in " + ref_unit);
  Resolved r;
  r.reference = ref * *factor;
  r.number = *r.reference * b.fraction;
  r.said = fraction_of(b.fraction, name + " " + base::format_quantity(ref, ref_unit));
  if (b.fraction != 1.0) r.said += " = " + base::format_quantity(*r.number, m.unit);
  return r;
}

}  // namespace

BoundResolver::BoundResolver(const Facts& facts, const std::vector<const Metric*>& selected)
    : facts_(facts), selected_(selected) {
  std::vector<double> values;
  for (const Metric* m : selected_)
    if (m->value) values.push_back(*m->value);
  if (!values.empty()) median_ = judging::median(values);
  for (std::size_t i = 0; i < selected_.size(); ++i) groups_[group_key(*selected_[i])].push_back(i);
}

std::optional<double> BoundResolver::mad() const {
  if (!mad_) {
    std::vector<double> dev;
    if (median_)
      for (const Metric* m : selected_)
        if (m->value) dev.push_back(std::fabs(*m->value - *median_));
    mad_ = dev.empty() ? std::nullopt : std::optional<double>(judging::median(std::move(dev)));
  }
  return *mad_;
}

std::string BoundResolver::group_key(const Metric& m) {
  return relative_place(m.place) + '\x1f' + m.params.dump();
}

const BoundResolver::Vote& BoundResolver::vote(const Metric& m) const {
  const bool numeric = m.value.has_value();
  const std::string key = group_key(m);
  const std::string memo = (numeric ? "n" : "t") + key;
  if (auto it = votes_.find(memo); it != votes_.end()) return it->second;
  struct Tally {
    int count = 0;
    std::size_t first = 0;  // index of the first (lowest-sorted) place with this value
  };
  std::map<std::string, Tally> tally;  // value key -> tally
  std::map<std::string, double> numbers;
  Vote v;
  if (auto g = groups_.find(key); g != groups_.end()) {
    for (std::size_t i : g->second) {
      const Metric* o = selected_[i];
      if (numeric ? !o->value : !o->text) continue;
      std::string k = numeric ? nlohmann::json(*o->value).dump() : *o->text;
      if (numeric) numbers[k] = *o->value;
      auto [it, fresh] = tally.try_emplace(k);
      if (fresh) it->second.first = i;
      ++it->second.count;
      ++v.total;
    }
  }
  const Tally* best = nullptr;
  for (const auto& [k, t] : tally)
    if (!best || t.count > best->count || (t.count == best->count && t.first < best->first)) {
      best = &t;
      v.best_key = k;
    }
  if (best) {
    v.best_count = best->count;
    v.best_place = selected_[best->first]->place;
    for (const auto& [k, t] : tally) v.tied += t.count == best->count;
    if (numeric) v.best_number = numbers[v.best_key];
  }
  return votes_.emplace(memo, std::move(v)).first->second;
}

Resolved BoundResolver::resolve(const Bound& b, const Metric& m) const {
  if (b.of.empty()) {
    Resolved r;
    r.number = b.number;
    r.text = b.text;
    r.said = b.number ? base::format_quantity(*b.number, m.unit) : "\"" + b.text.value_or("") + "\"";
    return r;
  }
  if (b.of == "median") {
    if (!median_) return unusable(VerdictStatus::tool_error, m.metric + " has no numeric values to take a median of");
    Resolved r;
    r.reference = median_;
    r.number = *median_ * b.fraction;
    r.said = fraction_of(b.fraction, "the cluster median " + base::format_quantity(*median_, m.unit));
    if (b.fraction != 1.0) r.said += " = " + base::format_quantity(*r.number, m.unit);
    return r;
  }
  if (b.of == "majority") return majority(b, m);
  if (b.of == "expected") return expected(b, m);
  return topology_feature(b, m);
}

Resolved BoundResolver::majority(const Bound& b, const Metric& m) const {
  // The same position on every host (gpu:3 with gpu:3, the host with the host) and the same
  // params: GPUs 0-3 on NUMA 0 and 4-7 on NUMA 1 is one healthy layout, not a split vote.
  const bool numeric = m.value.has_value();
  const Vote& vt = vote(m);
  if (vt.total == 0) return unusable(VerdictStatus::tool_error, "no value to take a majority of");
  Resolved r;
  const std::string kinds = plural_of_kind(m.place);
  std::string count = std::to_string(vt.best_count) + " of " + std::to_string(vt.total) + " " + kinds;
  if (vt.tied > 1)
    count = "tie: " + std::to_string(vt.best_count) + " of " + std::to_string(vt.total) + " " + kinds +
            " each; took the value of " + vt.best_place + ", first in order";
  if (numeric) {
    const double v = *vt.best_number;
    r.reference = v;
    r.number = v * b.fraction;
    r.said = fraction_of(b.fraction, "the majority " + base::format_quantity(v, m.unit)) + " (" + count + ")";
  } else {
    if (b.fraction != 1.0)
      return unusable(VerdictStatus::tool_error, "a fraction of the majority of a text metric means nothing");
    r.reference_text = vt.best_key;
    r.text = vt.best_key;
    r.said = "the majority \"" + vt.best_key + "\" (" + count + ")";
  }
  return r;
}

Resolved BoundResolver::expected(const Bound& b, const Metric& m) const {
  if (!facts_.expected) return unusable(VerdictStatus::skipped, "no --expect-topology given");
  if (place::kind(m.place) == place::Kind::pair && place::host_of(m.place).empty())
    return unusable(VerdictStatus::skipped, "the expected topology is one host; " + m.place + " spans two");
  const std::string rel = relative_place(m.place);
  const topo::Feature* f = find_feature(*facts_.expected, rel, m.metric);
  if (!f) {
    for (const auto& e : *facts_.expected)
      if (e.metric == m.metric)
        return unusable(VerdictStatus::fail, (rel.empty() ? "this host" : rel) + " is not in the expected topology");
    return unusable(VerdictStatus::skipped, "the expected topology does not state " + m.metric);
  }
  if (f->text || !f->value) {
    if (m.value) return unusable(VerdictStatus::tool_error, "the expected " + m.metric + " is text, the measured one a number");
    if (b.fraction != 1.0) return unusable(VerdictStatus::tool_error, "a fraction of an expected text means nothing");
    Resolved r;
    r.text = r.reference_text = f->text.value_or("");
    r.said = "the expected \"" + *r.text + "\" (--expect-topology)";
    return r;
  }
  Resolved r = scaled(b, *f->value, f->unit, m, "the expected");
  if (!r.unusable) r.said += " (--expect-topology)";
  return r;
}

Resolved BoundResolver::topology_feature(const Bound& b, const Metric& m) const {
  // A pair is bounded by its slower end, so a feature of a pair across hosts is the lower
  // of the two hosts' values.
  const Place whole = Place::parse(m.place);
  const std::vector<Place> sides = whole.kind == place::Kind::pair ? whole.ends : std::vector<Place>{whole};
  std::optional<double> best;
  std::string unit, where;
  for (const auto& side : sides) {
    const std::string host = place::host_of(side);
    if (host.empty()) return unusable(VerdictStatus::skipped, b.of + " needs a place on a host, not " + m.place);
    auto it = facts_.features.find(host);
    if (it == facts_.features.end())
      return unusable(VerdictStatus::skipped, "no topology recorded for host " + host + " to read " + b.of);
    const std::string rel = place::subplace(side);
    // The place's own value (a NIC's rate), else the host's, else the lowest on the host
    // (a GPU pair bounded by NIC rate: the slowest NIC is what the pair can count on).
    const topo::Feature* f = find_feature(it->second, rel, b.of);
    if (!f) f = find_feature(it->second, "", b.of);
    if (!f)
      for (const auto& x : it->second)
        if (x.metric == b.of && x.value && (!f || *x.value < *f->value)) f = &x;
    if (!f) return unusable(VerdictStatus::skipped, "host " + host + "'s topology does not state " + b.of);
    if (!f->value) return unusable(VerdictStatus::tool_error, b.of + " is text; a bound needs a number");
    if (!best || *f->value < *best) {
      best = *f->value;
      unit = f->unit;
      where = place::on_host(host, f->subplace);
    }
  }
  return scaled(b, *best, unit, m, b.of + " of " + where);
}

}  // namespace ga::judging
