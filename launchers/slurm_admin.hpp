// The Slurm commands gpuaccept's drain and undrain run: argv only (launchers only build argv),
// and the one-line shell form they are printed in.
#pragma once
#include <string>
#include <vector>

namespace ga::launch {

// The prefix every drain reason gpuaccept writes starts with: undrain resumes only those.
inline constexpr const char* kDrainReasonPrefix = "gpuaccept:";
// What `gpuaccept health --drain` writes after the prefix: it resumes only its own drains.
inline constexpr const char* kHealthDrainReason = "health:";

// scontrol update nodename=H state=drain reason="gpuaccept: <why>"
std::vector<std::string> scontrol_drain_argv(const std::string& node, const std::string& why);
// scontrol update nodename=H state=resume
std::vector<std::string> scontrol_resume_argv(const std::string& node);
// sinfo, one line per node: NAME|STATE|REASON (see parse_sinfo_nodes); every node, or one
std::vector<std::string> sinfo_nodes_argv();
std::vector<std::string> sinfo_nodes_argv(const std::string& node);

// sinfo, the partitions a node is in (one per line, the default one with a trailing '*'), and
// every node of some partitions in sinfo_nodes_argv()'s format: the fleet cap of health's drains.
std::vector<std::string> sinfo_partitions_argv(const std::string& node);
std::vector<std::string> sinfo_partition_nodes_argv(const std::vector<std::string>& partitions);
// sinfo_partitions_argv()'s output: names without the default's '*', once each, in order.
std::vector<std::string> parse_sinfo_partitions(const std::string& out);

struct NodeState {
  std::string name, state, reason;
  bool drained() const;               // drain, drained, draining (any flag combination)
  bool drained_by_gpuaccept() const;  // drained, with a reason gpuaccept wrote
};
// sinfo_nodes_argv()'s output; a node listed once per partition is kept once.
std::vector<NodeState> parse_sinfo_nodes(const std::string& out);

// What a drain reason gpuaccept wrote says it drained for: `gpuaccept drain`'s
// "gpuaccept: C1,C2 [ACTIONS] (RUN)" or health's "gpuaccept: health: C1@PLACE C2@PLACE ... [ACTIONS]".
// `undrain` resumes a node only when a run passed every one of these criteria there.
struct DrainReason {
  bool ours = false;                  // it starts with kDrainReasonPrefix
  bool health = false;                // gpuaccept health wrote it
  std::vector<std::string> criteria;  // once each, in order
  std::string run;                    // drain's "(RUN)"; empty for health
  bool cut = false;                   // the reason was shortened ("..."): the criteria are not all there
};
DrainReason parse_drain_reason(const std::string& reason);

// argv as one line a shell reads back to the same argv: a word with anything but
// [A-Za-z0-9_./:=,@%+-] is double-quoted (\ " $ ` escaped), a name=value word after its '='
// (reason="gpuaccept: ..."), as people write them.
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace ga::launch
