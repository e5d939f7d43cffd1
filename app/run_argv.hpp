// Running one of the Slurm commands gpuaccept acts through (scontrol, sinfo): argv, no shell.
// Internal to app/ (drain, undrain, health --drain).
#pragma once
#include <string>
#include <vector>

namespace ga::app {

// Runs argv (no shell, found on PATH) and returns its exit status (128 + the signal when it
// was killed); its stdout into *out when given. Throws when it cannot be started.
int run_argv(const std::vector<std::string>& argv, std::string* out);

}  // namespace ga::app
