// report.prom: the judgement in Prometheus' text exposition format (version 0.0.4), for
// node_exporter's textfile collector. A writer: it formats the report, nothing else.
//
// Families (every one with HELP and TYPE, all gauges, no sample timestamps: the collector
// stamps them when it scrapes):
//   gpuaccept_run_exit_code                    the run's exit code (0 pass, 1 node fault, ...)
//   gpuaccept_run_verdicts{status}             verdicts per status
//   gpuaccept_host_outcome{host,outcome}       1 per host that did not pass (bad-hosts.txt)
//   gpuaccept_verdict_ok{criterion,metric,place,host,params,status,outcome,severity}
//                                              one series per verdict of report.json: 1 when it passes
//   gpuaccept_<metric>_<unit>{place,host,params} each numeric metric at a host, NUMA node, GPU, NIC,
//                                              rail or the cluster (pairs are in report.json: at
//                                              4096 hosts they are millions), named in base units
//   gpuaccept_text_info{metric,place,host,params,value}  1 per text metric at those places
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
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

// A metric name in Prometheus' alphabet ([a-zA-Z0-9_:], not starting with a digit). Names
// ending as a histogram's or a summary's series do ("topology.gpu_count") get "_value", which
// promtool's lint asks of a plain gauge.
std::string name_part(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  // promtool's lint: a name may not name a metric type ("rdma.counter.symbol_error" is a
  // reading of a port's counter, a gauge here).
  for (const auto& [word, instead] : {std::pair<std::string, std::string>{"counter", "reading"},
                                      {"gauge", "level"}, {"histogram", "distribution"}, {"summary", "digest"}}) {
    for (auto at = out.find(word); at != std::string::npos; at = out.find(word, at + instead.size())) {
      const bool starts = at == 0 || out[at - 1] == '_';
      const bool ends = at + word.size() == out.size() || out[at + word.size()] == '_';
      if (starts && ends) out.replace(at, word.size(), instead);
      else at += 1;
    }
  }
  for (const char* end : {"_count", "_sum", "_bucket", "_total"})
    if (out.size() >= std::strlen(end) && out.compare(out.size() - std::strlen(end), std::string::npos, end) == 0)
      return out + "_value";
  return out;
}

// The unit as Prometheus names it (base units, as its naming guide asks), and the factor from
// gpuaccept's unit to it; "" for none.
std::pair<std::string, double> base_unit(const std::string& unit) {
  if (unit == "B") return {"bytes", 1};
  if (unit == "s") return {"seconds", 1};
  if (unit == "B/s") return {"bytes_per_second", 1};
  if (unit == "FLOP/s") return {"flops", 1};
  if (unit == "%") return {"ratio", 0.01};
  if (unit == "x") return {"ratio", 1};
  if (unit == "errors/bit") return {"errors_per_bit", 1};
  if (unit == "bool") return {"bool", 1};
  return {"", 1};  // a count, or no unit
}

bool gauge_place(const std::string& place) {
  switch (place::kind(place)) {
    case place::Kind::pair: return false;
    default: return true;
  }
}

void family(std::ostream& out, const std::string& name, const std::string& help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " gauge\n";
}

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

  family(out, "gpuaccept_verdict_ok",
         "One series per verdict of report.json: 1 when it passes, else 0; status and outcome say what it is.");
  std::string line;
  for (const auto& v : j.verdicts) {
    Series(line, "gpuaccept_verdict_ok")("criterion", v.criterion)("metric", v.metric)("place", v.place)(
        "host", place::host_of(v.place))("params", v.params.dump())("status", to_string(v.status))(
        "outcome", to_string(v.outcome()))("severity", v.severity == Severity::error ? "error" : "warning")
        .end(v.status == VerdictStatus::pass ? "1" : "0", out);
  }

  // Measured values, one family per metric name, each family's series together (the judge
  // sorts its metrics by name, but a judgement need not be sorted to be written right).
  std::vector<std::string> order;                      // family names, first seen first
  std::map<std::string, std::vector<const Metric*>> members;
  std::map<std::string, std::string> owner;            // family name -> the metric name that has it
  std::map<std::string, std::string> family_of;        // metric name -> its family name
  std::vector<const Metric*> texts;
  for (const auto& m : j.metrics) {
    if (!gauge_place(m.place)) continue;
    if (!m.value) {
      if (m.text) texts.push_back(&m);
      continue;
    }
    auto f = family_of.find(m.metric);
    if (f == family_of.end()) {
      const std::string unit = base_unit(m.unit).first, suffix = unit.empty() ? "" : "_" + unit;
      std::string name = "gpuaccept_" + name_part(m.metric) + suffix;
      // Two names that read the same in Prometheus' alphabet ("a.b_c", "a_b.c") stay two families.
      for (int k = 2; owner.count(name); ++k) name = "gpuaccept_" + name_part(m.metric) + "_" + std::to_string(k) + suffix;
      owner[name] = m.metric;
      order.push_back(name);
      f = family_of.emplace(m.metric, name).first;
    }
    members[f->second].push_back(&m);
  }
  for (const auto& name : order) {
    const auto& ms = members[name];
    const Metric& first = *ms.front();
    const double factor = base_unit(first.unit).second;
    family(out, name,
           first.metric + " as measured by probe " + first.probe + " (" + (first.unit.empty() ? "no unit" : first.unit) +
               (factor != 1 ? ", here as a ratio" : "") + "), the median of its samples unless declared otherwise.");
    std::array<char, 32> buf;
    for (const Metric* m : ms)
      Series(line, name)("place", m->place)("host", place::host_of(m->place))("params", m->params.dump())
          .end(number(*m->value * base_unit(m->unit).second, buf), out);
  }
  if (!texts.empty()) {
    family(out, "gpuaccept_text_info", "1 for each observed text (versions, models, paths) at its place.");
    for (const Metric* m : texts)
      out << "gpuaccept_text_info{metric=\"" << label(m->metric) << "\",place=\"" << label(m->place) << "\",host=\""
          << label(place::host_of(m->place)) << "\",params=\"" << label(m->params.dump()) << "\",value=\""
          << label(*m->text) << "\"} 1\n";
  }
}

}  // namespace ga
