// The judge: journal + criteria -> verdicts. Pure: everything it says follows from its two
// arguments, so the live run and `gpuaccept judge DIR` agree byte for byte.
#include "suites/judge.hpp"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/both.hpp"
#include "base/group_by_name.hpp"
#include "base/prefault.hpp"
#include "base/quantity.hpp"
#include "suites/fabric_analysis.hpp"
#include "suites/fabric_groups.hpp"
#include "suites/rdma_rates.hpp"
#include "suites/judge_parts.hpp"
#include "suites/pass_fold.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

using judging::BoundResolver;
using judging::Facts;
using judging::Resolved;

// Numbers equal within one part in 1e9 count as equal, and bounds get the same slack, so a
// value that is exactly the bound passes even after 0.9 x 50e9 rounding.
constexpr double kRelTolerance = 1e-9;
double tolerance(double a, double b) { return kRelTolerance * std::max(std::fabs(a), std::fabs(b)); }

bool uses(const Criterion& c, const std::string& of) {
  return c.value.of == of || c.low.of == of || c.high.of == of;
}

bool is_glob(const std::string& metric) { return !metric.empty() && metric.back() == '*'; }

bool where_matches(const nlohmann::json& where, const nlohmann::json& params) {
  for (const auto& [k, v] : where.items())
    if (!params.contains(k) || params.at(k) != v) return false;
  return true;
}

std::string value_text(const Metric& m) {
  if (m.value) return base::format_quantity(*m.value, m.unit);
  return "\"" + m.text.value_or("") + "\"";
}

// How far v is from a reference, as people say it: "41.4% below".
std::string percent_off(double v, double ref, const char* below, const char* above) {
  if (ref == 0) return v < ref ? below : above;
  return base::format_number(std::fabs(v - ref) / std::fabs(ref) * 100) + "% " + (v < ref ? below : above);
}

// The metrics of a judgement by name (metrics_by_name), built once: every criterion looks at its
// own metrics only, not all of them, and the judges of every thread share it.
using MetricsByName = base::ByName<Metric>;  // in the metrics' order

// Judges one criterion at a time. Reads the facts, the metrics and their index and never
// writes them, so one judge per thread can run criteria side by side (judge_criteria).
class CriterionJudge {
 public:
  CriterionJudge(const Facts& facts, const std::vector<Metric>& metrics, const MetricsByName& by_name,
                 const MetricCatalogue* catalogue, const CriteriaSet& criteria)
      : facts_(facts), metrics_(metrics), catalogue_(catalogue), by_name_(by_name),
        users_(criteria.source.rfind("builtin", 0) != 0) {}

  // Appends the criterion's verdicts to `out`, where they stay: at 4096 hosts a criterion
  // has up to a few hundred thousand, each once moved between vectors cost a page fault's
  // share of fresh memory.
  // With a `folder`, the passes it folds are folded as each metric's are made (PassFolder).
  void judge(const Criterion& c, std::vector<Verdict>& out, judging::PassFolder* folder = nullptr) const {
    if (uses(c, "expected") && !facts_.expected) {
      // Without a stated topology there is nothing to hold the hosts against; the majority
      // criteria still compare them with each other.
      Verdict v = base(c, c.metric, place::cluster());
      v.status = VerdictStatus::skipped;
      v.reason = "no --expect-topology given: nothing to compare " + c.metric + " with";
      out.push_back(std::move(v));
      return;
    }
    for (const auto& name : metric_names(c)) {
      const std::size_t start = out.size();
      judge_metric(c, name, out, folder);
      sort_by_place(out, start);
    }
  }

  // The metrics come sorted by place, so the verdicts mostly do too: sort only when not.
  static void sort_by_place(std::vector<Verdict>& out, std::size_t start) {
    auto less = [](const Verdict& a, const Verdict& b) {
      if (a.place != b.place) return judging::place_less(a.place, b.place);
      return a.params.dump() < b.params.dump();
    };
    const auto part = out.begin() + static_cast<std::ptrdiff_t>(start);
    if (!std::is_sorted(part, out.end(), less)) std::stable_sort(part, out.end(), less);
  }

 private:
  // `inventory.version.*` stands for every metric with that prefix that was measured (or,
  // for criteria against the expected topology, that the expected topology states).
  std::vector<std::string> metric_names(const Criterion& c) const {
    if (!is_glob(c.metric)) return {c.metric};
    const std::string prefix = c.metric.substr(0, c.metric.size() - 1);
    std::set<std::string> names;
    for (auto it = by_name_.lower_bound(prefix); it != by_name_.end() && it->first.rfind(prefix, 0) == 0; ++it)
      names.insert(it->first);
    if (uses(c, "expected") && facts_.expected)
      for (const auto& f : *facts_.expected)
        if (f.metric.rfind(prefix, 0) == 0) names.insert(f.metric);
    if (names.empty()) return {c.metric};
    return {names.begin(), names.end()};
  }

  std::size_t index_of(const Metric& m) const { return static_cast<std::size_t>(&m - metrics_.data()); }

  Verdict base(const Criterion& c, const std::string& metric, const std::string& place) const {
    Verdict v;
    v.criterion = c.name;
    v.metric = metric;
    v.place = place;
    v.severity = c.severity;
    return v;
  }

  // The probe that owns a metric: its declaration's; else a measured sample's; else (unit tests
  // of the judge without a catalogue, metrics no one produced) the part of its name before '.'.
  std::string probe_of(const std::string& metric) const {
    if (catalogue_)
      if (const DeclaredMetric* d = catalogue_->find(metric)) return d->probe;
    if (auto it = by_name_.find(metric); it != by_name_.end())
      for (const Metric* m : it->second)
        if (!m->probe.empty()) return m->probe;
    return metric.substr(0, metric.find('.'));
  }

  // Why the expected topology makes this criterion's metric required, or "" when it does not.
  std::string expected_requires(const Criterion& c, const std::string& metric) const {
    if (c.required != Required::automatic || !facts_.journal->expected_topology) return {};
    const auto& e = *facts_.journal->expected_topology;
    if (c.scope == "gpu" && !e.gpus.empty())
      return "the expected topology has " + std::to_string(e.gpus.size()) + " GPUs";
    if (c.scope == "nic" && !e.nics.empty())
      return "the expected topology has " + std::to_string(e.nics.size()) + " NICs";
    if (metric.rfind("topology.", 0) == 0)
      for (const auto& f : *facts_.expected)
        if (f.metric == metric) return "the expected topology states it";
    return {};
  }

  // A required metric absent because the probe broke on that host is the tool's failure, not
  // the host's: never drain on it.
  VerdictStatus absent_status(const std::string& probe, const std::string& host) const {
    auto p = facts_.outcomes.find(probe);
    if (p == facts_.outcomes.end()) return VerdictStatus::missing;
    auto h = p->second.find(host);
    return h != p->second.end() && h->second.status == ProbeStatus::error ? VerdictStatus::tool_error
                                                                           : VerdictStatus::missing;
  }

  // Whether the metric's declaration makes its absence where its probe ran "unjudged"
  // (MetricDecl::absent_unjudged): a figure the probe could not derive there.
  bool unjudged_when_absent(const std::string& metric) const {
    if (!catalogue_) return false;
    const DeclaredMetric* d = catalogue_->find(metric);
    return d && d->decl.absent_unjudged;
  }

  // absent_status for a metric: where its probe ran fine and its declaration says an absence
  // is unjudged, the verdict is inconclusive, not missing: no node lacks anything.
  VerdictStatus absent_status(const std::string& probe, const std::string& host, const std::string& metric) const {
    const VerdictStatus st = absent_status(probe, host);
    if (st != VerdictStatus::missing || !unjudged_when_absent(metric)) return st;
    auto p = facts_.outcomes.find(probe);
    if (p == facts_.outcomes.end()) return st;
    auto h = p->second.find(host);
    return h != p->second.end() && h->second.status == ProbeStatus::ok ? VerdictStatus::inconclusive : st;
  }

  // What the probe did on one host, as a clause for a missing verdict's reason.
  std::string probe_clause(const std::string& probe, const std::string& host) const {
    auto p = facts_.outcomes.find(probe);
    if (p == facts_.outcomes.end()) return "probe " + probe + " did not run";
    auto h = p->second.find(host);
    if (h == p->second.end()) return "probe " + probe + " reported nothing from this host";
    const auto& o = h->second;
    const std::string why = o.reason.empty() ? "" : ": " + o.reason;
    switch (o.status) {
      case ProbeStatus::skipped: return "probe " + probe + " was skipped here" + why;
      case ProbeStatus::failed: return "probe " + probe + " failed here" + why;
      case ProbeStatus::error: return "probe " + probe + " broke here (a tool error)" + why;
      case ProbeStatus::timeout: return "probe " + probe + " timed out here";
      case ProbeStatus::ok: return "probe " + probe + " ran but produced none here" + why;
    }
    return {};
  }

  void judge_metric(const Criterion& c, const std::string& name, std::vector<Verdict>& out,
                    judging::PassFolder* folder) const {
    const std::size_t start = out.size();
    std::vector<const Metric*> selected;
    if (auto it = by_name_.find(name); it != by_name_.end())
      for (const Metric* m : it->second) {
        if (!c.scope.empty() && place::to_string(place::kind(m->place)) != c.scope) continue;
        if (!where_matches(c.where, m->params)) continue;
        selected.push_back(m);
      }
    const std::string by_expected = expected_requires(c, name);
    const std::string required_why = c.required == Required::yes ? "the criteria require it" : by_expected;
    if (selected.empty()) return absent_everywhere(c, name, required_why, out);

    // Against the cluster median, places on hosts that share one kernel are not independent
    // evidence against each other: they share its CPUs, memory bus and devices, so one slow
    // moment shows on all of them at once (fake hosts on one machine failed each other's
    // hostmem.triad.uniform). Such places are not compared (skipped, saying why); the
    // median is taken over the hosts with a kernel of their own.
    // A network namespace's own counters (MetricDecl::per_network_namespace) are the exception:
    // fake hosts share a kernel, not a network stack.
    std::vector<const Metric*> compared = selected;
    const DeclaredMetric* decl = catalogue_ ? catalogue_->find(name) : nullptr;
    const bool own_network = decl && decl->decl.per_network_namespace;
    if (!own_network && (c.comparator == Comparator::within_pct_of_median || c.comparator == Comparator::mad_outlier ||
                         uses(c, "median"))) {
      compared.clear();
      for (const Metric* m : selected) {
        const std::string host = place::host_of(m->place);
        auto it = host.empty() ? facts_.kernel_mates.end() : facts_.kernel_mates.find(host);
        if (it == facts_.kernel_mates.end()) {
          compared.push_back(m);
          continue;
        }
        Verdict v = base(c, m->metric, m->place);
        v.metric_index = index_of(*m);
        v.params = m->params, v.unit = m->unit, v.value = m->value, v.text = m->text;
        v.status = VerdictStatus::skipped;
        v.reason = m->metric + " not held against the cluster median: " + host + " shares one kernel (boot_id) with " +
                   judging::list_text(it->second, 3) +
                   ", so they share its CPUs and memory and are not independent evidence against each other";
        out.push_back(std::move(v));
      }
    }
    BoundResolver resolver(facts_, compared);
    const std::size_t first = out.size();
    const auto not_the_node = decl ? decl->decl.not_the_node : MetricDecl::NotTheNode::none;
    for (const Metric* m : compared) {
      // A pass the folder will count needs no words: only its fold's worst is shown (remade below).
      const bool reasons = !folder || !folder->folds(name, m->place, true);
      Verdict v = evaluate(c, *m, resolver, reasons);
      v.metric_index = index_of(*m);
      // A probe may explain a value in params.reason ("STA_UNSYNC set, no time daemon"); a
      // verdict that does not pass carries that explanation, so the report says why.
      if (v.status != VerdictStatus::pass && v.status != VerdictStatus::skipped) {
        auto it = m->params.find("reason");
        if (it != m->params.end() && it->is_string() && !it->get<std::string>().empty())
          v.reason += ": " + it->get<std::string>();
      }
      // The run's own configuration chose what failed (NCCL_IB_DISABLE=1 in its environment):
      // the probe names the setting in params.configured_by, and no node is blamed for it.
      if (v.status == VerdictStatus::fail && not_the_node != MetricDecl::NotTheNode::none) {
        auto it = m->params.find("configured_by");
        if (it != m->params.end() && it->is_string() && !it->get<std::string>().empty())
          not_the_nodes(v, "chosen by this run's own " + it->get<std::string>() + ", not a node fault; ", not_the_node);
      }
      out.push_back(std::move(v));
    }
    if (not_the_node != MetricDecl::NotTheNode::none) settle_everywhere(out, first, not_the_node);
    if (c.required != Required::no) absent_somewhere(c, name, selected, by_expected, out);
    if (folder) {
      sort_by_place(out, start);  // in the order they are listed, so the fold's worst is the one a list shows first
      folder->take(out, true, start, [&](Verdict& v) { v.reason = evaluate(c, metrics_[v.metric_index], resolver, true).reason; });
    }
  }

  // A failure that is not the node's (MetricDecl::NotTheNode): a tool error, or a warning
  // that never fails the run; `why` goes before the reason.
  static void not_the_nodes(Verdict& v, const std::string& why, MetricDecl::NotTheNode n) {
    v.reason = why + v.reason;
    if (n == MetricDecl::NotTheNode::tool_error) v.status = VerdictStatus::tool_error;
    else v.severity = Severity::warning;
  }

  // A criterion on a metric that fails at every host where it was judged, two or more, with
  // no host passing: the run's environment (a plugin none of them loads), not each node's.
  // Where one host passes, the others are faults.
  static void settle_everywhere(std::vector<Verdict>& out, std::size_t first, MetricDecl::NotTheNode n) {
    std::set<std::string> failing, judged;
    for (std::size_t i = first; i < out.size(); ++i) {
      const Verdict& v = out[i];
      if (v.status != VerdictStatus::pass && v.status != VerdictStatus::fail) continue;
      const std::string host = place::host_of(v.place);
      judged.insert(host);
      if (v.status == VerdictStatus::fail) failing.insert(host);
    }
    if (judged.size() < 2 || failing.size() != judged.size()) return;
    const std::string why = "failed on every host it was judged on (" + std::to_string(judged.size()) +
                            "): the run's environment (a library, plugin or setting none of them has), not a node fault; ";
    for (std::size_t i = first; i < out.size(); ++i)
      if (out[i].status == VerdictStatus::fail && out[i].reason.rfind("chosen by this run's own", 0) != 0)
        not_the_nodes(out[i], why, n);
  }

  // The rule for absent things, when no place produced the metric at all.
  void absent_everywhere(const Criterion& c, const std::string& name, const std::string& required_why,
                         std::vector<Verdict>& out) const {
    const std::string probe = probe_of(name);
    if (!required_why.empty()) {
      // Against an expected topology, name every place it states (HOST/gpu:0..7), so the
      // report says which GPUs or NICs are absent, not only that the host lacks some.
      std::vector<std::string> places;
      if (uses(c, "expected") && facts_.expected)
        for (const auto& h : facts_.hosts)
          for (const auto& f : *facts_.expected)
            if (f.metric == name) places.push_back(f.subplace.empty() ? h : h + "/" + f.subplace);
      if (places.empty()) places = facts_.hosts;
      if (places.empty()) places.push_back(place::cluster());
      for (const auto& h : places) {
        Verdict v = base(c, name, h);
        v.status = absent_status(probe, place::host_of(h), name);
        v.reason = "no host produced " + name + ", and " + required_why + "; " + probe_clause(probe, place::host_of(h));
        out.push_back(std::move(v));
      }
      return;
    }
    Verdict v = base(c, name, place::cluster());
    v.status = VerdictStatus::skipped;
    auto p = facts_.probes.find(probe);
    if (p == facts_.probes.end()) {
      v.reason = facts_.journal->run_ended ? "probe " + probe + " is not in this run's suite"
                                           : "probe " + probe + " did not run before the run stopped";
    } else {
      const ProbeSummary& s = *p->second;
      switch (s.status) {
        case ProbeStatus::skipped: {
          // The probe's own words (usually one reason for every host): "no NVIDIA GPU on the PCI bus".
          std::vector<std::string> reasons;
          for (const auto& o : s.per_rank)
            if (!o.reason.empty() && std::find(reasons.begin(), reasons.end(), o.reason) == reasons.end())
              reasons.push_back(o.reason);
          for (const auto& r : reasons) v.reason += (v.reason.empty() ? "" : "; ") + r;
          if (v.reason.empty()) v.reason = "probe " + probe + " was skipped";
          break;
        }
        case ProbeStatus::failed: v.reason = "no " + name + ": probe " + probe + " failed (" + s.reason + ")"; break;
        case ProbeStatus::error:
          v.reason = "no " + name + ": probe " + probe + " broke, a tool error (" + s.reason + ")";
          break;
        case ProbeStatus::timeout: v.reason = "no " + name + ": probe " + probe + " did not finish"; break;
        case ProbeStatus::ok:
          v.reason = "probe " + probe + " produced no " + name;
          if (!c.scope.empty()) v.reason += " at scope " + c.scope;
          if (!c.where.empty()) v.reason += " with " + c.where.dump();
          // A clause of the user's own (not a shipped criterion as shipped) that selects nothing
          // where its probe ran is unconfirmed, never skipped into a pass (issue 32). The shipped
          // ones name metrics a probe emits only where they apply (an isolation pass that ran).
          if (unjudged_when_absent(name)) {
            // A gate the probe could not apply (no peak for the GPU model): unjudged, so
            // inconclusive, with the probe's own words on why.
            v.status = VerdictStatus::inconclusive;
            std::vector<std::string> said;
            for (const auto& o : s.per_rank)
              if (o.reason.find(name) != std::string::npos && std::find(said.begin(), said.end(), o.reason) == said.end())
                said.push_back(o.reason);
            v.reason += ", though the probe ran: it could not derive it";
            for (std::size_t i = 0; i < said.size() && i < 3; ++i) v.reason += (i ? "; " : " (") + said[i];
            if (!said.empty()) v.reason += said.size() > 3 ? "; ...)" : ")";
          } else if (users_ && !shipped_criterion(c)) {
            v.status = VerdictStatus::inconclusive;
            v.reason += ", though the probe ran: this criterion selected nothing, so its clause is unjudged (check its "
                        "scope and where against `gpuaccept list --metrics`)";
          }
          break;
      }
    }
    out.push_back(std::move(v));
  }

  // The rule for absent things, when some places produced the metric and others that should
  // have did not: every host for host metrics, every GPU/NIC/NUMA node in a host's topology
  // for those, and every place the expected topology states for criteria against it.
  void absent_somewhere(const Criterion& c, const std::string& name, const std::vector<const Metric*>& selected,
                        const std::string& by_expected, std::vector<Verdict>& out) const {
    std::string scope = c.scope;
    if (scope.empty()) {
      scope = place::to_string(place::kind(selected.front()->place));
      for (const Metric* m : selected)
        if (place::to_string(place::kind(m->place)) != scope) return;  // mixed kinds: no one shape to expect
    }
    // What is there, as views into the metrics' places. At 4096 hosts a criterion on GPUs or
    // NICs wants ~33 k places and nearly all are there: a wanted place that is present is
    // dropped as it is named, and the reasons (one of a few per criterion) are made once.
    std::unordered_set<std::string_view> present;
    std::unordered_set<std::string> hosts_present;
    present.reserve(selected.size());
    const std::string* last_host = nullptr;
    for (const Metric* m : selected) {
      present.insert(m->place);
      std::string host = place::host_of(m->place);  // the metrics come by place: mostly the last one's host
      if (!last_host || *last_host != host) last_host = &*hosts_present.insert(std::move(host)).first;
    }
    auto there = [&](const std::string& p) {
      return present.count(p) || (scope != "host" && hosts_present.count(p) && place::kind(p) == place::Kind::host);
    };
    std::vector<std::pair<std::string, const std::string*>> want;  // place, why it should be there
    std::unordered_set<std::string> wanted;                          // the places in want, for the dedup
    auto add = [&](const std::string& p, const std::string& why) {
      if (!there(p) && wanted.insert(p).second) want.emplace_back(p, &why);
    };
    const std::string others = "other " + judging::plural_of_kind(selected.front()->place) + " have it (" +
                               std::to_string(present.size()) + ")";
    const std::string no_topology = others + "; no topology recorded for this host";
    const std::string in_topology = "it is in this host's topology and " + others;
    const std::string none_shown = by_expected + ", this host shows no " + scope;
    const std::string stated = "the expected topology states it";
    for (const auto& host : facts_.hosts) {
      if (scope == "host") {
        add(host, others);
      } else if (scope == "gpu" || scope == "nic" || scope == "numa") {
        auto t = facts_.topology.find(host);
        if (t == facts_.topology.end()) {
          if (!hosts_present.count(host)) add(host, no_topology);
        } else {
          const topo::HostTopology& h = *t->second;
          bool any = false;
          if (scope == "gpu")
            for (const auto& g : h.gpus) add(place::gpu(host, g.index), in_topology), any = true;
          if (scope == "nic")
            for (const auto& n : h.nics) add(place::nic(host, n.name), in_topology), any = true;
          if (scope == "numa")
            for (const auto& n : h.numa_nodes) add(place::numa(host, n.os_index), in_topology), any = true;
          if (!any && !by_expected.empty() && !hosts_present.count(host)) add(host, none_shown);
        }
      }
      if (uses(c, "expected") && facts_.expected)
        for (const auto& f : *facts_.expected)
          if (f.metric == name) add(f.subplace.empty() ? host : host + "/" + f.subplace, stated);
    }
    const std::string probe = probe_of(name);
    for (const auto& [p, why] : want) {
      Verdict v = base(c, name, p);
      v.status = absent_status(probe, place::host_of(p), name);
      v.reason = "no " + name + " from " + p + ": " + *why + "; " + probe_clause(probe, place::host_of(p));
      out.push_back(std::move(v));
    }
  }

  // `reasons` false: a pass gets no reason text (the folder counts it; PassFolder::take).
  Verdict evaluate(const Criterion& c, const Metric& m, const BoundResolver& r, bool reasons) const {
    Verdict v = base(c, m.metric, m.place);
    v.params = m.params;
    v.unit = m.unit;
    v.value = m.value;
    v.text = m.text;
    auto error = [&](const std::string& why) {
      v.status = VerdictStatus::tool_error;
      v.reason = why;
      return v;
    };
    // The probe took the measurement and could not tell its value (NCCL's log named no
    // network): suspicion neither confirmed nor cleared, so inconclusive, with its words.
    if (auto u = m.params.find("undetermined"); u != m.params.end() && u->is_string()) {
      v.status = VerdictStatus::inconclusive;
      v.reason = m.metric + " could not be determined: " + u->get<std::string>();
      return v;
    }
    if (!c.unit.empty() && m.unit != c.unit)
      return error(m.metric + " is in " + m.unit + ", the criterion expects " + c.unit);
    if (m.not_completed) {
      // Nothing to compare: the measurement itself is what failed, and the reason says which.
      // The bound is still shown, so the report says what it would have been held against.
      v.not_completed = m.not_completed;
      v.status = VerdictStatus::fail;
      v.reason = m.metric + " did not complete (" + *m.not_completed + ")";
      if (c.comparator == Comparator::ge || c.comparator == Comparator::le || c.comparator == Comparator::equals) {
        const Resolved b = r.resolve(c.value, m);
        if (!b.unusable && b.number)
          v.bounds = shared_bounds("value", to_string(c.comparator), {*b.number},
                                   [&] { return nlohmann::json{{"op", to_string(c.comparator)}, {"value", *b.number}}; });
      }
      return v;
    }
    if (!m.value && c.comparator != Comparator::equals)
      return error(m.metric + " is text; compare: " + std::string(to_string(c.comparator)) + " needs a number");

    if (c.comparator == Comparator::within_pct_of_median) return within(c, m, r, v, reasons);
    if (c.comparator == Comparator::mad_outlier) return mad_outlier(c, m, r, v, reasons);
    if (c.comparator == Comparator::between) return between(c, m, r, v, reasons);

    Resolved b = r.resolve(c.value, m);
    if (b.unusable) {
      v.status = *b.unusable;
      v.reason = m.metric + ": " + b.why;
      return v;
    }
    v.reference = b.reference;
    v.reference_text = b.reference_text;
    const std::string op = to_string(c.comparator);
    if (c.comparator == Comparator::equals && !m.value) {
      if (!b.text) return error(m.metric + " is text; quote the value in the criteria to compare it as text");
      v.bounds = shared_bounds({{"op", op}, {"text", *b.text}});
      const bool ok = *m.text == *b.text;
      v.status = ok ? VerdictStatus::pass : VerdictStatus::fail;
      if (ok && !reasons) return v;
      v.reason = m.metric + " is " + value_text(m) + (ok ? ", equal to " : ", not ") + b.said;
      return v;
    }
    if (!b.number) return error(m.metric + " is a number; the criterion compares it with text " + b.said);
    const double x = *m.value, bound = *b.number, tol = tolerance(x, bound);
    v.bounds = shared_bounds("value", op, {bound}, [&] { return nlohmann::json{{"op", op}, {"value", bound}}; });
    bool ok = false;
    switch (c.comparator) {
      case Comparator::ge: ok = x >= bound - tol; break;
      case Comparator::le: ok = x <= bound + tol; break;
      default: ok = std::fabs(x - bound) <= tol; break;  // equals
    }
    v.status = ok ? VerdictStatus::pass : VerdictStatus::fail;
    if (ok && !reasons) return v;
    switch (c.comparator) {
      case Comparator::ge:
        v.reason = m.metric + " " + value_text(m) +
                   (ok ? " >= " + b.said : " is " + percent_off(x, bound, "below", "above") + " the floor " + b.said);
        break;
      case Comparator::le:
        v.reason = m.metric + " " + value_text(m) +
                   (ok ? " <= " + b.said
                       : " is " + percent_off(x, bound, "below", "above") + " the ceiling " + b.said);
        break;
      default:  // equals
        v.reason = m.metric + " is " + value_text(m) + (ok ? ", equal to " : ", not ") + b.said;
        break;
    }
    return v;
  }

  Verdict between(const Criterion& c, const Metric& m, const BoundResolver& r, Verdict v, bool reasons) const {
    Resolved lo = r.resolve(c.low, m), hi = r.resolve(c.high, m);
    for (const Resolved* b : {&lo, &hi})
      if (b->unusable) {
        v.status = *b->unusable;
        v.reason = m.metric + ": " + b->why;
        return v;
      }
    if (!lo.number || !hi.number) {
      v.status = VerdictStatus::tool_error;
      v.reason = m.metric + ": between needs numeric bounds";
      return v;
    }
    v.reference = lo.reference ? lo.reference : hi.reference;
    const double x = *m.value;
    v.bounds = shared_bounds("between", "", {*lo.number, *hi.number}, [&] {
      return nlohmann::json{{"op", "between"}, {"low", *lo.number}, {"high", *hi.number}};
    });
    const bool low_ok = x >= *lo.number - tolerance(x, *lo.number);
    const bool high_ok = x <= *hi.number + tolerance(x, *hi.number);
    v.status = low_ok && high_ok ? VerdictStatus::pass : VerdictStatus::fail;
    if (low_ok && high_ok && !reasons) return v;
    const std::string range = "[" + lo.said + ", " + hi.said + "]";
    if (!low_ok) v.reason = m.metric + " " + value_text(m) + " is below " + range;
    else if (!high_ok) v.reason = m.metric + " " + value_text(m) + " is above " + range;
    else v.reason = m.metric + " " + value_text(m) + " is within " + range;
    return v;
  }

  Verdict within(const Criterion& c, const Metric& m, const BoundResolver& r, Verdict v, bool reasons) const {
    const double med = *r.median(), x = *m.value;
    v.reference = med;
    const double low = med - std::fabs(med) * c.pct / 100, high = med + std::fabs(med) * c.pct / 100;
    v.bounds = shared_bounds("within", "", {c.pct, med, low, high}, [&] {
      return nlohmann::json{{"op", "within_pct_of_median"}, {"pct", c.pct}, {"median", med}, {"low", low}, {"high", high}};
    });
    const double off = med == 0 ? (x == 0 ? 0 : INFINITY) : std::fabs(x - med) / std::fabs(med) * 100;
    const bool ok = off <= c.pct + c.pct * kRelTolerance;
    v.status = ok ? VerdictStatus::pass : VerdictStatus::fail;
    if (ok && !reasons) return v;
    const std::string allowed = " (allowed " + base::format_number(c.pct) + "%, over " +
                                std::to_string(r.selected().size()) + " " + judging::plural_of_kind(m.place) + ")";
    if (med == 0)
      v.reason = m.metric + " " + value_text(m) + (ok ? " equals" : " differs from") + " the cluster median 0";
    else if (x == med)
      v.reason = m.metric + " " + value_text(m) + " is the cluster median" + allowed;
    else
      v.reason = m.metric + " " + value_text(m) + " is " + percent_off(x, med, "below", "above") +
                 " the cluster median " + base::format_quantity(med, m.unit) + allowed;
    return v;
  }

  // A robust outlier test: the median of the selected places and their median absolute
  // deviation (MAD), which one or a few bad places cannot drag the way they drag a mean and a
  // standard deviation. A place fails when it is further from the median than k scaled MADs
  // (1.4826 x MAD estimates the standard deviation of normally spread values) and further
  // than floor_pct of the median: the floor keeps a cluster whose places agree to the last
  // digit (MAD 0) from failing a place 0.1% off. Only the worse side fails: for a metric whose
  // better direction is higher, a place far above its peers is no fault of that place.
  Verdict mad_outlier(const Criterion& c, const Metric& m, const BoundResolver& r, Verdict v, bool reasons) const {
    constexpr double kScale = 1.4826;
    const double med = *r.median(), x = *m.value, mad = r.mad().value_or(0);
    v.reference = med;
    const double spread = c.k * kScale * mad, floor = std::max(std::fabs(med) * c.floor_pct / 100, c.floor);
    const double allowed = std::max(spread, floor);
    const bool judge_low = m.better != Better::lower, judge_high = m.better != Better::higher;
    const double low = med - allowed, high = med + allowed;
    v.bounds = shared_bounds("mad", "", {c.k, c.floor_pct, c.floor, med, mad, double(judge_low), double(judge_high), low, high}, [&] {
      nlohmann::json b = {{"op", "mad_outlier"}, {"k", c.k}, {"floor_pct", c.floor_pct}, {"median", med}, {"mad", mad}};
      if (c.floor > 0) b["floor"] = c.floor;
      if (judge_low) b["low"] = low;
      if (judge_high) b["high"] = high;
      return b;
    });
    const double tol = tolerance(x, allowed) + tolerance(x, med);
    const bool low_ok = !judge_low || x >= low - tol, high_ok = !judge_high || x <= high + tol;
    const bool ok = low_ok && high_ok;
    v.status = ok ? VerdictStatus::pass : VerdictStatus::fail;
    if (ok && !reasons) return v;
    const std::string n = std::to_string(r.selected().size()) + " " + judging::plural_of_kind(m.place);
    const std::string rule = base::format_number(c.k) + " scaled MADs (" + base::format_quantity(spread, m.unit) +
                             ") and the floor (" + base::format_quantity(floor, m.unit) +
                             (c.floor > 0 ? ", at least " + base::format_quantity(c.floor, m.unit)
                                          : ", " + base::format_number(c.floor_pct) + "% of the median") + ")";
    const std::string away =
        mad > 0 ? ", " + base::format_number(std::fabs(x - med) / (kScale * mad)) + " scaled MADs away" : "";
    std::string where = x == med ? " is the median" : " is " + percent_off(x, med, "below", "above") + " the median " +
                                                          base::format_quantity(med, m.unit) + away;
    if (!ok)
      v.reason = m.metric + " " + value_text(m) + where + ": an outlier, further than " + rule + " (over " + n + ")";
    else if ((x < med && !judge_low) || (x > med && !judge_high))
      v.reason = m.metric + " " + value_text(m) + where + ", on the better side (" + to_string(m.better) +
                 " is better), which is no fault (over " + n + ")";
    else
      v.reason = m.metric + " " + value_text(m) + where + ", within the larger of " + rule + " (over " + n + ")";
    return v;
  }

  // Consecutive verdicts of a criterion mostly have the same bound: they share one object.
  Params shared_bounds(nlohmann::json b) const {
    memo_valid_ = false;
    if (!(last_bounds_ == b)) last_bounds_ = Params(std::move(b));
    return last_bounds_;
  }
  // The same, known by what the bound is made of (which kind, its op, its numbers), so that
  // the JSON object is built only when one of them changes: at 4096 hosts ~2 M verdicts each
  // built one to compare it with the last. The numbers compare as the JSON's would (==), so
  // the same object is shared as before.
  template <class Make>
  Params shared_bounds(std::string_view kind, std::string_view op, std::initializer_list<double> numbers, Make&& make) const {
    if (memo_valid_ && memo_kind_ == kind && memo_op_ == op &&
        std::equal(numbers.begin(), numbers.end(), memo_numbers_.begin(), memo_numbers_.end()))
      return last_bounds_;
    Params b = shared_bounds(make());
    memo_kind_ = kind, memo_op_.assign(op), memo_numbers_.assign(numbers), memo_valid_ = true;
    return b;
  }

  const Facts& facts_;
  mutable Params last_bounds_;  // the last bound made, for shared_bounds
  mutable bool memo_valid_ = false;  // last_bounds_ is made of memo_kind_, memo_op_ and memo_numbers_
  mutable std::string_view memo_kind_;  // always a string literal
  mutable std::string memo_op_;
  mutable std::vector<double> memo_numbers_;
  const std::vector<Metric>& metrics_;
  const MetricCatalogue* catalogue_;
  const MetricsByName& by_name_;
  bool users_;  // the criteria are a user's file, not the built-in ones (with or without a profile)
};

// Every criterion's verdicts appended to `out` in the criteria's order, two criteria at a time.
// The criteria are independent (each reads the metrics and the facts, none writes them), and
// at 4096 hosts judging them is several seconds of one core while the other waits. Workers
// take criteria in order, each into a slot of its own; this thread moves each slot into `out`
// as soon as it and every one before it are done, and frees it. A worker takes a criterion
// only while fewer than kAhead slots wait, so at most a few criteria's verdicts are ever held
// twice (all of them twice would be ~650 MB at 4096 hosts, over the 4 GiB the judge may use).
// With a `folder` (past kFoldPassingAbove hosts) each worker folds its criterion's passes as it
// makes them, into its slot's folder, and this thread merges the slots' folds in order: the 2 M
// passing verdicts of 4096 hosts are never all held, and most are never given words.
void judge_criteria(const CriteriaSet& criteria, const Facts& facts, const std::vector<Metric>& metrics,
                    const MetricCatalogue* catalogue, judging::PassFolder* folder, std::vector<Verdict>& out) {
  const MetricsByName by_name = metrics_by_name(metrics);
  const std::size_t n = criteria.criteria.size();
  constexpr std::size_t kAhead = 4;
  const unsigned workers = std::min<unsigned>(2, std::max(1u, std::thread::hardware_concurrency()));
  if (workers < 2 || n < 2) {
    const CriterionJudge cj(facts, metrics, by_name, catalogue, criteria);
    for (const auto& c : criteria.criteria) cj.judge(c, out, folder);
    return;
  }
  struct Slot {
    std::vector<Verdict> verdicts;
    std::optional<judging::PassFolder> folder;  // its passes, folded by its worker
    bool done = false;
    std::exception_ptr error;
  };
  std::vector<Slot> slots(n);
  std::mutex mu;
  std::condition_variable changed;
  std::size_t next = 0, taken = 0;  // next: the first slot not yet moved into out; taken: claimed
  bool stop = false;                // a worker failed: the others take nothing more
  auto work = [&] {
    const CriterionJudge cj(facts, metrics, by_name, catalogue, criteria);
    for (;;) {
      std::size_t i;
      {
        std::unique_lock lock(mu);
        changed.wait(lock, [&] { return stop || taken >= n || taken < next + kAhead; });
        if (stop || taken >= n) return;
        i = taken++;
      }
      Slot& slot = slots[i];
      try {
        if (folder) slot.folder.emplace(folder->keep());
        cj.judge(criteria.criteria[i], slot.verdicts, folder ? &*slot.folder : nullptr);
      } catch (...) {
        slot.error = std::current_exception();
      }
      std::lock_guard lock(mu);
      slot.done = true;
      if (slot.error) stop = true;
      changed.notify_all();
    }
  };
  std::vector<std::jthread> threads;
  for (unsigned t = 0; t < workers; ++t) threads.emplace_back(work);
  for (std::size_t i = 0; i < n; ++i) {
    Slot& slot = slots[i];
    {
      std::unique_lock lock(mu);
      // Done, or never to be: a worker failed and no one took this criterion.
      changed.wait(lock, [&] { return slot.done || (stop && taken <= i); });
    }
    if (!slot.done || slot.error) break;
    if (folder) folder->merge(std::move(*slot.folder));
    base::prefault_tail(out, slot.verdicts.size());  // ~1 GB of fresh memory in all at 4096 hosts
    out.insert(out.end(), std::make_move_iterator(slot.verdicts.begin()), std::make_move_iterator(slot.verdicts.end()));
    std::vector<Verdict>().swap(slot.verdicts);
    std::lock_guard lock(mu);
    next = i + 1;
    changed.notify_all();
  }
  {
    std::lock_guard lock(mu);
    stop = true;  // whatever is left is not wanted: the workers take nothing more
    changed.notify_all();
  }
  threads.clear();  // joins them
  for (const auto& slot : slots)
    if (slot.error) std::rethrow_exception(slot.error);
}

// A probe that failed on a host fails that host, whatever the criteria say; one that broke
// there (a tool error) is shown there without blaming the host; one skipped on some hosts only
// is shown there (the criteria decide whether the absence matters).
std::vector<Verdict> probe_verdicts(const std::vector<ProbeSummary>& probes) {
  std::vector<Verdict> out;
  for (const auto& p : probes) {
    for (const auto& [host, o] : judging::host_outcomes(p)) {
      const bool failed = o.status == ProbeStatus::failed;
      const bool broke = o.status == ProbeStatus::error;
      const bool skipped_here = o.status == ProbeStatus::skipped && p.status != ProbeStatus::skipped;
      if (!failed && !broke && !skipped_here) continue;
      Verdict v;
      v.criterion = v.metric = "probe." + p.name;
      v.place = host;
      v.severity = Severity::error;
      v.status = failed ? VerdictStatus::fail : broke ? VerdictStatus::tool_error : VerdictStatus::skipped;
      const char* what = failed ? " failed" : broke ? " broke (a tool error, not the host's fault)" : " was skipped";
      v.reason = "probe " + p.name + what + (o.reason.empty() ? "" : ": " + o.reason);
      out.push_back(std::move(v));
    }
  }
  return out;
}

// Everything after aggregate(): the samples are no longer read.
Judgement judge_metrics(std::vector<Metric> metrics, const JournalData& journal, const CriteriaSet& criteria,
                        const MetricCatalogue* catalogue) {
  Judgement j;
  j.metrics = std::move(metrics);
  // Metrics derived from the measured ones, each analysis reading only measured metrics, added
  // in one merge (each merge moves all 4 M metrics at 4096 hosts): the p2p culprit analysis
  // (fabric_analysis.hpp), links between leaf groups (fabric_groups.hpp), port error counters
  // over the run (rdma_rates.hpp). The analyses keep their own copies for the verdicts.
  j.probes = judging::summarize_probes(journal);
  Facts facts = judging::gather_facts(journal, j.probes);
  // The measured metrics by name, for the analyses (and the kernel mates) to read the names
  // they work on; its pointers die with the merge below, so it dies first.
  std::optional<const judging::FabricAnalysis> fabric;
  std::optional<const judging::GroupAnalysis> groups;
  std::vector<Metric> derived;
  {
    const auto measured = metrics_by_name(j.metrics);
    judging::add_kernel_mates(facts, journal.ranks, measured);
    // The analyses are pure functions of the measured metrics and share nothing they write
    // (Params copies only count references, atomically): at 4096 hosts the fabric's is ~6 s of
    // one core and the other two ~6 s together, so they run side by side.
    base::both([&] { fabric.emplace(judging::analyze_fabric(measured)); },
               [&] {
                 groups.emplace(judging::analyze_groups(measured));
                 derived = judging::derive_rdma_counter_metrics(measured);
               });
  }
  derived.insert(derived.begin(), groups->derived.begin(), groups->derived.end());
  derived.insert(derived.begin(), fabric->derived.begin(), fabric->derived.end());
  judging::add_in_order(j.metrics, std::move(derived));
  // The culprit analysis derives metrics of its own; they are declared like measured ones.
  if (catalogue) {
    // Looked up once per run of one name (the metrics are sorted by name): the catalogue's
    // search for a family is a scan of every declaration.
    const std::string* name = nullptr;
    const DeclaredMetric* d = nullptr;
    for (auto& m : j.metrics)
      if (m.better == Better::none) {  // aggregate() already applied the declarations of measured ones
        if (!name || *name != m.metric) d = catalogue->find(m.metric), name = &m.metric;
        if (d) m.probe = d->probe, m.better = d->decl.better;
      }
  }

  j.verdicts = probe_verdicts(j.probes);
  // Past kFoldPassingAbove hosts the passes are counted as they come, not kept (issue 36).
  std::optional<judging::PassFolder> folder;
  const std::set<std::string> keep = hosts_kept_in_full(journal);  // outlives the folders
  if (facts.hosts.size() > kFoldPassingAbove) {
    folder.emplace(keep);
  } else {
    // About one verdict per metric: reserved once, so that growing the vector does not hold
    // two copies of a million verdicts at once (pages reserved and never written cost nothing).
    j.verdicts.reserve(j.verdicts.size() + j.metrics.size());
  }
  judge_criteria(criteria, facts, j.metrics, catalogue, folder ? &*folder : nullptr, j.verdicts);
  judging::explain_fabric_verdicts(*fabric, j.verdicts);
  // After the pairs' explanations: a failing group link takes the blame off the pairs it explains.
  judging::explain_group_verdicts(*groups, j.verdicts);
  if (folder) {
    // What the explanations left passing, folded with the rest, in the criteria's order.
    folder->take(j.verdicts, false);
    std::map<std::string, std::size_t> order;
    for (std::size_t i = 0; i < criteria.criteria.size(); ++i) order.try_emplace(criteria.criteria[i].name, i);
    j.summary.pass = static_cast<int>(folder->folded());
    folder->finish(j, order);
  }

  j.incomplete = judging::find_incomplete(journal, j.probes);
  bool node_fault = false, tool_error = false, inconclusive = false;
  for (const auto& v : j.verdicts) {
    switch (v.status) {
      case VerdictStatus::pass: ++j.summary.pass; break;
      case VerdictStatus::fail: ++j.summary.fail; break;
      case VerdictStatus::missing: ++j.summary.missing; break;
      case VerdictStatus::skipped: ++j.summary.skipped; break;
      case VerdictStatus::tool_error: ++j.summary.tool_error; break;
      case VerdictStatus::inconclusive: ++j.summary.inconclusive; break;
    }
    if (v.severity != Severity::error) continue;
    node_fault = node_fault || v.outcome() == OutcomeClass::node_fault;
    tool_error = tool_error || v.outcome() == OutcomeClass::tool_error;
    inconclusive = inconclusive || v.outcome() == OutcomeClass::inconclusive;
  }
  auto set = [&](const char* overall, int code) { j.summary.overall = overall, j.summary.exit_code = code; };
  if (j.incomplete) set("INCOMPLETE", kExitIncomplete);
  else if (node_fault) set("FAIL", kExitNodeFault);
  else if (tool_error) set("TOOL ERROR", kExitToolError);
  else if (inconclusive) set("INCONCLUSIVE", kExitInconclusive);
  else set("PASS", kExitPass);
  return j;
}

}  // namespace

std::set<std::string> hosts_kept_in_full(const JournalData& journal) {
  std::set<std::string> out;
  const auto& start = journal.run_start;
  const auto r = start.find("rerun_of");
  if (r == start.end() || !r->is_object()) return out;
  const auto c = r->find("campaign");
  if (c == r->end() || !c->is_object()) return out;
  const auto hosts = c->find("hosts");
  if (hosts == c->end() || !hosts->is_array()) return out;
  for (const auto& h : *hosts) {
    if (!h.is_object()) continue;
    const auto name = h.find("host"), criteria = h.find("criteria");
    if (name != h.end() && name->is_string() && criteria != h.end() && criteria->is_array() && !criteria->empty())
      out.insert(name->get<std::string>());
  }
  return out;
}

void fold_passing_verdicts(Judgement& j, const std::set<std::string>& keep) {
  judging::PassFolder folder(keep);
  folder.take(j.verdicts, false);
  folder.finish(j);
}

Judgement judge(const JournalData& journal, const CriteriaSet& criteria, const MetricCatalogue* catalogue) {
  return judge_metrics(aggregate(journal.samples, catalogue), journal, criteria, catalogue);
}

Judgement judge_releasing_samples(JournalData& journal, const CriteriaSet& criteria, const MetricCatalogue* catalogue) {
  auto metrics = aggregate(journal.samples, catalogue);
  std::vector<Sample>().swap(journal.samples);  // clear() would keep the capacity
  Judgement j = judge_metrics(std::move(metrics), journal, criteria, catalogue);
  // What the samples and the judging's temporaries held, handed back to the system: freed
  // memory stays resident in malloc's arenas, and what the parsing and judging threads freed
  // (~250 MB at 4096 hosts, in arenas of their own) cannot serve the report and its writers
  // that follow, where the process's peak is. A few tenths of a second.
  malloc_trim(0);
  return j;
}

}  // namespace ga
