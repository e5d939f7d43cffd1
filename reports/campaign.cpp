// A re-test campaign merged from the previous run's directory and this re-test; see campaign.hpp.
#include "reports/campaign.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/json_file.hpp"
#include "base/natural_order.hpp"
#include "topology/place.hpp"

namespace ga {

namespace {

std::vector<std::string> strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> v;
  if (j.contains(key) && j[key].is_array())
    for (const auto& s : j[key])
      if (s.is_string()) v.push_back(s.get<std::string>());
  return v;
}

std::string str(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string list(const std::vector<std::string>& v, std::size_t most = 6) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < most; ++i) s += (s.empty() ? "" : ", ") + v[i];
  if (v.size() > most) s += " and " + std::to_string(v.size() - most) + " more";
  return s.empty() ? "none" : s;
}

}  // namespace

std::optional<nlohmann::json> read_campaign_json(const std::string& dir) {
  const auto path = std::filesystem::path(dir) / "campaign.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  std::ifstream in(path);
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

Campaign campaign_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("hosts") || !j["hosts"].is_array() || !j.contains("runs") || !j["runs"].is_array())
    throw std::runtime_error("not a campaign (no \"runs\" and \"hosts\" lists)");
  Campaign c;
  for (const auto& r : j["runs"]) c.runs.push_back({str(r, "id"), str(r, "dir")});
  for (const auto& h : j["hosts"]) {
    CampaignHost ch;
    ch.host = str(h, "host");
    ch.outcome = outcome_from_words(str(h, "outcome"));
    ch.status = str(h, "status");
    ch.decided_by = str(h, "decided_by");
    ch.criteria = strings(h, "criteria");
    ch.evidence = str(h, "evidence");
    ch.actions = strings(h, "actions");
    for (auto& at : strings(h, "failed_at")) {
      if (at == "+more") ch.failed_at_cut = true;
      else ch.failed_at.push_back(std::move(at));
    }
    for (const auto& st : h.value("history", nlohmann::json::array()))
      ch.history.push_back({str(st, "run"), outcome_from_words(str(st, "outcome")), strings(st, "criteria"), str(st, "evidence")});
    c.hosts.push_back(std::move(ch));
  }
  return c;
}

Campaign parse_campaign(const std::string& text, const std::string& name) {
  const nlohmann::json j = base::parse_json_text(text, name);
  try {
    return campaign_from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(name + ": " + e.what());
  }
}

Campaign campaign_of_run(const std::string& dir) {
  const BadHosts b = read_bad_hosts(dir);
  if (const auto cj = read_campaign_json(dir)) {
    try {
      return campaign_from_json(*cj);
    } catch (const std::exception& e) {
      throw std::runtime_error((std::filesystem::path(dir) / "campaign.json").string() + ": " + e.what());
    }
  }
  Campaign c;
  c.runs.push_back({b.run_id, std::filesystem::absolute(dir).lexically_normal().string()});
  std::map<std::string, const BadHost*> bad;
  for (const auto& h : b.hosts) bad[h.host] = &h;
  std::set<std::string> all(b.judged.begin(), b.judged.end());
  for (const auto& h : b.hosts) all.insert(h.host);
  for (const auto& name : all) {
    CampaignHost ch;
    ch.host = name;
    ch.decided_by = b.run_id;
    if (auto it = bad.find(name); it != bad.end()) {
      ch.outcome = it->second->outcome;
      ch.criteria = it->second->criteria;
      ch.evidence = "[" + b.run_id + "] " + it->second->evidence;
      ch.actions = it->second->actions;
      ch.failed_at = it->second->failed_at;
      ch.failed_at_cut = it->second->failed_at_cut;
    }
    ch.status = ch.outcome == OutcomeClass::none ? "passed" : outcome_words(ch.outcome);
    ch.history.push_back({b.run_id, ch.outcome, ch.criteria, ch.evidence});
    c.hosts.push_back(std::move(ch));
  }
  return c;
}

Campaign merge_campaign(Campaign previous, const Report& now) {
  Campaign c = std::move(previous);
  const BadHosts nb = bad_hosts(now);
  // This run's directory is not named: wherever the directory is copied, its campaign files
  // are the same (verify compares them byte for byte).
  c.runs.push_back({nb.run_id, ""});
  std::map<std::string, const BadHost*> bad_now;
  for (const auto& h : nb.hosts) bad_now[h.host] = &h;
  const std::set<std::string> judged_now(nb.judged.begin(), nb.judged.end());

  std::map<std::string, CampaignHost> hosts;
  for (auto& h : c.hosts) hosts[h.host] = std::move(h);
  for (const auto& h : judged_now) hosts.try_emplace(h, CampaignHost{h, OutcomeClass::none, "", "", {}, "", {}, {}, false, {}});

  // The re-test's passing verdicts by CRITERION@PLACE, a pair's place both ways round.
  std::set<std::string> passed_at;
  for (const auto& v : now.judgement->verdicts) {
    if (v.status != VerdictStatus::pass) continue;
    passed_at.insert(v.criterion + "@" + v.place);
    if (const auto ends = place::split_pair(v.place))
      passed_at.insert(v.criterion + "@" + place::pair(ends->second, ends->first));
  }
  // What a bad host failed that this re-test did not pass at the same place: empty clears it.
  // A lost rank (run.complete) is answered by the host being judged in a complete re-test.
  auto unanswered = [&](const CampaignHost& h) {
    std::vector<std::string> open;
    auto add = [&](const std::string& what) {
      if (std::find(open.begin(), open.end(), what) == open.end()) open.push_back(what);
    };
    for (const auto& at : h.failed_at) {
      const std::string criterion = at.substr(0, at.find('@'));
      if (criterion == "run.complete" ? !now.judgement->incomplete : passed_at.count(at) > 0) continue;
      add(at);
    }
    // An older bad-hosts.txt without failed_at, or one cut short: every criterion it failed
    // must at least pass somewhere on the host.
    if (h.failed_at.empty() || h.failed_at_cut)
      for (const auto& c : h.criteria) {
        if (c == "run.complete" && !now.judgement->incomplete) continue;
        const bool somewhere = std::any_of(now.judgement->verdicts.begin(), now.judgement->verdicts.end(), [&](const Verdict& v) {
          if (v.status != VerdictStatus::pass || v.criterion != c) return false;
          const auto hs = place::hosts_of(v.place);
          return std::find(hs.begin(), hs.end(), h.host) != hs.end();
        });
        if (!somewhere) add(c + "@" + h.host);
      }
    return open;
  };

  // What the re-test's verdicts on a host say about the criteria it had failed: the evidence
  // that clears it.
  auto passes_on = [&](const std::string& host, const std::vector<std::string>& criteria, const std::string& before) {
    std::vector<std::string> out, elsewhere;
    for (const auto& v : now.judgement->verdicts) {
      if (v.status != VerdictStatus::pass || std::find(criteria.begin(), criteria.end(), v.criterion) == criteria.end())
        continue;
      const auto hs = place::hosts_of(v.place);
      if (std::find(hs.begin(), hs.end(), host) == hs.end()) continue;
      // The place the earlier evidence names first: that is the one the operator asks about.
      const bool named = before.find(v.criterion + " at " + v.place + ":") != std::string::npos;
      (named ? out : elsewhere).push_back(v.criterion + " at " + v.place + " passed: " + v.reason);
    }
    out.insert(out.end(), elsewhere.begin(), elsewhere.end());
    return out;
  };

  c.retested.clear();
  c.partners.clear();
  for (auto& [name, h] : hosts) {
    if (!judged_now.count(name)) {
      if (h.outcome != OutcomeClass::none) h.status = "not re-tested";
      continue;
    }
    const OutcomeClass before = h.outcome;
    const bool was_bad = before != OutcomeClass::none;
    (was_bad ? c.retested : c.partners).push_back(name);
    const auto it = bad_now.find(name);
    const std::vector<std::string> failed_before = h.criteria;
    const std::string evidence_before = h.evidence;
    h.decided_by = nb.run_id;
    if (it != bad_now.end()) {
      h.outcome = it->second->outcome;
      h.criteria = it->second->criteria;
      h.evidence = "[" + nb.run_id + "] " + it->second->evidence;
      h.actions = it->second->actions;
      h.failed_at = it->second->failed_at;
      h.failed_at_cut = it->second->failed_at_cut;
      h.status = !was_bad ? "new" : h.outcome == OutcomeClass::node_fault ? "confirmed" : "still inconclusive";
    } else if (const auto open = was_bad ? unanswered(h) : std::vector<std::string>{}; !open.empty()) {
      // Judged, but not on what the host failed: its earlier outcome stands, and so does the
      // run that decided it.
      h.decided_by = h.history.back().run;
      h.status = "not re-tested";
      h.evidence = "[" + nb.run_id + "] judged, but no passing verdict of " + list(open, 3) +
                   " in this run (its suite or criteria did not re-judge it there): still " + outcome_words(before) +
                   " from " + h.history.back().run + "; " + evidence_before;
      h.history.push_back({nb.run_id, OutcomeClass::none, {}, "[" + nb.run_id + "] not re-judged: " + list(open, 3)});
      continue;
    } else {
      h.outcome = OutcomeClass::none;
      h.criteria.clear();
      h.actions.clear();
      h.failed_at.clear();
      h.failed_at_cut = false;
      if (was_bad) {
        const auto ev = passes_on(name, failed_before, evidence_before);
        h.status = "cleared";
        h.evidence = "[" + nb.run_id + "] passed the re-test: " +
                     (ev.empty() ? std::string("complete, every rank reported") : list(ev, 3)) + "; was " + outcome_words(before) + " in " +
                     h.history.back().run + " (" + list(failed_before, 3) + ")";
      } else {
        h.status = "passed";
        h.evidence.clear();
      }
    }
    h.history.push_back({nb.run_id, h.outcome, h.criteria, h.evidence});
  }
  c.hosts.clear();
  for (auto& [name, h] : hosts) c.hosts.push_back(std::move(h));
  std::sort(c.hosts.begin(), c.hosts.end(), [](const auto& a, const auto& b) { return natural_less(a.host, b.host); });
  auto nat = [](std::vector<std::string>& v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  };
  nat(c.retested);
  nat(c.partners);
  // Tool errors name no host (bad-hosts.txt leaves them out): the re-test's own verdicts say
  // whether gpuaccept broke in it.
  bool fault = false, unsure = false;
  bool tool = std::any_of(now.judgement->verdicts.begin(), now.judgement->verdicts.end(), [](const Verdict& v) {
    return v.severity == Severity::error && v.outcome() == OutcomeClass::tool_error;
  });
  for (const auto& h : c.hosts) {
    fault = fault || h.outcome == OutcomeClass::node_fault;
    tool = tool || h.outcome == OutcomeClass::tool_error;
    unsure = unsure || h.outcome == OutcomeClass::inconclusive;
  }
  c.overall = fault ? "FAIL" : tool ? "TOOL ERROR" : unsure ? "INCONCLUSIVE" : "PASS";
  return c;
}

nlohmann::json campaign_to_json(const Campaign& c) {
  nlohmann::json j = {{"schema_version", 1}, {"overall", c.overall}, {"retested", c.retested}, {"partners", c.partners}};
  j["runs"] = nlohmann::json::array();
  for (const auto& r : c.runs) j["runs"].push_back({{"id", r.id}, {"dir", r.dir}});
  j["hosts"] = nlohmann::json::array();
  for (const auto& h : c.hosts) {
    nlohmann::json hj = {{"host", h.host},         {"outcome", outcome_words(h.outcome)}, {"status", h.status},
                         {"decided_by", h.decided_by}, {"criteria", h.criteria},          {"evidence", h.evidence},
                         {"actions", h.actions}};
    auto at = h.failed_at;
    if (h.failed_at_cut) at.push_back("+more");
    hj["failed_at"] = at;
    hj["history"] = nlohmann::json::array();
    for (const auto& s : h.history)
      hj["history"].push_back({{"run", s.run}, {"outcome", outcome_words(s.outcome)}, {"criteria", s.criteria}, {"evidence", s.evidence}});
    j["hosts"].push_back(std::move(hj));
  }
  return j;
}

std::string campaign_to_markdown(const Campaign& c) {
  std::ostringstream o;
  o << "# gpuaccept re-test campaign: " << c.overall << "\n\n";
  o << "| # | run | directory |\n|---:|---|---|\n";
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    o << "| " << i + 1 << " | " << c.runs[i].id << " | "
      << (c.runs[i].dir.empty() ? std::string("this directory") : c.runs[i].dir + " (when it ran)") << " |\n";
  o << "\nThis run re-tested " << list(c.retested) << " against " << list(c.partners)
    << " (hosts that had passed). Each host's outcome is that of the last run that measured it.\n\n";
  o << "| host | now | status | decided by | evidence |\n|---|---|---|---|---|\n";
  int always = 0;
  for (const auto& h : c.hosts) {
    const bool ever_bad = std::any_of(h.history.begin(), h.history.end(), [](const auto& s) { return s.outcome != OutcomeClass::none; });
    if (!ever_bad) {
      ++always;
      continue;
    }
    std::string ev = h.evidence;
    for (char& ch : ev)
      if (ch == '|' || ch == '\n') ch = ' ';
    o << "| " << h.host << " | " << outcome_words(h.outcome) << " | " << h.status << " | " << h.decided_by << " | " << ev << " |\n";
  }
  o << "\n" << always << " host(s) passed every run that measured them.\n";
  return o.str();
}

BadHosts campaign_bad_hosts(const Campaign& c) {
  BadHosts b;
  b.run_id = c.runs.empty() ? "unknown" : c.runs.back().id;
  b.overall = c.overall;
  for (const auto& h : c.hosts) {
    b.judged.push_back(h.host);
    if (h.outcome != OutcomeClass::none)
      b.hosts.push_back({h.host, h.outcome, h.criteria, h.evidence, h.actions, h.failed_at, h.failed_at_cut});
  }
  return b;
}

}  // namespace ga
