// `gpuaccept health`: one node's state in seconds, for Slurm's HealthCheckProgram, Prolog and
// Epilog (slurm/gpuaccept-health.sh wraps it; docs/slurm.md has the slurm.conf lines).
//
// It is `gpuaccept run --suite health` on one process (the path the build without MPI takes,
// make_self_comm), judged by a subset of the built-in criteria (kHealthCriteria below: the
// thresholds stay in suites/data, only the names are picked here), and it speaks for itself:
// one line per finding, one summary line, nothing else. The journal goes to a temporary
// directory that is removed on every way out, so without --out nothing is left anywhere;
// with --out the directory holds the journal and the reports as a run's does, and
// `gpuaccept judge DIR` re-judges it by the same subset (the journal records it).
//
// Exit codes, fewer than run's, because Slurm acts on fewer: 0 healthy, 1 a node fault (drain),
// 2 its own failure (a bad flag or file, a tool error, its own --timeout, Slurm not answering
// the fleet cap's question). With --prolog, a node fault over the fleet cap exits 0. Inconclusive
// evidence (nothing confirmed) exits 0 with a line saying so: a health check that drains on
// suspicion drains good nodes. Only a node fault is drained with --drain, never exit 2.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>

#include "app/commands.hpp"
#include "app/host_identity.hpp"
#include "app/run_argv.hpp"
#include "app/run_support.hpp"
#include "launchers/slurm_admin.hpp"
#include "probes/harness/local_watchdog.hpp"
#include "probes/harness/signals.hpp"
#include "suites/criteria.hpp"

namespace ga::app {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The built-in criteria a health check judges by. Left out: every "majority" and "median of
// the cluster" rule (one host is its own majority, so they cannot fail), and every speed (the
// health suite measures none). A GPU's count is held by the gpu probe itself (a GPU on the PCI
// bus that the driver or NVML does not see fails it: probe.gpu) and, with --expect-topology,
// by topology.expected (GPU and NIC counts, models, NUMA placement, NIC rates).
const std::vector<std::string>& health_criteria() {
  static const std::vector<std::string> names = {
      "topology.expected",
      "gpu.pcie.gen_at_max",  "gpu.pcie.width_at_max", "gpu.ecc.uncorrected", "gpu.remap.failure",
      "gpu.remap.pending",    "gpu.xid",               "gpu.xid_app",           "gpu.nvlink.all_active",
      "gpu.throttle.hardware",
      "rdma.port.active",     "rdma.rate.infiniband_median",
      "clock.synchronized",
  };
  return names;
}
// A warning in a run, an error here: a pending row remap clears only with a GPU reset, which
// needs the node without jobs, which is what a drain gives (DCGM's health watch fails it too).
const std::vector<std::string> kHealthErrors = {"gpu.remap.pending"};

constexpr int kHealthy = 0, kDrain = 1, kOwnFailure = 2;

// The journal's directory: --out, or a temporary one removed when this ends. The signal and
// watchdog threads call remove_now() before _Exit, which runs no destructor.
class RunDir {
 public:
  explicit RunDir(const std::string& out) {
    if (!out.empty()) {
      path_ = out;
      return;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = (fs::path(tmp && *tmp ? tmp : "/tmp") / "gpuaccept-health-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory " + tmpl);
    path_ = tmpl;
    temporary_ = true;
  }
  ~RunDir() { remove_now(); }
  RunDir(const RunDir&) = delete;
  RunDir& operator=(const RunDir&) = delete;
  const std::string& path() const { return path_; }
  bool temporary() const { return temporary_; }
  void remove_now() {
    std::lock_guard lk(mu_);
    if (!temporary_ || removed_) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
    removed_ = true;
  }

 private:
  std::mutex mu_;
  std::string path_;
  bool temporary_ = false, removed_ = false;
};

// Every phase of the loop under its own deadline and all of them under the whole check's:
// a phase is armed for what is left of --timeout when that is less.
class HealthWatch final : public PhaseWatch {
 public:
  HealthWatch(Clock::time_point deadline, std::function<void(const std::string&, double)> on_timeout)
      : deadline_(deadline), inner_(std::move(on_timeout)) {}
  void arm(const std::string& phase, double seconds) override {
    const double left = std::chrono::duration<double>(deadline_ - Clock::now()).count();
    inner_.arm(phase, std::max(0.001, std::min(seconds, left)));
  }
  void stage(const char* what) override { inner_.stage(what); }
  void disarm() override { inner_.disarm(); }

 private:
  Clock::time_point deadline_;
  LocalWatchdog inner_;
};

std::string probe_of(const Criterion& c) { return c.metric.substr(0, c.metric.find('.')); }

void say(const std::string& line) {
  std::printf("gpuaccept health: %s\n", line.c_str());
  std::fflush(stdout);
}

std::string seconds_text(Clock::time_point t0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(Clock::now() - t0).count());
  return buf;
}

// The node Slurm knows this host as: slurmd gives its Prolog and Epilog SLURMD_NODENAME; else
// the short hostname, which NodeName must then match (as for `gpuaccept drain`).
std::string node_name() {
  const char* n = std::getenv("SLURMD_NODENAME");
  return n && *n ? n : short_hostname();
}

// scontrol's drain for the findings that are node faults; a line on stderr when scontrol could
// not be run or refused.
void drain_node(const std::vector<Verdict>& faults) {
  std::string why = launch::kHealthDrainReason;
  std::vector<std::string> actions;  // NVIDIA's Xid catalogue's (RESTART_BM ...), as `gpuaccept drain` adds them
  for (const auto& v : faults) {
    if (v.params.contains("actions") && v.params.at("actions").is_array())
      for (const auto& a : v.params.at("actions"))
        if (a.is_object() && a.contains("action") && a["action"].is_string() &&
            std::find(actions.begin(), actions.end(), a["action"].get<std::string>()) == actions.end())
          actions.push_back(a["action"].get<std::string>());
    std::string item = " " + v.criterion + "@" + v.place;
    if (why.size() + item.size() > 200) {  // sinfo shows the reason on one line
      why += " ...";
      break;
    }
    why += item;
  }
  for (std::size_t i = 0; i < actions.size(); ++i) why += (i ? "," : " [") + actions[i] + (i + 1 == actions.size() ? "]" : "");
  const auto argv = launch::scontrol_drain_argv(node_name(), why);
  try {
    const int rc = run_argv(argv, nullptr);
    if (rc == 0) say("drained " + node_name() + ": " + launch::shell_line(argv));
    else std::fprintf(stderr, "gpuaccept health: could not drain (exit %d): %s\n", rc, launch::shell_line(argv).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept health: could not drain: %s\n", e.what());
  }
}

// A healthy node that a health check drained earlier is resumed, as NHC resumes the nodes it
// marked offline: the fault it drained for is gone (a GPU reset cleared the pending remap, a
// reboot the XIDs). Only gpuaccept health's own drains; a node drained by anyone else, `gpuaccept
// drain` included, keeps its state and reason. A Slurm command that fails is said and leaves
// the node as it is.
void resume_own_drain() {
  const std::string node = node_name();
  try {
    std::string out;
    const auto sinfo = launch::sinfo_nodes_argv(node);
    if (const int rc = run_argv(sinfo, &out); rc != 0)
      throw std::runtime_error(launch::shell_line(sinfo) + " failed (exit " + std::to_string(rc) + ")");
    const std::string own = std::string(launch::kDrainReasonPrefix) + " " + launch::kHealthDrainReason;
    for (const auto& n : launch::parse_sinfo_nodes(out)) {
      if (n.name != node || !n.drained() || n.reason.rfind(own, 0) != 0) continue;
      const auto argv = launch::scontrol_resume_argv(node);
      if (const int rc = run_argv(argv, nullptr); rc != 0)
        throw std::runtime_error(launch::shell_line(argv) + " failed (exit " + std::to_string(rc) + ")");
      say("resumed " + node + ", drained for \"" + n.reason + "\": " + launch::shell_line(argv));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept health: could not resume %s: %s\n", node.c_str(), e.what());
  }
}

// The fleet cap: a health check that drains by itself is one bad release (a driver, an Xid
// table, a criterion) away from draining every node it runs on. Before it drains, it asks Slurm
// how many nodes of its partitions gpuaccept has drained already (any gpuaccept reason, health's
// or `gpuaccept drain`'s); at or above max_share of them it drains nothing. Checks that run at
// the same moment each see the count before the others' drains, so together they can overshoot
// the cap by their number (docs/slurm.md). Throws when Slurm cannot say: then nothing is drained.
struct FleetCap {
  bool reached = false;
  std::string why;
};

FleetCap fleet_cap(double max_share) {
  const std::string node = node_name();
  auto ask = [](const std::vector<std::string>& argv) {
    std::string out;
    if (const int rc = run_argv(argv, &out); rc != 0)
      throw std::runtime_error(launch::shell_line(argv) + " failed (exit " + std::to_string(rc) + ")");
    return out;
  };
  const auto parts_argv = launch::sinfo_partitions_argv(node);
  const auto parts = launch::parse_sinfo_partitions(ask(parts_argv));
  if (parts.empty()) throw std::runtime_error(launch::shell_line(parts_argv) + ": " + node + " is in no partition");
  const auto nodes_argv = launch::sinfo_partition_nodes_argv(parts);
  const auto nodes = launch::parse_sinfo_nodes(ask(nodes_argv));
  if (nodes.empty()) throw std::runtime_error(launch::shell_line(nodes_argv) + " listed no node");
  const auto drained = static_cast<std::size_t>(std::count_if(
      nodes.begin(), nodes.end(), [&](const launch::NodeState& n) { return n.name != node && n.drained_by_gpuaccept(); }));
  const double share = double(drained) / double(nodes.size());
  std::string list;
  for (const auto& p : parts) list += (list.empty() ? "" : ",") + p;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f%%, --max-share %g", share * 100, max_share);
  FleetCap c;
  c.reached = share >= max_share;
  c.why = std::to_string(drained) + " of the " + std::to_string(nodes.size()) + " nodes of partition " + list +
          " already drained by gpuaccept (" + buf + ")";
  return c;
}

}  // namespace

int health_command(const HealthOptions& o) {
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.timeout_s));
  RunOptions ro;
  ro.suite = "health";
  ro.expect_topology = o.expect_topology;
  ro.probe_timeout_s = o.timeout_s;
  ro.overrides = o.overrides;
  ro.argv = o.argv;
  ro.quiet = true;
  ro.judge = false;
  ro.one_node_of_a_fleet = true;
  run::Inputs in;
  try {
    in = run::load_inputs(ro);
    std::set<std::string> skipped;
    for (const auto& s : o.skip) {
      const bool known = std::any_of(in.suite.probes.begin(), in.suite.probes.end(),
                                     [&](const SuiteProbe& p) { return p.name == s; });
      if (!known) throw std::runtime_error("--skip " + s + ": not a check of gpuaccept health (inventory, topology, gpu, rdma, clock)");
      skipped.insert(s);
    }
    std::erase_if(in.suite.probes, [&](const SuiteProbe& p) { return skipped.count(p.name) > 0; });
    if (in.suite.probes.empty()) throw std::runtime_error("--skip leaves nothing to check");
    // The criteria of the checks left; the journal records them, so `judge DIR` agrees.
    const CriteriaSet builtin = parse_criteria(builtin_criteria_text(), "builtin");
    std::vector<std::string> names;
    for (const auto& c : builtin.criteria)
      if (std::find(health_criteria().begin(), health_criteria().end(), c.name) != health_criteria().end() &&
          !skipped.count(probe_of(c)))
        names.push_back(c.name);
    in.criteria_source = "builtin (gpuaccept health)";
    in.criteria_text = criteria_subset_text(builtin_criteria_text(), "builtin", names, kHealthErrors,
                                            "gpuaccept health: the built-in criteria a one-node health check judges by");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept health: %s\n", e.what());
    return kOwnFailure;
  }

  std::unique_ptr<RunDir> dir;
  try {
    dir = std::make_unique<RunDir>(o.out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept health: %s\n", e.what());
    return kOwnFailure;
  }
  ro.out = dir->path();
  RunDir& d = *dir;

  run::RunState state;
  // A termination signal (slurmd ending its script, a person's ^C): the temporary directory goes
  // with it. Before any other thread, so all inherit the mask.
  SignalThread signals([&d](int signo) {
    std::fprintf(stderr, "gpuaccept health: tool error: stopped by %s\n", signal_name(signo));
    d.remove_now();
    std::_Exit(128 + signo);
  });
  const std::string host = short_hostname();
  // Set once judged: a deadline passed in scontrol or sinfo (slurmctld not answering) then keeps
  // the verdict's exit code, so a Prolog still fails on a node fault.
  std::atomic<int> decided{-1};
  HealthWatch watch(deadline, [&](const std::string& phase, double) {
    if (const int code = decided.load(); code >= 0) {
      std::fprintf(stderr, "gpuaccept health: %s: scontrol or sinfo did not return within the --timeout of %d s\n",
                   phase.c_str(), static_cast<int>(o.timeout_s));
      d.remove_now();
      std::_Exit(code);
    }
    std::string why = phase + " did not finish within the health check's " + std::to_string(static_cast<int>(o.timeout_s)) +
                      " s (--timeout)";
    std::fprintf(stderr, "gpuaccept health: tool error: %s\n", why.c_str());
    if (!d.temporary()) {
      IncompleteRecord rec;
      rec.probe = phase;
      rec.reason = why;
      rec.missing_ranks = {{0, host}};
      rec.detected_by = 0;
      run::journal_incomplete(d.path(), rec);
      run::judge_and_announce(d.path());
    }
    d.remove_now();
    std::_Exit(kOwnFailure);
  });

  auto world = make_self_comm();
  const run::Layout layout = run::make_layout(*world, host);
  {
    std::lock_guard lk(state.mu);
    state.host = host;
    state.rank_hosts = layout.rank_hosts;
    state.pids = layout.pids;
  }
  const int loop_rc = run::run_suite(*world, watch, state, in, ro, layout, host, sysfs_root_from_env());
  if (loop_rc != kExitPass) return kOwnFailure;  // it said why (a directory it cannot create)

  watch.arm("judging", o.timeout_s);
  JudgeResult r;
  try {
    r = judge_directory(d.path(), "", !d.temporary());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept health: judging failed: %s\n", e.what());
    return kOwnFailure;
  }
  watch.disarm();

  std::vector<Verdict> faults;
  for (const auto& v : r.findings) {
    const OutcomeClass oc = v.outcome();
    const bool counts = v.severity == Severity::error;
    const char* kind = !counts                           ? "warning"
                       : oc == OutcomeClass::node_fault  ? "node fault"
                       : oc == OutcomeClass::tool_error  ? "tool error"
                                                         : "inconclusive";
    say(std::string(kind) + ": " + v.criterion + " at " + v.place + (v.reason.empty() ? "" : ": " + v.reason));
    if (counts && oc == OutcomeClass::node_fault) faults.push_back(v);
  }
  int code = kOwnFailure;
  std::string word;
  switch (r.exit_code) {
    case kExitPass: code = kHealthy, word = "healthy"; break;
    case kExitNodeFault: code = kDrain, word = "node fault"; break;
    case kExitInconclusive: code = kHealthy, word = "inconclusive (nothing confirmed, not drained)"; break;
    default: code = kOwnFailure, word = "tool error (not the node's fault, not drained)"; break;
  }
  say(host + " " + word + " (" + r.summary_line + ") in " + seconds_text(t0) +
      (d.temporary() ? "" : "; report " + (fs::path(d.path()) / "report.md").string()));
  if (code == kDrain && (o.drain || o.prolog)) {
    decided = kOwnFailure;  // sinfo not answering within --timeout: Slurm unreachable, nothing drained
    watch.arm("fleet cap", o.timeout_s);
    FleetCap cap;
    try {
      cap = fleet_cap(o.max_share);
    } catch (const std::exception& e) {
      watch.disarm();
      say(std::string("tool error: not drained, Slurm could not say how much of the partition is drained (the fleet cap): ") +
          e.what());
      return kOwnFailure;
    }
    watch.disarm();
    if (cap.reached) {
      say("not drained: " + cap.why + "; the node fault above stands: look at the fleet before draining more" +
          (o.prolog ? " (--prolog: exit 0, so slurmd drains nothing either)" : ""));
      return o.prolog ? kHealthy : kDrain;
    }
  }
  if (o.drain && (code == kDrain || r.exit_code == kExitPass)) {
    decided = code;
    watch.arm(code == kDrain ? "drain" : "resume", o.timeout_s);  // scontrol and sinfo wait for slurmctld, which may not answer
    if (code == kDrain) drain_node(faults);  // a drain that failed is said; the node is still at fault: exit 1
    else resume_own_drain();                 // healthy, not merely inconclusive
    watch.disarm();
  }
  return code;
}

}  // namespace ga::app
