#include "reports/bad_hosts.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "base/file_io.hpp"
#include "base/natural_order.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

// Worst first: what the operator does about a host is decided by its worst outcome.
int severity(OutcomeClass o) {
  switch (o) {
    case OutcomeClass::node_fault: return 3;
    case OutcomeClass::tool_error: return 2;
    case OutcomeClass::inconclusive: return 1;
    case OutcomeClass::none: return 0;
  }
  return 0;
}

// One line of a TSV field: no tab, no newline.
std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) out.push_back(std::move(cur)), cur.clear();
    else cur += c;
  }
  out.push_back(std::move(cur));
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

std::vector<std::string> hosts_of_place(const std::string& place) {
  if (auto h = place::host_of(place); !h.empty()) return {h};
  std::vector<std::string> out;
  if (auto ends = place::split_pair(place))
    for (const auto& e : {ends->first, ends->second})
      if (auto h = place::host_of(e); !h.empty() && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  return out;
}

OutcomeClass outcome_from_words(const std::string& w) {
  if (w == "node fault") return OutcomeClass::node_fault;
  if (w == "tool error") return OutcomeClass::tool_error;
  if (w == "inconclusive") return OutcomeClass::inconclusive;
  return OutcomeClass::none;
}

const char* outcome_words(OutcomeClass o) {
  switch (o) {
    case OutcomeClass::node_fault: return "node fault";
    case OutcomeClass::tool_error: return "tool error";
    case OutcomeClass::inconclusive: return "inconclusive";
    case OutcomeClass::none: return "pass";
  }
  return "pass";
}

BadHosts bad_hosts(const Report& r) {
  BadHosts out;
  const nlohmann::json& run = r.run;
  if (run.contains("slurm") && run["slurm"].is_object() && run["slurm"].contains("job_id"))
    out.run_id = "slurm job " + run["slurm"]["job_id"].get<std::string>();
  else if (run.contains("started") && run["started"].is_string())
    out.run_id = run["started"].get<std::string>();
  else
    out.run_id = "unknown";
  const Judgement& j = *r.judgement;
  out.overall = j.summary.overall;

  std::set<std::string> judged;
  for (const auto& s : r.hosts) judged.insert(s.host);
  struct Acc {
    OutcomeClass outcome = OutcomeClass::none;
    std::vector<std::string> criteria;
    std::string evidence;
    std::vector<std::string> actions;
  };
  std::map<std::string, Acc> by_host;
  auto note = [&](const std::string& host, OutcomeClass o, const std::string& criterion, const std::string& evidence,
                  const Params* params) {
    judged.insert(host);
    Acc& a = by_host[host];
    if (severity(o) > severity(a.outcome)) a = Acc{o, {}, evidence, {}};  // a worse outcome starts over
    if (severity(o) < severity(a.outcome)) return;
    if (std::find(a.criteria.begin(), a.criteria.end(), criterion) == a.criteria.end()) a.criteria.push_back(criterion);
    if (params && params->contains("actions") && params->at("actions").is_array())
      for (const auto& act : params->at("actions"))
        if (act.is_object() && act.contains("action") && act["action"].is_string()) {
          const auto word = act["action"].get<std::string>();
          if (std::find(a.actions.begin(), a.actions.end(), word) == a.actions.end()) a.actions.push_back(word);
        }
  };
  for (const auto& v : j.verdicts) {
    if (v.severity != Severity::error || v.outcome() == OutcomeClass::none) continue;
    for (const auto& h : hosts_of_place(v.place))
      note(h, v.outcome(), v.criterion, v.criterion + " at " + v.place + ": " + v.reason, &v.params);
  }
  if (j.incomplete)
    for (const auto& m : j.incomplete->missing_ranks)
      if (!m.host.empty())
        note(m.host, OutcomeClass::inconclusive, "run.complete",
             "rank " + std::to_string(m.rank) + " lost during " + j.incomplete->probe + ": " + j.incomplete->reason,
             nullptr);

  out.judged.assign(judged.begin(), judged.end());
  std::sort(out.judged.begin(), out.judged.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  for (const auto& h : out.judged) {
    auto it = by_host.find(h);
    if (it == by_host.end()) continue;
    out.hosts.push_back({h, it->second.outcome, it->second.criteria, it->second.evidence, it->second.actions});
  }
  return out;
}

std::string bad_hosts_text(const BadHosts& b) {
  std::string s = "# gpuaccept bad hosts: one line per host that did not pass (" + std::to_string(b.hosts.size()) +
                  " of " + std::to_string(b.judged.size()) + ")\n";
  s += "# run: " + field(b.run_id) + "\n";
  s += "# overall: " + field(b.overall) + "\n";
  s += "# judged: " + join(b.judged, ",") + "\n";
  s += "# columns: host\toutcome\tcriteria\tevidence\tactions\n";
  for (const auto& h : b.hosts)
    s += field(h.host) + "\t" + outcome_words(h.outcome) + "\t" + field(join(h.criteria, ",")) + "\t" +
         field(h.evidence) + "\t" + field(join(h.actions, ",")) + "\n";
  return s;
}

BadHosts parse_bad_hosts(const std::string& text, const std::string& name) {
  BadHosts b;
  std::istringstream in(text);
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) { return std::runtime_error(name + ":" + std::to_string(n) + ": " + why); };
    if (line[0] == '#') {
      auto value = [&](const char* key) -> std::optional<std::string> {
        const std::string k = std::string("# ") + key + ": ";
        if (line.rfind(k, 0) != 0) return std::nullopt;
        return line.substr(k.size());
      };
      if (line.rfind("# gpuaccept bad hosts", 0) == 0) header = true;
      else if (auto v = value("run")) b.run_id = *v;
      else if (auto v = value("overall")) b.overall = *v;
      else if (auto v = value("judged")) b.judged = v->empty() ? std::vector<std::string>{} : split(*v, ',');
      continue;
    }
    if (!header) throw bad("not a gpuaccept bad-hosts file (no \"# gpuaccept bad hosts\" line first)");
    const auto f = split(line, '\t');
    if (f.size() != 4 && f.size() != 5)
      throw bad("expected 5 tab-separated fields (host, outcome, criteria, evidence, actions), found " +
                std::to_string(f.size()));
    BadHost h;
    h.host = f[0];
    h.outcome = outcome_from_words(f[1]);
    if (h.outcome == OutcomeClass::none) throw bad("unknown outcome \"" + f[1] + "\" (node fault, tool error or inconclusive)");
    h.criteria = f[2].empty() ? std::vector<std::string>{} : split(f[2], ',');
    h.evidence = f[3];
    if (f.size() == 5 && !f[4].empty()) h.actions = split(f[4], ',');
    b.hosts.push_back(std::move(h));
  }
  if (!header) throw std::runtime_error(name + ": not a gpuaccept bad-hosts file (empty)");
  return b;
}

BadHosts read_bad_hosts(const std::string& dir) {
  const auto path = (std::filesystem::path(dir) / "bad-hosts.txt").string();
  if (!std::filesystem::exists(path))
    throw std::runtime_error("no " + path + " (a run writes it; for an older run directory, `gpuaccept judge " + dir +
                             "` writes it)");
  const auto bytes = base::read_whole_file(path);
  return parse_bad_hosts(std::string(bytes.begin(), bytes.end()), path);
}

}  // namespace ga
