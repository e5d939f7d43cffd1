// bad-hosts.txt: one line per host that did not pass, what an operator drains, fixes or
// re-tests, and what `gpuaccept drain` and `undrain` read. Every run (and `gpuaccept judge`)
// writes it, empty of hosts when all passed.
//
//   # gpuaccept bad hosts
//   # run: <run id>                 (the Slurm job id, else the run's start time)
//   # overall: FAIL
//   # judged: h1,h2,...              (every host the run judged, natural order)
//   # columns: host<TAB>outcome<TAB>criteria<TAB>evidence<TAB>actions<TAB>failed_at
//   h3<TAB>node fault<TAB>gpu.pcie.gen_at_max,gpu.xid<TAB>gpu.pcie.gen_at_max at h3/gpu:0: ...<TAB>RESTART_BM<TAB>gpu.pcie.gen_at_max@h3/gpu:0,gpu.xid@h3/gpu:1
//
// failed_at: every verdict of that outcome as CRITERION@PLACE (at most kMaxFailedAt, then
// "+N more"): what a re-test must pass, at the same place, before it clears the host
// (reports/campaign.hpp).
//
// actions: what the verdicts' own evidence asks of the operator, where it says (the Xid
// catalogue's immediate action of each Xid seen, probes/gpu/xid_catalogue.yaml), comma-separated;
// empty when none. `gpuaccept drain` carries them in the drain reason.
//
// outcome is the host's worst among its error-severity verdicts: "node fault" (drain it) or
// "inconclusive" (re-test, never drain). Tool errors (fix gpuaccept or its setup, never the
// node's fault) are not written: they are in report.json, report.md and the summary only. A
// file that has a "tool error" line (written before issue 32) still reads. A verdict on a link between two hosts counts for both ends; verdicts on the
// cluster or on switch groups name no host and are only in the report. A rank lost from an
// incomplete run makes its host inconclusive unless it has worse.
#pragma once
#include <string>
#include <vector>

#include "reports/report.hpp"

namespace ga {

struct BadHost {
  std::string host;
  OutcomeClass outcome = OutcomeClass::none;
  std::vector<std::string> criteria;  // the host's criteria of that outcome, first seen first, once each
  std::string evidence;               // the first of them: "CRITERION at PLACE: reason"
  std::vector<std::string> actions;   // from those verdicts' params.actions[].action, once each
  std::vector<std::string> failed_at; // CRITERION@PLACE of each of those verdicts, first seen first
  bool failed_at_cut = false;         // more than kMaxFailedAt: the list is the first ones
  int line = 0;                       // its line in the file it was read from (0: not read from one)
};
inline constexpr std::size_t kMaxFailedAt = 64;

struct BadHosts {
  std::string run_id;
  std::string overall;
  std::vector<std::string> judged;    // natural order
  std::vector<BadHost> hosts;         // natural order
};

BadHosts bad_hosts(const Report&);
std::string bad_hosts_text(const BadHosts&);
// The file back (gpuaccept drain/undrain); a file of four columns (no actions) reads too. Throws std::runtime_error naming the line of
// anything it cannot read.
BadHosts parse_bad_hosts(const std::string& text, const std::string& name);
// DIR/bad-hosts.txt read and parsed; throws std::runtime_error saying how to write it when absent.
BadHosts read_bad_hosts(const std::string& dir);
// The hosts a run directory is about: a re-test's campaign's (campaign.json), else the run's
// own (samples.jsonl's run_start `hosts`). What `drain` checks bad-hosts.txt against and counts
// its circuit breaker over. Throws std::runtime_error naming the file when neither reads.
std::vector<std::string> run_hosts(const std::string& dir);
// Whether `name` is a plain Slurm node name (letters, digits, '-', '_', '.'): no hostlist
// expression, list or glob that scontrol would expand to many nodes.
bool plain_node_name(const std::string& name);
// "node fault", "tool error", "inconclusive" ("pass" for none), and back (anything else: none).
const char* outcome_words(OutcomeClass);
OutcomeClass outcome_from_words(const std::string&);

}  // namespace ga
