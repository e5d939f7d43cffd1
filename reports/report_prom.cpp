// report.prom: the judgement in Prometheus' text exposition format (version 0.0.4), for
// node_exporter's textfile collector. A writer: it formats the report, nothing else. Its size
// follows the hosts and the criteria, never the places (issue 36: a series per verdict and per
// metric, each with a JSON `params` label, was 755 MiB at 4096 hosts).
//
// Families (every one with HELP and TYPE, all gauges, no sample timestamps: the collector
// stamps them when it scrapes; values in base units, labels plain words):
//   gpuaccept_run_exit_code                         the run's exit code (0 pass, 1 node fault, ...)
//   gpuaccept_run_verdicts{status}                  verdicts per status (folded passes counted)
//   gpuaccept_host_outcome{host,outcome}            1 per host that did not pass (bad-hosts.txt)
//   gpuaccept_criterion_info{criterion,severity}    1 per criterion judged, with its severity
//   gpuaccept_status{host,criterion}
//                                                   per host and criterion judged there: 0 pass,
//                                                   1 node fault, 2 tool error, 3 inconclusive
//                                                   (the worst of its places; a link between two
//                                                   hosts counts at both)
//   gpuaccept_cluster_status{criterion}   the same for the cluster's own verdicts
//   gpuaccept_host_worst_margin_ratio{host,kind}    per host and kind of place (host, numa, gpu,
//                                                   nic, rail, pair) the least margin of its
//                                                   verdicts (ga::margin: 0 at the bound, negative
//                                                   outside it), a ratio
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reports/bad_hosts.hpp"
#include "reports/report.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

// Label values: backslash, double quote and newline escaped, as the format asks.
void append_label(std::string& s, std::string_view v) {
  for (char c : v) {
    if (c == '\\') s += "\\\\";
    else if (c == '"') s += "\\\"";
    else if (c == '\n') s += "\\n";
    else s += c;
  }
}
std::string label(std::string_view v) {
  std::string s;
  s.reserve(v.size());
  append_label(s, v);
  return s;
}

// One series line, `name{k="v",...} value`, built in a buffer the caller reuses: at 4096 hosts
// there are millions of them, and each `<<` to the hashed file stream costs more than the bytes.
struct Series {
  std::string& line;
  bool first = true;
  Series(std::string& buffer, std::string_view name) : line(buffer) {
    line.assign(name);
    line += '{';
  }
  Series& operator()(const char* key, std::string_view value) {
    if (!first) line += ',';
    first = false;
    line += key;
    line += "=\"";
    append_label(line, value);
    line += '"';
    return *this;
  }
  void end(std::string_view value, std::ostream& out) {
    line += "} ";
    line += value;
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
};

// The shortest of %.15g and %.17g that reads back as v: 0.42, not 0.41999999999999998.
// std::to_chars with a precision writes what printf's %.*g writes, and from_chars reads as
// strtod does in the "C" locale, without either's locale lookups: at 4096 hosts there are
// ~3 M values, and snprintf with strtod were ~0.3 s of the writer's thread (perf).
std::string_view number(double v, std::array<char, 32>& buf) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char* const first = buf.data();
  char* const last = buf.data() + buf.size();
  auto end = std::to_chars(first, last, v, std::chars_format::general, 15).ptr;
  double back = 0;
  if (std::from_chars(first, end, back).ptr != end || back != v)
    end = std::to_chars(first, last, v, std::chars_format::general, 17).ptr;
  return {first, static_cast<std::size_t>(end - first)};
}

void family(std::ostream& out, const std::string& name, const std::string& help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " gauge\n";
}

// A criterion's outcome at one host: the value of its status series, the worse kept.
int status_value(OutcomeClass o) {
  switch (o) {
    case OutcomeClass::none: return 0;
    case OutcomeClass::node_fault: return 1;
    case OutcomeClass::tool_error: return 2;
    case OutcomeClass::inconclusive: return 3;
  }
  return 2;
}
// Node fault over tool error over inconclusive over pass, as the exit codes rank them.
int status_rank(int value) {
  static constexpr int kRank[] = {0, 3, 2, 1};
  return kRank[value];
}

struct Status {
  int value = 0;
  Severity severity = Severity::error;
  void add(int v) {
    if (status_rank(v) > status_rank(value)) value = v;
  }
};

}  // namespace

void write_report_prom(const Report& r, std::ostream& out) {
  const Judgement& j = *r.judgement;
  family(out, "gpuaccept_run_exit_code",
         "The run's exit code: 0 pass, 1 node fault, 3 incomplete, 4 inconclusive, 5 tool error.");
  out << "gpuaccept_run_exit_code " << j.summary.exit_code << "\n";

  family(out, "gpuaccept_run_verdicts", "Verdicts of the run, per status.");
  const std::pair<const char*, int> counts[] = {{"pass", j.summary.pass},           {"fail", j.summary.fail},
                                                {"missing", j.summary.missing},     {"skipped", j.summary.skipped},
                                                {"tool_error", j.summary.tool_error}, {"inconclusive", j.summary.inconclusive}};
  for (const auto& [status, n] : counts) out << "gpuaccept_run_verdicts{status=\"" << status << "\"} " << n << "\n";

  family(out, "gpuaccept_host_outcome",
         "1 for each host that did not pass, with its worst outcome (as bad-hosts.txt lists them).");
  for (const auto& h : bad_hosts(r).hosts)
    out << "gpuaccept_host_outcome{host=\"" << label(h.host) << "\",outcome=\"" << to_string(h.outcome) << "\"} 1\n";

  // Per criterion (in the criteria's order, as the judge lists them) and host.
  std::vector<std::string> criteria;
  std::unordered_map<std::string, std::size_t> criterion_at;
  std::vector<std::unordered_map<std::string, Status>> by_host;
  std::vector<std::optional<Status>> on_cluster;
  auto slot = [&](const std::string& criterion) -> std::size_t {
    auto [it, fresh] = criterion_at.try_emplace(criterion, criteria.size());
    if (fresh) criteria.push_back(criterion), by_host.emplace_back(), on_cluster.emplace_back();
    return it->second;
  };
  // Per host and kind of place, the least margin.
  std::map<std::string, std::map<std::string, double>> worst;
  auto margin_at = [&](const std::string& host, const std::string& kind, const std::optional<double>& m) {
    if (!m || !std::isfinite(*m)) return;
    auto [it, fresh] = worst[host].try_emplace(kind, *m);
    if (!fresh && *m < it->second) it->second = *m;
  };
  for (const auto& v : j.verdicts) {
    if (v.status == VerdictStatus::skipped) continue;
    const std::size_t k = slot(v.criterion);
    const Place p = Place::parse(v.place);
    const auto hosts = place::hosts_of(p);
    const int value = status_value(v.outcome());
    const auto m = margin(v);
    if (hosts.empty()) {
      if (!on_cluster[k]) on_cluster[k] = Status{0, v.severity};
      on_cluster[k]->add(value);
    }
    for (const auto& h : hosts) {
      auto [it, fresh] = by_host[k].try_emplace(h, Status{0, v.severity});
      it->second.add(value);
      margin_at(h, place::to_string(p.kind), m);
    }
  }
  for (const auto& f : j.passing) {
    const std::size_t k = slot(f.criterion);
    if (f.hosts.empty() && !on_cluster[k]) on_cluster[k] = Status{0, f.severity};
    for (const auto& h : f.hosts) {
      by_host[k].try_emplace(h.host, Status{0, f.severity});
      margin_at(h.host, f.kind, h.worst_margin);
    }
  }
  // Criteria by name: a folded judgement meets its passing criteria after the rest, and the
  // file is the same whether it folded or not.
  std::vector<std::size_t> order(criteria.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return criteria[a] < criteria[b]; });
  std::string line;
  // The severity is the criterion's, the same at every host: a family of its own, one series a
  // criterion, rather than a label on 300 k series (5 MiB at 4096 hosts).
  family(out, "gpuaccept_criterion_info", "1 per criterion judged in the run, with its severity (error or warning).");
  for (std::size_t k : order) {
    const Status* any = !by_host[k].empty() ? &by_host[k].begin()->second : on_cluster[k] ? &*on_cluster[k] : nullptr;
    if (any) Series(line, "gpuaccept_criterion_info")("criterion", criteria[k])("severity", to_string(any->severity)).end("1", out);
  }
  family(out, "gpuaccept_status",
         "Per host and criterion judged there, the worst of its places: 0 pass, 1 node fault, 2 tool error, 3 inconclusive.");
  for (std::size_t k : order) {
    std::vector<const std::pair<const std::string, Status>*> hosts;
    for (const auto& e : by_host[k]) hosts.push_back(&e);
    std::sort(hosts.begin(), hosts.end(), [](const auto* a, const auto* b) { return place::less(a->first, b->first); });
    for (const auto* e : hosts)
      Series(line, "gpuaccept_status")("host", e->first)("criterion", criteria[k])
          .end(std::to_string(e->second.value), out);
  }
  family(out, "gpuaccept_cluster_status",
         "Per criterion judged on the cluster as a whole: 0 pass, 1 node fault, 2 tool error, 3 inconclusive.");
  for (std::size_t k : order)
    if (on_cluster[k])
      Series(line, "gpuaccept_cluster_status")("criterion", criteria[k])
          .end(std::to_string(on_cluster[k]->value), out);
  family(out, "gpuaccept_host_worst_margin_ratio",
         "Per host and kind of place, the least margin of its verdicts: how far inside its bound a value is, as a "
         "fraction of the bound (0 at the bound, negative outside it).");
  std::vector<const std::pair<const std::string, std::map<std::string, double>>*> hosts;
  for (const auto& e : worst) hosts.push_back(&e);
  std::sort(hosts.begin(), hosts.end(), [](const auto* a, const auto* b) { return place::less(a->first, b->first); });
  std::array<char, 32> buf;
  for (const auto* e : hosts)
    for (const auto& [kind, m] : e->second)
      Series(line, "gpuaccept_host_worst_margin_ratio")("host", e->first)("kind", kind).end(number(m, buf), out);
}

}  // namespace ga
