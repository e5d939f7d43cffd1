// Per-probe status, folded from the per-rank outcomes, and the record of a run that did not
// finish. Reasons name hosts, since hosts are what an operator drains or fixes.
#include <algorithm>
#include <map>
#include <set>

#include "suites/judge_parts.hpp"

namespace ga::judging {

namespace {

// Worse statuses win when folding ranks: a failure anywhere is the news.
int rank_of(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::failed: return 4;
    case ProbeStatus::error: return 3;
    case ProbeStatus::timeout: return 2;
    case ProbeStatus::ok: return 1;
    case ProbeStatus::skipped: return 0;
  }
  return 3;
}

ProbeStatus fold(const std::vector<RankOutcome>& outcomes) {
  bool any_failed = false, any_error = false, any_timeout = false, all_skipped = !outcomes.empty();
  for (const auto& o : outcomes) {
    any_failed = any_failed || o.status == ProbeStatus::failed;
    any_error = any_error || o.status == ProbeStatus::error;
    any_timeout = any_timeout || o.status == ProbeStatus::timeout;
    all_skipped = all_skipped && o.status == ProbeStatus::skipped;
  }
  if (any_failed) return ProbeStatus::failed;
  if (any_error) return ProbeStatus::error;
  if (any_timeout) return ProbeStatus::timeout;
  if (all_skipped) return ProbeStatus::skipped;
  return ProbeStatus::ok;
}

}  // namespace

std::vector<std::pair<std::string, HostOutcome>> host_outcomes(const ProbeSummary& p) {
  std::map<std::string, std::vector<RankOutcome>> by_host;
  for (const auto& o : p.per_rank) by_host[o.host].push_back(o);
  std::vector<std::pair<std::string, HostOutcome>> out;
  for (const auto& [host, outcomes] : by_host) {
    HostOutcome h;
    h.status = fold(outcomes);
    std::vector<std::string> reasons;
    for (const auto& o : outcomes)
      if (o.status == h.status && !o.reason.empty() &&
          std::find(reasons.begin(), reasons.end(), o.reason) == reasons.end())
        reasons.push_back(o.reason);
    for (const auto& r : reasons) h.reason += (h.reason.empty() ? "" : "; ") + r;
    out.emplace_back(host, h);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return place_less(a.first, b.first); });
  return out;
}

std::vector<ProbeSummary> summarize_probes(const JournalData& j) {
  std::vector<ProbeSummary> out;
  for (const auto& rec : j.probes) {
    ProbeSummary s;
    s.name = rec.name;
    s.per_rank = rec.outcomes;
    std::sort(s.per_rank.begin(), s.per_rank.end(),
              [](const RankOutcome& a, const RankOutcome& b) { return a.rank < b.rank; });
    if (!rec.ended && rec.outcomes.empty()) {
      // Begun and never ended: from the judge's side that is a probe that ran out of time,
      // whether the watchdog or the batch system stopped it.
      s.status = ProbeStatus::timeout;
      s.reason = "did not finish: the run stopped during this probe";
      out.push_back(std::move(s));
      continue;
    }
    s.status = fold(s.per_rank);
    // One line: each distinct non-ok reason once, with the hosts that gave it, worst first.
    // Sets, not searches of lists: at 4096 hosts x 8 ranks a search per rank was 2% of the judge.
    std::map<std::pair<int, std::string>, std::set<std::string>> group_hosts;  // (-severity, reason) -> hosts
    std::set<std::string> hosts_all;
    for (const auto& o : s.per_rank) {
      hosts_all.insert(o.host);
      if (o.status != ProbeStatus::ok) group_hosts[{-rank_of(o.status), o.reason}].insert(o.host);
    }
    for (auto& [key, host_set] : group_hosts) {
      std::vector<std::string> hosts(host_set.begin(), host_set.end());
      std::sort(hosts.begin(), hosts.end(), place_less);
      const auto status = key.first == -rank_of(ProbeStatus::failed)    ? "failed"
                          : key.first == -rank_of(ProbeStatus::error)   ? "tool error"
                          : key.first == -rank_of(ProbeStatus::timeout) ? "timed out"
                                                                       : "skipped";
      const std::string where = hosts.size() == hosts_all.size() && hosts_all.size() > 1
                                    ? "on all " + std::to_string(hosts.size()) + " hosts"
                                    : "on " + list_text(hosts);
      std::string part = key.second.empty() ? std::string(status) + " " + where
                                            : key.second + " (" + status + " " + where + ")";
      s.reason += (s.reason.empty() ? "" : "; ") + part;
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<IncompleteRecord> find_incomplete(const JournalData& j, const std::vector<ProbeSummary>& probes) {
  // The watchdog's own record knows most: which ranks it waited for and who noticed. A hang
  // in MPI_Finalize can leave one record per host (each host sees only its own ranks), so the
  // records are merged: the first names the phase, every record adds its missing ranks.
  if (!j.incomplete.empty()) {
    IncompleteRecord r = j.incomplete.front();
    auto has = [](const std::vector<RankRef>& v, int rank) {
      return std::any_of(v.begin(), v.end(), [&](const RankRef& x) { return x.rank == rank; });
    };
    for (std::size_t i = 1; i < j.incomplete.size(); ++i) {
      const auto& more = j.incomplete[i];
      for (const auto& m : more.missing_ranks)
        if (!has(r.missing_ranks, m.rank)) r.missing_ranks.push_back(m);
      if (more.reason != r.reason) r.reason += "; " + more.reason;
    }
    std::sort(r.missing_ranks.begin(), r.missing_ranks.end(), [](const RankRef& a, const RankRef& b) { return a.rank < b.rank; });
    std::erase_if(r.waiting_ranks, [&](const RankRef& w) { return has(r.missing_ranks, w.rank); });
    return r;
  }

  if (!j.run_ended) {
    IncompleteRecord r;
    const ProbeRecord* open = nullptr;
    for (const auto& p : j.probes)
      if (!p.ended) open = &p;
    r.probe = open ? open->name : (j.probes.empty() ? "startup" : "shutdown");
    // A rank is accounted for if it wrote a signal record (it survived to be terminated) or
    // reported an outcome for the probe in flight (it finished its part); the others left
    // nothing and are the ones to look at.
    std::map<int, const SignalRecord*> signalled;
    for (const auto& s : j.signals) signalled.emplace(s.rank, &s);
    std::map<int, bool> finished;
    if (open)
      for (const auto& o : open->outcomes) finished[o.rank] = true;
    std::map<std::string, std::vector<RankRef>> by_signal;
    std::vector<RankRef> done;
    for (const auto& rk : j.ranks) {
      RankRef ref{rk.rank, rk.host};
      if (auto it = signalled.find(rk.rank); it != signalled.end()) {
        r.waiting_ranks.push_back(ref);
        by_signal[it->second->signal.empty() ? "a signal" : it->second->signal].push_back(ref);
      } else if (finished.count(rk.rank)) {
        done.push_back(ref);
      } else {
        r.missing_ranks.push_back(ref);
      }
    }
    std::string what = open              ? "the run ended before probe " + r.probe + " finished"
                       : j.probes.empty() ? "the run ended during startup, before any probe began"
                                          : "the run ended after its last probe, before shutting down cleanly";
    std::vector<std::string> parts;
    if (!r.missing_ranks.empty()) parts.push_back(ranks_text(r.missing_ranks) + " left no record (killed or lost)");
    for (const auto& [sig, refs] : by_signal)
      parts.push_back(ranks_text(refs) + (refs.size() == 1 ? " was" : " were") + " terminated by " + sig);
    if (!done.empty()) parts.push_back(ranks_text(done) + (done.size() == 1 ? " had" : " had") + " finished it");
    r.reason = what;
    for (std::size_t i = 0; i < parts.size(); ++i) r.reason += (i ? "; " : ": ") + parts[i];
    return r;
  }

  // The run ended, but a probe was stopped by its deadline on some ranks: its results are
  // partial, so the run is incomplete rather than failed or passed.
  for (const auto& p : probes) {
    if (p.status != ProbeStatus::timeout) continue;
    IncompleteRecord r;
    r.probe = p.name;
    for (const auto& o : p.per_rank)
      if (o.status == ProbeStatus::timeout) r.missing_ranks.push_back({o.rank, o.host});
      else r.waiting_ranks.push_back({o.rank, o.host});
    r.reason = "probe " + p.name + " timed out";
    if (!r.missing_ranks.empty()) r.reason += " on " + ranks_text(r.missing_ranks);
    if (!p.reason.empty()) r.reason += ": " + p.reason;
    return r;
  }
  return std::nullopt;
}

}  // namespace ga::judging
