// gpuaccept show DIR PLACE: one place's whole story (issue 36 item 4). A folded report says
// "host3: 2 failures"; this prints every verdict report.json holds for the place and for every
// place under it (its NUMA nodes, GPUs, NICs, rails) and for the links it is an end of, then
// every sample samples.jsonl holds for them. Reads only; the verdicts are report.json's as
// written (the judge's, under the criteria the run was judged with), not judged again.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "app/commands.hpp"
#include "base/json_file.hpp"
#include "base/quantity.hpp"
#include "base/text.hpp"
#include "probes/journal.hpp"
#include "topology/place.hpp"

#include <nlohmann/json.hpp>

namespace ga::app {
namespace {

// Whether `q` is `p` or lies under it: the same place, a place on host p (p a host), or a
// pair with such an end. Parsed, never split by hand (topology/place.hpp).
bool under(const Place& q, const Place& p) {
  if (q.kind == Place::Kind::pair) return under(q.first(), p) || under(q.second(), p);
  if (q == p) return true;
  return p.kind == Place::Kind::host && q.kind != Place::Kind::cluster && q.host == p.host;
}

std::string value_text(const nlohmann::json& v) {
  if (v.contains("value") && v["value"].is_number()) {
    const std::string unit = v.contains("unit") && v["unit"].is_string() ? v["unit"].get<std::string>() : "";
    return base::format_quantity(v["value"].get<double>(), unit);
  }
  if (v.contains("text") && v["text"].is_string()) return v["text"].get<std::string>();
  if (v.contains("not_completed") && v["not_completed"].is_string()) return "did not complete";
  return "-";
}

std::string str(const nlohmann::json& v, const char* key) {
  return v.contains(key) && v[key].is_string() ? v[key].get<std::string>() : "";
}

// A column of at least `width` characters and always one space after it: a long cell pushes the
// rest of its row along rather than running into the next cell.
std::string cell(const std::string& text, std::size_t width) {
  return text.size() < width ? text + std::string(width - text.size(), ' ') : text + " ";
}

// Non-passing first (what the operator came for), then by place and criterion.
int rank_of(const std::string& outcome, const std::string& status) {
  if (outcome == "node_fault") return 0;
  if (outcome == "tool_error") return 1;
  if (outcome == "inconclusive") return 2;
  return status == "pass" ? 4 : 3;
}

}  // namespace

int show_command(const ShowOptions& o) {
  namespace fs = std::filesystem;
  const std::string report_path = (fs::path(o.dir) / "report.json").string();
  const std::string journal_path = (fs::path(o.dir) / "samples.jsonl").string();
  try {
    if (!fs::is_regular_file(report_path))
      throw std::runtime_error(report_path + ": no report.json (not a run directory, or a run that was never judged: gpuaccept judge " +
                               o.dir + ")");
    const nlohmann::json report = base::read_json_file(report_path);
    const Place want = Place::parse(o.place);
    std::vector<nlohmann::json> verdicts;
    std::set<std::string> places;  // every place the run has, for "nearest names"
    if (report.contains("verdicts") && report["verdicts"].is_array())
      for (const auto& v : report["verdicts"]) {
        const std::string place = str(v, "place");
        places.insert(place);
        if (under(Place::parse(place), want)) verdicts.push_back(v);
      }
    // A folded report (past 256 hosts, docs/report-format.md) counts its passes per criterion
    // and host: those of this place's host, at this place's kind (all kinds for a host).
    const std::string want_host = place::host_of(want);
    const std::string want_kind = place::to_string(want.kind);
    nlohmann::json folded = nlohmann::json::array();
    if (report.contains("passing") && report["passing"].is_array() && !want_host.empty())
      for (const auto& f : report["passing"]) {
        if (!f.is_object() || !f.contains("hosts") || !f["hosts"].is_array()) continue;
        if (want.kind != Place::Kind::host && str(f, "kind") != want_kind) continue;
        for (const auto& h : f["hosts"])
          if (h.is_object() && str(h, "host") == want_host)
            folded.push_back({{"criterion", str(f, "criterion")}, {"kind", str(f, "kind")}, {"host", want_host},
                              {"places", base::integer_or(h, "places", 0LL)}, {"worst_margin", h.value("worst_margin", nlohmann::json())}});
      }
    std::vector<const Sample*> samples;
    JournalData journal;
    if (fs::is_regular_file(journal_path)) {
      journal = read_journal(journal_path);
      for (const auto& s : journal.samples) {
        places.insert(s.place);
        if (under(Place::parse(s.place), want)) samples.push_back(&s);
      }
    }
    if (verdicts.empty() && samples.empty()) {
      // The nearest names among the run's places and their hosts.
      std::set<std::string> names;
      for (const auto& p : places) {
        names.insert(p);
        names.insert(place::host_of(p));
      }
      names.erase("");
      std::vector<std::pair<std::size_t, std::string>> near;
      for (const auto& n : names) near.emplace_back(base::edit_distance(o.place, n), n);
      std::sort(near.begin(), near.end());
      std::string list;
      for (std::size_t i = 0; i < near.size() && i < 5; ++i) list += (i ? ", " : "") + near[i].second;
      std::cerr << "gpuaccept show: no place " << o.place << " in " << o.dir << " (report.json, samples.jsonl)"
                << (list.empty() ? std::string() : "; nearest: " + list) << "\n";
      return kExitUsage;
    }
    std::stable_sort(verdicts.begin(), verdicts.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      const int ra = rank_of(str(a, "outcome"), str(a, "status")), rb = rank_of(str(b, "outcome"), str(b, "status"));
      if (ra != rb) return ra < rb;
      return std::make_pair(str(a, "place"), str(a, "criterion")) < std::make_pair(str(b, "place"), str(b, "criterion"));
    });
    std::stable_sort(samples.begin(), samples.end(), [](const Sample* a, const Sample* b) {
      return std::tie(a->place, a->metric) < std::tie(b->place, b->metric);
    });
    if (o.json) {
      nlohmann::json out = {{"dir", o.dir}, {"place", o.place}, {"verdicts", verdicts}, {"samples", nlohmann::json::array()}};
      if (!folded.empty()) out["folded_passes"] = folded;
      for (const Sample* s : samples) out["samples"].push_back(to_json(*s));
      std::cout << out.dump(2) << "\n";
      return kExitPass;
    }
    std::map<std::string, int> by_outcome;
    for (const auto& v : verdicts) ++by_outcome[str(v, "outcome") == "none" ? str(v, "status") : str(v, "outcome")];
    std::cout << o.place << " in " << o.dir << ": " << verdicts.size() << " verdicts";
    for (const auto& [k, n] : by_outcome) std::cout << ", " << n << " " << k;
    std::cout << "; " << samples.size() << " samples\n\nverdicts (not passing first):\n";
    std::cout << cell("outcome", 14) << cell("place", 28) << cell("criterion", 36) << cell("value", 16) << "reason\n";
    for (const auto& v : verdicts) {
      const std::string outcome = str(v, "outcome") == "none" ? str(v, "status") : str(v, "outcome");
      std::cout << cell(outcome + (str(v, "severity") == "warning" ? "*" : ""), 14) << cell(str(v, "place"), 28)
                << cell(str(v, "criterion"), 36) << cell(value_text(v), 16) << str(v, "reason") << "\n";
    }
    if (!folded.empty()) {
      std::cout << "\npassing verdicts counted, not listed (report.json folds past 256 hosts):\n";
      for (const auto& f : folded) {
        const auto& m = f["worst_margin"];
        std::cout << "  " << str(f, "criterion") << ": " << f["places"].get<long long>() << " " << str(f, "kind")
                  << " place(s) on " << str(f, "host") << " passed"
                  << (m.is_number() ? ", worst margin " + base::format_number(m.get<double>()) : std::string()) << "\n";
      }
    }
    std::cout << "(* a warning: it does not fail the run)\n\nsamples:\n"
              << cell("place", 28) << cell("metric", 36) << cell("value", 16) << cell("rank", 5) << "params\n";
    for (const Sample* s : samples)
      std::cout << cell(s->place, 28) << cell(s->metric, 36) << cell(value_text(to_json(*s)), 16)
                << cell(std::to_string(s->rank), 5) << s->params.dump() << "\n";
    return kExitPass;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept show: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
