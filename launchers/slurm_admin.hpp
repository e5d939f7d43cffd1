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

struct NodeState {
  std::string name, state, reason;
  bool drained() const;               // drain, drained, draining (any flag combination)
  bool drained_by_gpuaccept() const;  // drained, with a reason gpuaccept wrote
};
// sinfo_nodes_argv()'s output; a node listed once per partition is kept once.
std::vector<NodeState> parse_sinfo_nodes(const std::string& out);

// argv as one line a shell reads back to the same argv: a word with anything but
// [A-Za-z0-9_./:=,@%+-] is double-quoted (\ " $ ` escaped), a name=value word after its '='
// (reason="gpuaccept: ..."), as people write them.
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace ga::launch
