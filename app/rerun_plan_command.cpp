// gpuaccept rerun-plan DIR: the re-test of a run's node-fault and inconclusive hosts, each with
// hosts that passed in DIR as known-good partners (a suspect that passes against them is cleared;
// one that fails again is confirmed). Prints the hostfile and the mpirun and sbatch lines, built
// by the launchers, that run `gpuaccept run --rerun DIR` (DIR's suite, both runs merged into one
// campaign: reports/campaign.hpp); runs nothing. Where a suspect showed tail events in DIR's
// p2p probe, the re-test is sized from its rate (issue 33: a short re-test that misses a few
// losses in a hundred is no evidence of health): `--set p2p.min_exchanges=N` on the lines, the
// figure and what it promises printed above them.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "base/file_io.hpp"
#include "base/poisson.hpp"
#include "base/quantity.hpp"
#include "launchers/launch.hpp"
#include "launchers/slurm_admin.hpp"
#include "probes/journal.hpp"
#include "probes/harness/retest_length.hpp"
#include "reports/bad_hosts.hpp"

namespace ga::app {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// The tail events and round trips of each host's pairs between hosts (p2p, every pass) in DIR's
// journal; a host is either end of its pairs. Empty where DIR has no readable journal or no p2p.
std::map<std::string, std::pair<double, double>> tail_counts(const std::string& dir) {
  std::map<std::string, std::pair<double, double>> by_host;  // host -> {events, exchanges}
  JournalData j;
  try {
    j = read_journal((std::filesystem::path(dir) / "samples.jsonl").string());
  } catch (const std::exception&) {
    return by_host;  // bad-hosts.txt was readable; without the journal the re-test is by time, as before
  }
  for (const auto& smp : j.samples) {
    if (!smp.value || (smp.metric != "p2p.exchanges" && smp.metric != "p2p.tail_events")) continue;
    const nlohmann::json& p = smp.params;
    if (p.value("path", std::string("inter")) != "inter" || !p.contains("direction") || !p["direction"].is_string()) continue;
    const std::string d = p["direction"].get<std::string>();
    const auto arrow = d.find("->");
    if (arrow == std::string::npos) continue;
    for (std::string end : {d.substr(0, arrow), d.substr(arrow + 2)}) {
      end = end.substr(0, end.find('/'));  // rail mode: host/rail:K
      auto& c = by_host[end];
      (smp.metric == "p2p.exchanges" ? c.second : c.first) += *smp.value;
    }
  }
  return by_host;
}

}  // namespace

int rerun_plan_command(const RerunPlanOptions& o) {
  try {
    const BadHosts b = read_bad_hosts(o.dir);
    std::vector<std::string> suspects, faults, unsure;
    std::set<std::string> listed;
    for (const auto& h : b.hosts) {
      listed.insert(h.host);
      if (h.outcome == OutcomeClass::node_fault) faults.push_back(h.host);
      else if (h.outcome == OutcomeClass::inconclusive) unsure.push_back(h.host);
      else continue;  // a tool error: fix the tool, then run again; no host is suspected
      suspects.push_back(h.host);
    }
    if (suspects.empty()) {
      std::cerr << "gpuaccept: nothing to re-test in " << o.dir << " (no node fault, no inconclusive host)\n";
      return kExitPass;
    }
    std::vector<std::string> passed;
    for (const auto& h : b.judged)
      if (!listed.count(h)) passed.push_back(h);
    // Partners spread over the hosts that passed (natural order), not the first few: neighbours in
    // a name often share a leaf switch, and the re-test should not hold a suspect only against one.
    std::vector<std::string> partners;
    const std::size_t k = std::min<std::size_t>(passed.size(), std::max(1, o.partners));
    for (std::size_t i = 0; i < k; ++i) partners.push_back(passed[i * passed.size() / k]);
    std::vector<std::string> hosts = suspects;
    hosts.insert(hosts.end(), partners.begin(), partners.end());
    // Sized from the suspects' own rates: the longest any of them asks for.
    const isolation::RetestSizing sizing;
    const auto counts = tail_counts(o.dir);
    long min_exchanges = 0;
    std::vector<std::string> sizing_lines;
    for (const auto& h : suspects) {
      const auto it = counts.find(h);
      if (it == counts.end() || !(it->second.first > 0)) continue;
      const auto l = isolation::retest_length(it->second.first, it->second.second, sizing);
      if (l.planned <= 0) continue;
      char p[32];
      std::snprintf(p, sizeof p, "%.3g", l.p_seen);
      sizing_lines.push_back("# " + h + ": " + base::format_number(l.events) + " tail event(s) in " + base::format_number(l.exchanges) +
                             " round trips (" + base::format_number(l.rate * 100) + "%): re-test latencies of " +
                             std::to_string(l.planned) + " round trips, so a fault still present shows " +
                             std::to_string(sizing.events_wanted) + " event(s) with probability " + p +
                             (l.capped ? " (cut by the budget of " + std::to_string(sizing.max_exchanges) + ")" : ""));
      min_exchanges = std::max(min_exchanges, l.planned);
    }

    std::cout << "# re-test of " << suspects.size() << " host(s) of " << o.dir << " (node fault: "
              << (faults.empty() ? "none" : join(faults)) << "; inconclusive: " << (unsure.empty() ? "none" : join(unsure))
              << ") with " << partners.size() << " that passed: " << (partners.empty() ? "none" : join(partners)) << "\n";
    if (partners.empty()) std::cout << "# no host passed in this run: the suspects are held only against each other\n";
    std::cout << "# hostfile:\n";
    for (const auto& h : hosts) std::cout << h << "\n";
    launch::Request r;
    r.hosts = hosts;
    r.ranks_per_host = o.ranks_per_host > 0 ? o.ranks_per_host : 1;
    // `run --rerun DIR` runs DIR's suite again and merges the two runs into one campaign.
    const std::string abs_dir = std::filesystem::absolute(o.dir).lexically_normal().string();
    r.program = {"gpuaccept", "run", "--rerun", abs_dir};
    std::vector<std::string> extra;
    if (min_exchanges > 0) {
      std::cout << "# re-test length, from the suspects' own tail events in " << o.dir << " (n = ceil(lambda / rate), lambda = "
                << base::format_number(base::poisson_mean_for(sizing.events_wanted, sizing.confidence)) << " for "
                << sizing.events_wanted << " events at " << base::format_number(sizing.confidence * 100)
                << "%; docs/fabric.md#re-tests-long-enough):\n";
      for (const auto& l : sizing_lines) std::cout << l << "\n";
      extra = {"--set", "p2p.min_exchanges=" + std::to_string(min_exchanges)};
      r.program.insert(r.program.end(), extra.begin(), extra.end());
    }
    std::string extra_text;
    for (const auto& e : extra) extra_text += " " + e;
    std::cout << "# outside Slurm (or `gpuaccept launch --hostfile FILE --ranks-per-host N -- --rerun " << abs_dir << extra_text << "`):\n"
              << launch::shell_line(launch::mpirun_argv(r)) << "\n";
    std::cout << "# in Slurm (drained nodes take no jobs: resume them first, or use a maintenance reservation):\n"
              << [&] {
                   std::vector<std::string> a = {"sbatch", "--nodes=" + std::to_string(hosts.size()), "--nodelist=" + join(hosts),
                                                 "slurm/gpuaccept.sbatch", "--rerun", abs_dir};
                   a.insert(a.end(), extra.begin(), extra.end());
                   return launch::shell_line(a);
                 }()
              << "\n";
    return kExitNodeFault;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
