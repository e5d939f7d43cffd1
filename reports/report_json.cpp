// report.json, schema_version 1 (docs/report-format.md). Every value comes from the journal or
// the judgement; this file only chooses keys. Non-finite numbers become null, because JSON has
// no NaN and a reader must not choke on a probe that measured nothing.
#include <array>
#include <cmath>
#include <map>
#include <ostream>

#include "reports/report.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

using nlohmann::json;

json number_or_null(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

// Params and bounds are free-form JSON from the journal and the judge: clean them as a whole.
json finite(const json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>()) ? j : json(nullptr);
  if (j.is_array() || j.is_object()) {
    json out = j;
    for (auto& el : out) el = finite(el);
    return out;
  }
  return j;
}

json metric_json(const Metric& m) {
  json out = {{"metric", m.metric},
          {"place", m.place},
          {"params", finite(m.params)},
          {"unit", m.unit},
          {"value", number_or_null(m.value)},
          {"min", number_or_null(m.min)},
          {"max", number_or_null(m.max)},
          {"count", m.count},
          {"text", m.text ? json(*m.text) : json(nullptr)}};
  if (m.not_completed) out["not_completed"] = *m.not_completed;  // value is null: nothing was measured
  if (m.note) out["note"] = *m.note;  // other texts or units the ranks reported
  return out;
}

json verdict_json(const Verdict& v) {
  json reference = nullptr;
  if (v.reference && std::isfinite(*v.reference))
    reference = *v.reference;
  else if (v.reference_text)
    reference = *v.reference_text;
  json out = {{"criterion", v.criterion},
              {"place", v.place},
              {"status", to_string(v.status)},
              {"outcome", to_string(v.outcome())},
              {"value", number_or_null(v.value)},
              {"unit", v.unit},
              {"bounds", finite(v.bounds)},
              {"reference", std::move(reference)},
              {"reason", v.reason},
              {"metric", v.metric},
              {"severity", to_string(v.severity)}};
  if (v.text) out["text"] = *v.text;  // only text metrics have one
  if (v.not_completed) out["not_completed"] = *v.not_completed;
  // Two verdicts on one place differ by their sample params (size, direction, in place).
  if (!v.params.empty()) out["params"] = finite(v.params);
  return out;
}

// Text from drivers and hostnames may not be valid UTF-8; replace bad bytes rather than throw.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Bytes that dump() writes as they are: printable ASCII but the quote and the backslash.
bool plain(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

// The same bytes as dump(metric_json(m)) and dump(verdict_json(v)), written field by field
// without building the object first: the keys in the order an object sorts them, each value
// through the same serializer. At 4096 hosts that is 6 million lines
// (docs/performance.md#report_scale-at-4096-hosts),
// so the common cases skip the serializer where its output is known: a plain string is
// quoted as it is, an integer is its decimal digits, params and bounds are copied (to clean
// them) only when they hold a non-finite number.
struct Line {
  std::string& out;
  bool first = true;
  void key(const char* k) {
    out += first ? "{\"" : ",\"";
    out += k;
    out += "\":";
    first = false;
  }
  void text(const char* k, const std::string& v) {
    key(k);
    if (plain(v)) {
      out += '"';
      out += v;
      out += '"';
    } else {
      out += dump(json(v));
    }
  }
  void integer(const char* k, long long v) {
    key(k);
    out += std::to_string(v);
  }
  void number(const char* k, const std::optional<double>& v) {
    key(k);
    if (v && std::isfinite(*v)) append_number(*v);
    else out += "null";
  }
  // What nlohmann's serializer writes for a finite double (dump_float calls this same
  // function), without a json value and a string made for each of 12 million numbers.
  void append_number(double x) {
    std::array<char, 64> buf;
    char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), x);
    out.append(buf.data(), end);
  }
  // Params and bounds: their canonical text is the serializer's own output (probes/params.hpp,
  // made once per distinct object), and the serializer writes a non-finite number as null,
  // exactly what finite() would have put there, so the text is copied as it is. Invalid
  // UTF-8 cannot be in it: making that text would have thrown.
  void params(const char* k, const Params& p) {
    key(k);
    out += p.dump();
  }
  void value(const char* k, const json& v) {
    key(k);
    out += dump(v);
  }
  void null(const char* k) {
    key(k);
    out += "null";
  }
  void end() { out += first ? "{}" : "}"; }
};

void metric_line(std::string& out, const Metric& m) {
  Line l{out};
  l.integer("count", m.count);
  l.number("max", m.max);
  l.text("metric", m.metric);
  l.number("min", m.min);
  if (m.not_completed) l.text("not_completed", *m.not_completed);
  if (m.note) l.text("note", *m.note);
  l.params("params", m.params);
  l.text("place", m.place);
  if (m.text) l.text("text", *m.text);
  else l.null("text");
  l.text("unit", m.unit);
  l.number("value", m.value);
  l.end();
}

void verdict_line(std::string& out, const Verdict& v) {
  Line l{out};
  l.params("bounds", v.bounds);
  l.text("criterion", v.criterion);
  l.text("metric", v.metric);
  if (v.not_completed) l.text("not_completed", *v.not_completed);
  l.text("outcome", to_string(v.outcome()));
  if (!v.params.empty()) l.params("params", v.params);
  l.text("place", v.place);
  l.text("reason", v.reason);
  if (v.reference && std::isfinite(*v.reference)) l.number("reference", v.reference);
  else if (v.reference_text) l.text("reference", *v.reference_text);
  else l.null("reference");
  l.text("severity", to_string(v.severity));
  l.text("status", to_string(v.status));
  if (v.text) l.text("text", *v.text);
  l.text("unit", v.unit);
  l.number("value", v.value);
  l.end();
}

// A folded judgement's passes of one criterion at one kind of place (Judgement::passing).
json passing_json(const PassingFold& f) {
  json hosts = json::array();
  for (const auto& h : f.hosts)
    hosts.push_back({{"host", h.host}, {"places", h.places}, {"worst_margin", number_or_null(h.worst_margin)}});
  return {{"criterion", f.criterion},
          {"kind", f.kind},
          {"severity", to_string(f.severity)},
          {"places", f.places},
          {"worst_margin", number_or_null(f.worst_margin)},
          {"worst", verdict_json(f.worst)},
          {"hosts", std::move(hosts)}};
}

// The metrics a folded report.json lists: those its listed verdicts judged, each worst
// passing verdict's among them, in the judgement's order (the rest are in samples.jsonl).
std::vector<std::size_t> listed_metrics(const Judgement& g) {
  std::vector<char> want(g.metrics.size(), 0);
  auto mark = [&](const Verdict& v) {
    if (v.metric_index < want.size()) want[v.metric_index] = 1;
  };
  for (const auto& v : g.verdicts) mark(v);
  for (const auto& f : g.passing) mark(f.worst);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (want[i]) out.push_back(i);
  return out;
}

json rank_refs(const std::vector<RankRef>& refs) {
  json a = json::array();
  for (const auto& r : refs) a.push_back({{"rank", r.rank}, {"host", r.host}});
  return a;
}

json incomplete_json(const std::optional<IncompleteRecord>& inc) {
  if (!inc) return nullptr;
  return {{"probe", inc->probe},
          {"reason", inc->reason},
          {"missing_ranks", rank_refs(inc->missing_ranks)},
          {"waiting_ranks", rank_refs(inc->waiting_ranks)},
          {"detected_by", inc->detected_by}};
}

json probe_json(const ProbeSummary& p, const JournalData& journal) {
  // Per-host detail: the ranks' own outcomes grouped under their host, in order of appearance.
  json hosts = json::array();
  std::vector<std::string> order;
  std::map<std::string, json> by_host;
  for (const auto& o : p.per_rank) {
    auto [it, fresh] = by_host.try_emplace(o.host, json::array());
    if (fresh) order.push_back(o.host);
    it->second.push_back({{"rank", o.rank}, {"status", to_string(o.status)}, {"reason", o.reason}});
  }
  for (const auto& h : order) hosts.push_back({{"host", h}, {"ranks", std::move(by_host[h])}});
  json out = {{"name", p.name}, {"status", to_string(p.status)}, {"reason", p.reason}, {"hosts", std::move(hosts)}};
  // Timing as the journal recorded it; null for a probe that never began.
  json begin = nullptr, end = nullptr, elapsed = nullptr, deadline = nullptr, ended = false;
  for (const auto& rec : journal.probes) {
    if (rec.name != p.name) continue;
    begin = rec.begin_time.empty() ? json(nullptr) : json(rec.begin_time);
    end = rec.end_time.empty() ? json(nullptr) : json(rec.end_time);
    elapsed = rec.ended ? number_or_null(rec.elapsed_s) : json(nullptr);
    deadline = number_or_null(rec.deadline_s);
    ended = rec.ended;
  }
  out["began"] = std::move(begin);
  out["ended"] = std::move(end);
  out["completed"] = std::move(ended);
  out["elapsed_s"] = std::move(elapsed);
  out["deadline_s"] = std::move(deadline);
  return out;
}

json summary_json(const Summary& s) {
  return {{"pass", s.pass},
          {"fail", s.fail},
          {"missing", s.missing},
          {"skipped", s.skipped},
          {"tool_error", s.tool_error},
          {"inconclusive", s.inconclusive},
          {"overall", s.overall},
          {"exit_code", s.exit_code}};
}

json signals_json(const std::vector<SignalRecord>& signals) {
  json a = json::array();
  for (const auto& s : signals)
    a.push_back({{"rank", s.rank}, {"host", s.host}, {"signal", s.signal}, {"probe", s.probe}, {"time", s.time}});
  return a;
}

json places_json(const Report& r) {
  json places = json::object();
  // A section's rows of one place are next to each other (build_report sorts them by their
  // place's order), and a place always reads the same: one entry per run of rows, not per row
  // (4 M rows and ~170 k places at 4096 hosts).
  auto add = [&](const HostSection& s) {
    const std::string* last = nullptr;
    for (const auto& row : s.rows) {
      if (last && *last == row.place()) continue;
      last = &row.place();
      places[row.place()] = row.where();
    }
  };
  for (const auto& s : r.hosts) add(s);
  add(r.cluster);
  return places;
}

// The document's sections in schema order. Small ones as values; metrics and verdicts as
// element generators so that write_report_json can stream them.
template <class Visitor>
void visit_sections(const Report& r, Visitor&& v) {
  const JournalData& j = *r.journal;
  const Judgement& g = *r.judgement;
  v.value("schema_version", json(kReportSchemaVersion));
  v.value("summary", summary_json(g.summary));
  v.value("run", finite(r.run));
  v.value("incomplete", incomplete_json(g.incomplete));
  v.value("signals", signals_json(j.signals));
  json probes = json::array();
  for (const auto& p : g.probes) probes.push_back(probe_json(p, j));
  v.value("probes", std::move(probes));
  v.value("topology", topo::to_json(j.topology));
  v.value("expected_topology", j.expected_topology ? topo::to_json(*j.expected_topology) : json(nullptr));
  v.value("places", places_json(r));
  v.lines("verdicts", g.verdicts.size(), [&](std::size_t i) { return verdict_json(g.verdicts[i]); },
          [&](std::string& out, std::size_t i) { verdict_line(out, g.verdicts[i]); });
  if (!g.folded) {
    v.lines("metrics", g.metrics.size(), [&](std::size_t i) { return metric_json(g.metrics[i]); },
            [&](std::string& out, std::size_t i) { metric_line(out, g.metrics[i]); });
    return;
  }
  // Past kFoldPassingAbove hosts (suites/judge.hpp): the passing verdicts as counts, and only
  // the metrics a listed verdict judged; the run's every sample stays in samples.jsonl, which
  // `gpuaccept show DIR PLACE` reads for one place.
  v.value("folded", json(true));
  v.value("folded_above_hosts", json(kFoldPassingAbove));
  v.lines("passing", g.passing.size(), [&](std::size_t i) { return passing_json(g.passing[i]); },
          [&](std::string& out, std::size_t i) { out += dump(passing_json(g.passing[i])); });
  const std::vector<std::size_t> listed = listed_metrics(g);
  v.value("metrics_listed", json(listed.size()));
  v.value("metrics_measured", json(g.metrics.size()));
  v.lines("metrics", listed.size(), [&](std::size_t i) { return metric_json(g.metrics[listed[i]]); },
          [&](std::string& out, std::size_t i) { metric_line(out, g.metrics[listed[i]]); });
}

struct DomBuilder {
  json doc = json::object();
  void value(const char* key, json v) { doc[key] = std::move(v); }
  template <class F>
  void array(const char* key, std::size_t n, F&& element) {
    json a = json::array();
    for (std::size_t i = 0; i < n; ++i) a.push_back(element(i));
    doc[key] = std::move(a);
  }
  template <class F, class G>
  void lines(const char* key, std::size_t n, F&& element, G&&) {
    array(key, n, element);
  }
};

struct StreamWriter {
  std::ostream& out;
  bool first = true;
  void key(const char* k) {
    out << (first ? "{\n" : ",\n") << json(k).dump() << ": ";
    first = false;
  }
  void value(const char* k, const json& v) {
    key(k);
    out << dump(v);
  }
  template <class F>
  void array(const char* k, std::size_t n, F&& element) {
    key(k);
    out << '[';
    for (std::size_t i = 0; i < n; ++i) out << (i ? ",\n" : "\n") << dump(element(i));
    out << (n ? "\n]" : "]");
  }
  // An array of objects written line by line (metric_line, verdict_line), one buffer reused.
  template <class F, class G>
  void lines(const char* k, std::size_t n, F&&, G&& write) {
    key(k);
    out << '[';
    std::string line;
    for (std::size_t i = 0; i < n; ++i) {
      line.assign(i ? ",\n" : "\n");
      write(line, i);
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
    out << (n ? "\n]" : "]");
  }
};

}  // namespace

json report_to_json(const Report& r) {
  DomBuilder b;
  visit_sections(r, b);
  return std::move(b.doc);
}

void write_report_json(const Report& r, std::ostream& out) {
  StreamWriter w{out};
  visit_sections(r, w);
  out << "\n}\n";
}

}  // namespace ga
