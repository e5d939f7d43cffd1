#include "app/run_support.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "app/commands.hpp"
#include "probes/devices/gpu_identity.hpp"
#include "probes/harness/process_state.hpp"
#include "probes/vendor/gpu_libraries.hpp"
#include "reports/attest.hpp"
#include "reports/bad_hosts.hpp"
#include "reports/campaign.hpp"
#include "suites/criteria.hpp"
#include "topology/topology.hpp"

namespace ga::app::run {

namespace fs = std::filesystem;

std::string iso_now() {
  auto t = std::chrono::system_clock::now();
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string default_out_dir() {
  std::time_t tt = std::time(nullptr);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "gpuaccept-report-%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}


// After SIGTERM (mpirun ends the job because a rank died), Open MPI sends SIGKILL one second
// later. Rank 0 waits for the other survivors' signal records only as long as it must: until
// every rank has written one or is visibly dead on this host, at most half a second.
std::vector<bool> wait_for_survivor_records(const std::string& journal, const std::vector<std::string>& rank_hosts,
                                            const std::vector<long>& pids, const std::string& host) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  std::vector<bool> accounted(rank_hosts.size(), false);
  while (std::chrono::steady_clock::now() < until) {
    accounted.assign(rank_hosts.size(), false);
    std::ifstream in(journal);
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"type\":\"signal\"") == std::string::npos) continue;
      try {
        auto r = nlohmann::json::parse(line).value("rank", -1);
        if (r >= 0 && static_cast<std::size_t>(r) < accounted.size()) accounted[static_cast<std::size_t>(r)] = true;
      } catch (const std::exception&) {
      }
    }
    bool all = true;
    for (std::size_t r = 0; r < rank_hosts.size() && all; ++r)
      if (!accounted[r] && !(rank_hosts[r] == host && process_state(pids[r]) != ProcState::running)) all = false;
    if (all) return accounted;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return accounted;
}



void progress(int rank, const std::string& msg) {
  if (rank == 0) std::fprintf(stderr, "[gpuaccept] %s\n", msg.c_str());
}


Layout make_layout(Comm& world, const std::string& host) {
  Layout l;
  auto all = world.allgather(host + "\t" + std::to_string(::getpid()));
  for (const auto& e : all) {
    auto tab = e.find('\t');
    l.rank_hosts.push_back(e.substr(0, tab));
    l.pids.push_back(std::stol(e.substr(tab + 1)));
  }
  for (int r = 0; r < world.size(); ++r) {
    const auto& h = l.rank_hosts[static_cast<std::size_t>(r)];
    if (std::find(l.hosts.begin(), l.hosts.end(), h) == l.hosts.end()) l.hosts.push_back(h);
    if (h == host) {
      if (r < world.rank()) ++l.local_rank;
      ++l.local_size;
    }
  }
  l.host_index = static_cast<int>(std::find(l.hosts.begin(), l.hosts.end(), host) - l.hosts.begin());
  return l;
}

// Each host's first rank discovers its topology; rank 0 assembles the cluster's and shares it.
topo::ClusterTopology gather_topology(Comm& world, const Layout& l, const std::string& host, const std::string& sysfs_root) {
  std::string mine;
  if (l.local_rank == 0) {
    nlohmann::json j;
    try {
      auto h = topo::discover_local(host, sysfs_root);
      // The GPUs' UUID and serial, so that the report names the card (probes/devices/gpu_identity.hpp);
      // NVML as the gpu probe finds it without suite params ($GPUACCEPT_NVML_LIBRARY, the driver's).
      gpu::add_gpu_identities(h, sysfs_root, gpu::library_paths(nlohmann::json::object()).nvml);
      j = topo::to_json(h);
    } catch (const std::exception& e) {
      topo::HostTopology h;
      h.hostname = host;
      h.source = std::string("error: ") + e.what();
      j = topo::to_json(h);
    }
    mine = j.dump();
  }
  auto parts = world.gather(mine, 0);
  std::string cluster;
  if (world.rank() == 0) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& p : parts)
      if (!p.empty()) arr.push_back(nlohmann::json::parse(p));
    cluster = arr.dump();
  }
  cluster = world.broadcast(cluster, 0);
  topo::ClusterTopology c;
  for (const auto& h : nlohmann::json::parse(cluster)) c.hosts.push_back(topo::host_from_json(h));
  return c;
}

nlohmann::json rank_refs_json(const std::vector<RankRef>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : v) a.push_back({{"rank", r.rank}, {"host", r.host}});
  return a;
}

// Judge what is on disk and say so; used on every exit path that can still write.
void judge_and_announce(const std::string& dir) {
  try {
    auto r = judge_directory(dir, "");
    std::fprintf(stderr, "[gpuaccept] %s\n", r.summary_line.c_str());
    if (!r.bad_hosts_line.empty()) std::fprintf(stderr, "[gpuaccept] %s\n", r.bad_hosts_line.c_str());
    std::fprintf(stderr, "[gpuaccept] report %s\n", (fs::path(dir) / "report.md").c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[gpuaccept] could not write the report: %s\n", e.what());
  }
}

nlohmann::json rerun_record(const std::string& dir) {
  const Campaign previous = campaign_of_run(dir);
  const fs::path manifest = fs::path(dir) / attest::kManifest;
  nlohmann::json digest = nullptr;
  if (fs::exists(manifest)) {
    const attest::Manifest m = attest::read_manifest(manifest.string());
    for (const char* name : {"bad-hosts.txt", "campaign.json"}) {
      const fs::path f = fs::path(dir) / name;
      const auto listed = m.files.find(name);
      if (!fs::exists(f) && listed == m.files.end()) continue;
      if (listed == m.files.end() || !fs::is_regular_file(fs::symlink_status(f)) || attest::sha256_file(f.string()) != listed->second)
        throw std::runtime_error(f.string() + ": not the file its run wrote (" +
                                 (listed == m.files.end() ? "not in " + manifest.string()
                                                          : "its sha256 is not the one " + manifest.string() + " gives") +
                                 "): a re-test acts on what its run judged; `gpuaccept verify " + dir + "` says more");
    }
    digest = attest::sha256_file(manifest.string());
  }
  return {{"run", previous.runs.empty() ? std::string("unknown") : previous.runs.back().id},
          {"dir", fs::absolute(dir).lexically_normal().string()},
          {"manifest_sha256", digest},
          {"suite", suite_of_run(dir)},
          {"campaign", campaign_to_json(previous)}};
}

std::string suite_of_run(const std::string& dir) {
  std::ifstream in((fs::path(dir) / "samples.jsonl").string());
  std::string line;
  if (!in || !std::getline(in, line)) return "default";
  try {
    const auto r = nlohmann::json::parse(line);
    const auto& argv = r.value("argv", nlohmann::json::array());
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--suite" && argv[i + 1].is_string()) return argv[i + 1].get<std::string>();
    // A re-test without --suite ran the suite of the run it re-tested, which it recorded.
    if (auto p = r.find("rerun_of"); p != r.end() && p->is_object() && p->contains("suite") && (*p)["suite"].is_string())
      return (*p)["suite"].get<std::string>();
    if (r.contains("suite") && r["suite"].is_object() && r["suite"].contains("name") && r["suite"]["name"].is_string())
      return r["suite"]["name"].get<std::string>();
  } catch (const std::exception&) {
  }
  return "default";
}

Inputs load_inputs(const RunOptions& o) {
  Inputs in;
  in.suite = load_suite(o.suite);
  for (const auto& a : o.overrides) apply_override(in.suite, a);
  // The run re-tested must say who its suspects were: its bad-hosts.txt (read_bad_hosts
  // throws, saying how to write it for an older directory).
  if (!o.rerun.empty()) in.rerun_of = rerun_record(o.rerun);
  if (!o.criteria.empty() && !o.criteria_profile.empty())
    throw std::invalid_argument("--criteria and --criteria-profile both given: a profile is a criteria set, give one");
  if (!o.criteria_profile.empty()) {
    // The run records the whole text, built-in criteria and profile, so `judge DIR` and
    // `verify DIR` judge it again the same way whatever a later gpuaccept's profile says.
    const CriteriaProfile p = criteria_profile(o.criteria_profile);
    in.criteria_source = p.source;
    in.criteria_text = p.text;
  } else if (o.criteria.empty() && !o.rerun.empty()) {
    // A re-test judges by the criteria its run was judged by (a buyer's contract, not the
    // built-in thresholds): clearing a host on weaker criteria than it failed would clear it on
    // no evidence. DIR's run_start recorded them whole.
    std::ifstream jin((fs::path(o.rerun) / "samples.jsonl").string());
    std::string line;
    nlohmann::json r;
    try {
      if (!jin || !std::getline(jin, line)) throw std::runtime_error("no run_start record");
      r = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw std::runtime_error((fs::path(o.rerun) / "samples.jsonl").string() +
                               ":1: cannot read the criteria the run recorded (" + e.what() + "); give --criteria");
    }
    const auto& c = r.value("criteria", nlohmann::json::object());
    if (!c.is_object() || !c.contains("text") || !c["text"].is_string())
      throw std::runtime_error((fs::path(o.rerun) / "samples.jsonl").string() +
                               ":1: the run_start record holds no criteria text; give --criteria");
    const std::string source = c.contains("source") && c["source"].is_string() ? c["source"].get<std::string>() : "?";
    in.criteria_source = source.find("(inherited") != std::string::npos
                             ? source
                             : source + " (inherited from the run re-tested, " + fs::absolute(o.rerun).lexically_normal().string() + ")";
    in.criteria_text = c["text"].get<std::string>();
  } else if (o.criteria.empty()) {
    in.criteria_source = "builtin";
    in.criteria_text = builtin_criteria_text();
  } else {
    in.criteria_source = o.criteria;
    in.criteria_text = read_file(o.criteria);
  }
  ProbeRegistry reg;
  register_builtin_probes(reg);
  // Fail now, not after the run: a criterion on an undeclared metric, an unknown probe, an
  // unknown or out-of-range parameter (a typo would otherwise run the default and pass).
  const CriteriaSet criteria = parse_criteria(in.criteria_text, in.criteria_source);
  const MetricCatalogue catalogue = catalogue_of(reg);
  check_criteria_metrics(criteria, catalogue);
  // A clause the user's own criteria require, whose probe this suite does not run, would be
  // `missing` on every host after the whole run: refused now (issue 32). Criteria a re-test
  // inherits are exempt: what they do not re-judge stays "not re-tested" (reports/campaign.hpp).
  if (!o.criteria.empty())
    for (const auto& c : criteria.criteria) {
      if (c.required != Required::yes) continue;
      std::set<std::string> probes;
      const bool glob = !c.metric.empty() && c.metric.back() == '*';
      for (const auto& d : catalogue.all())
        if (glob ? d.decl.id.rfind(c.metric.substr(0, c.metric.size() - 1), 0) == 0 : declares(d.decl, c.metric))
          probes.insert(d.probe);
      const bool runs = std::any_of(in.suite.probes.begin(), in.suite.probes.end(),
                                    [&](const SuiteProbe& sp) { return probes.count(sp.name) > 0; });
      if (runs || probes.empty()) continue;
      throw CriteriaError(in.criteria_source, c.line,
                          "criterion " + c.name + " (required: true) needs probe " + *probes.begin() + ", which suite " +
                              in.suite.name + " does not run (add it to the suite, or make the criterion required: auto)");
    }
  if (!o.expect_topology.empty()) in.expected = topo::load_topology_file(o.expect_topology);
  for (const auto& p : in.suite.probes) {
    const Probe* probe = reg.find(p.name);
    if (!probe)
      throw SuiteError(in.suite.source, p.line, "unknown probe \"" + p.name + "\" (see gpuaccept list)");
    const auto bad = probe->check_config(p.params);
    if (!bad) continue;
    // Name where the bad key came from: its line in the suite file, or the --set that gave it.
    auto at = p.param_lines.find(bad->key);
    if (at != p.param_lines.end()) throw SuiteError(in.suite.source, at->second, bad->message);
    throw SuiteError("--set", 0, bad->message);
  }
  return in;
}

void journal_incomplete(const std::string& dir, const IncompleteRecord& rec) {
  append_record_once((fs::path(dir) / "samples.jsonl").string(),
                     {{"type", "incomplete"}, {"probe", rec.probe}, {"reason", rec.reason},
                      {"missing_ranks", rank_refs_json(rec.missing_ranks)},
                      {"waiting_ranks", rank_refs_json(rec.waiting_ranks)}, {"detected_by", rec.detected_by}});
}

}  // namespace ga::app::run
