// gpuaccept drain DIR / undrain DIR: act on a run's verdict in Slurm. Both read DIR's
// bad-hosts.txt (reports/bad_hosts.hpp), print the scontrol lines they would run (argv built
// in launchers/slurm_admin.hpp) and run them only with --apply. Only node faults are drained:
// never a host whose worst is a tool error or inconclusive evidence (Nebius soperator does not
// drain when its checker errors; LBNL NHC drains with a reason, as this does).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include "app/commands.hpp"
#include "app/run_argv.hpp"
#include "base/file_io.hpp"
#include "launchers/slurm_admin.hpp"
#include "reports/bad_hosts.hpp"
#include "reports/campaign.hpp"

#include <nlohmann/json.hpp>

extern char** environ;

namespace ga::app {

int run_argv(const std::vector<std::string>& argv, std::string* out) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out) {
    if (::pipe(fds) != 0) throw std::runtime_error("pipe: " + base::errno_text(errno));
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (out) ::close(fds[1]);
  if (rc != 0) {
    if (out) ::close(fds[0]);
    throw std::runtime_error("cannot run " + argv[0] + ": " + base::errno_text(rc));
  }
  if (out) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out->append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {

// Runs each line, saying which failed; kExitToolError if any did (Slurm refused: not a node's fault).
int apply(const std::vector<std::vector<std::string>>& lines) {
  int failed = 0;
  for (const auto& argv : lines) {
    const int rc = run_argv(argv, nullptr);
    if (rc != 0) {
      ++failed;
      std::cerr << "gpuaccept: failed (exit " << rc << "): " << launch::shell_line(argv) << "\n";
    }
  }
  return failed;
}

// bad-hosts.txt is a text file anyone can edit, and its host field goes to scontrol: every line
// must name one plain node of the run (or of its campaign) before anything is run. Throws the
// first line that does not, "FILE:LINE: ...".
void check_hosts(const BadHosts& b, const std::string& dir, const std::set<std::string>& known) {
  const std::string file = (std::filesystem::path(dir) / "bad-hosts.txt").string();
  for (const auto& h : b.hosts) {
    const std::string at = file + ":" + std::to_string(h.line) + ": host \"" + h.host + "\"";
    if (!plain_node_name(h.host))
      throw std::runtime_error(at + " is not a plain Slurm node name (letters, digits, '-', '_', '.'): a hostlist "
                               "expression, list or glob would drain many nodes in one line; nothing run");
    if (!known.count(h.host))
      throw std::runtime_error(at + " is not one of the " + std::to_string(known.size()) + " hosts of the run (" +
                               (std::filesystem::exists(std::filesystem::path(dir) / "campaign.json") ? "campaign.json"
                                                                                                      : "samples.jsonl's run_start") +
                               "); nothing run");
  }
}

// DIR/report.json's verdicts on the given hosts (a link's for both ends), read with the rest
// of the file dropped as it is parsed: a 4096-host report is read without holding it. A folded
// report (past suites/judge.hpp's kFoldPassingAbove hosts) counts its passes per criterion and
// host in "passing": each such count on a given host is one passing verdict at the host here.
std::vector<nlohmann::json> verdicts_on(const std::string& dir, const std::set<std::string>& hosts) {
  const auto path = (std::filesystem::path(dir) / "report.json").string();
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path + ": undrain needs the verdicts of the run (--report json)");
  std::string top;
  auto keep = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& j) -> bool {
    if (ev == nlohmann::json::parse_event_t::key && depth == 1) {
      top = j.get<std::string>();
      return top == "verdicts" || top == "passing";
    }
    if (ev == nlohmann::json::parse_event_t::object_end && depth == 2 && top == "verdicts") {
      if (!j.contains("place") || !j["place"].is_string()) return false;
      for (const auto& h : place::hosts_of(j["place"].get<std::string>()))
        if (hosts.count(h)) return true;
      return false;
    }
    return true;
  };
  nlohmann::json r;
  try {
    r = nlohmann::json::parse(in, keep);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  std::vector<nlohmann::json> out;
  if (r.contains("verdicts") && r["verdicts"].is_array())
    for (auto& v : r["verdicts"]) out.push_back(std::move(v));
  if (r.contains("passing") && r["passing"].is_array())
    for (const auto& f : r["passing"]) {
      if (!f.is_object() || !f.contains("criterion") || !f["criterion"].is_string() || !f.contains("hosts") ||
          !f["hosts"].is_array())
        continue;
      for (const auto& h : f["hosts"])
        if (h.is_object() && h.contains("host") && h["host"].is_string() && hosts.count(h["host"].get<std::string>()))
          out.push_back({{"criterion", f["criterion"]}, {"place", h["host"]}, {"status", "pass"}, {"outcome", "none"}});
    }
  return out;
}

// A re-test's campaign.json, per host: its status, and every criterion any run found it bad on.
struct CampaignView {
  std::string status;
  std::set<std::string> failed;
};
std::map<std::string, CampaignView> campaign_view(const std::string& dir) {
  std::map<std::string, CampaignView> out;
  const auto j = read_campaign_json(dir);
  if (!j) return out;
  for (const auto& h : j->value("hosts", nlohmann::json::array())) {
    if (!h.is_object() || !h.contains("host") || !h["host"].is_string()) continue;
    CampaignView& v = out[h["host"].get<std::string>()];
    v.status = h.value("status", "");
    for (const auto& step : h.value("history", nlohmann::json::array()))
      if (step.is_object() && step.value("outcome", "pass") != "pass")
        for (const auto& c : step.value("criteria", nlohmann::json::array()))
          if (c.is_string()) v.failed.insert(c.get<std::string>());
  }
  return out;
}

}  // namespace

int drain_command(const DrainOptions& o) {
  try {
    const BadHosts b = read_bad_hosts(o.dir);
    const auto hosts = run_hosts(o.dir);
    const std::set<std::string> known(hosts.begin(), hosts.end());
    check_hosts(b, o.dir, known);
    std::vector<std::vector<std::string>> lines;
    std::size_t other = 0;
    for (const auto& h : b.hosts) {
      if (h.outcome != OutcomeClass::node_fault) {
        ++other;
        continue;
      }
      std::string why, act;
      for (const auto& c : h.criteria) why += (why.empty() ? "" : ",") + c;
      for (const auto& a : h.actions) act += (act.empty() ? "" : ",") + a;
      // The operator's action where the evidence names one (NVIDIA's Xid catalogue: RESTART_BM ...).
      if (!act.empty()) why += " [" + act + "]";
      lines.push_back(launch::scontrol_drain_argv(h.host, why + " (" + b.run_id + ")"));
    }
    for (const auto& l : lines) std::cout << launch::shell_line(l) << "\n";
    if (other)
      std::cerr << "gpuaccept: " << other
                << " host(s) of bad-hosts.txt are a tool error or inconclusive: not drained (re-test or fix the tool)\n";
    if (lines.empty()) return kExitPass;
    if (!o.apply) return kExitNodeFault;
    // The circuit breaker: a run that fails most of the cluster more likely says something about
    // the run (a bad criteria file, the fabric's spine) than about that many nodes. Counted
    // against the run's own hosts (its journal or campaign), not the file's editable "# judged:".
    const std::size_t judged = std::max<std::size_t>(known.size(), 1);
    const double share = double(lines.size()) / double(judged);
    if (share > o.max_share && !o.force) {
      std::cerr << "gpuaccept: refusing to drain " << lines.size() << " of " << judged << " hosts ("
                << std::lround(share * 100) << "%, above --max-share " << o.max_share
                << "): check the run first; --force drains them anyway\n";
      return kExitUsage;
    }
    return apply(lines) ? kExitToolError : kExitNodeFault;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

int undrain_command(const UndrainOptions& o) {
  try {
    const BadHosts b = read_bad_hosts(o.dir);
    const auto hosts = run_hosts(o.dir);
    const std::set<std::string> known(hosts.begin(), hosts.end());
    check_hosts(b, o.dir, known);
    std::set<std::string> bad;
    for (const auto& h : b.hosts) bad.insert(h.host);
    std::string out;
    const auto sinfo = launch::sinfo_nodes_argv();
    if (const int rc = run_argv(sinfo, &out); rc != 0)
      throw std::runtime_error(launch::shell_line(sinfo) + " failed (exit " + std::to_string(rc) + ")");
    // The candidates: nodes gpuaccept drained that this run judged and did not find bad.
    struct Candidate {
      launch::NodeState node;
      launch::DrainReason why;
    };
    std::vector<Candidate> candidates;
    std::set<std::string> names;
    for (const auto& n : launch::parse_sinfo_nodes(out)) {
      if (!known.count(n.name) || !n.drained()) continue;
      if (bad.count(n.name)) continue;  // still bad here: stays drained, nothing to say
      const auto why = launch::parse_drain_reason(n.reason);
      if (!why.ours) {
        std::cerr << "gpuaccept: " << n.name << " passed but stays drained: its reason is not gpuaccept's (\""
                  << n.reason << "\")\n";
        continue;
      }
      candidates.push_back({n, why});
      names.insert(n.name);
    }
    const auto verdicts = names.empty() ? std::vector<nlohmann::json>{} : verdicts_on(o.dir, names);
    const auto campaign = campaign_view(o.dir);
    std::vector<std::vector<std::string>> lines;
    for (const auto& c : candidates) {
      const std::string& node = c.node.name;
      auto stays = [&](const std::string& why) {
        std::cerr << "gpuaccept: " << node << " stays drained (\"" << c.node.reason << "\"): " << why << "\n";
      };
      if (c.why.cut || c.why.criteria.empty()) {
        stays("its drain reason does not name every criterion it was drained for; resume it by hand once checked");
        continue;
      }
      // Every criterion of the reason re-judged here and passed at this node, none failed.
      std::vector<std::string> open;
      for (const auto& crit : c.why.criteria) {
        bool passed = false, failed = false;
        for (const auto& v : verdicts) {
          if (v.value("criterion", "") != crit) continue;
          const auto hs = place::hosts_of(v.value("place", ""));
          if (std::find(hs.begin(), hs.end(), node) == hs.end()) continue;
          if (v.value("status", "") == "pass") passed = true;
          else if (v.value("outcome", "none") != "none") failed = true;
        }
        if (!passed || failed) open.push_back(crit);
      }
      if (!open.empty()) {
        // A re-test campaign may have cleared it in an earlier run of the campaign, on the same
        // criteria at the same places (reports/campaign.hpp).
        const auto it = campaign.find(node);
        const bool cleared = it != campaign.end() && it->second.status == "cleared" &&
                             std::all_of(c.why.criteria.begin(), c.why.criteria.end(),
                                         [&](const std::string& k) { return it->second.failed.count(k) > 0; });
        if (!cleared) {
          std::string list;
          for (const auto& k : open) list += (list.empty() ? "" : ", ") + k;
          stays("this run has no passing verdict of " + list + " at it (re-test it with a suite and criteria that judge " +
                (open.size() == 1 ? "it" : "them") + ")");
          continue;
        }
      }
      lines.push_back(launch::scontrol_resume_argv(node));
    }
    for (const auto& l : lines) std::cout << launch::shell_line(l) << "\n";
    if (lines.empty()) return kExitPass;
    if (!o.apply) return kExitNodeFault;
    return apply(lines) ? kExitToolError : kExitNodeFault;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
