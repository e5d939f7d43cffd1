// What may be recorded of a process's environment and command line: an operator hands the run
// directory to a vendor or a buyer, so nothing secret may reach it (or the terminal) by accident.
//
// A name "looks secret" when one of its words (split at _ - . and case changes do not count:
// NCCL_IB_PKEY is a partition key, not a secret) is KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASS,
// PWD, CREDENTIAL(S), AUTH, COOKIE, SESSION or APIKEY, or when it contains TOKEN, SECRET, PASSWORD,
// PASSWD, CREDENTIAL or APIKEY anywhere (MYTOKEN, DBPASSWORD). Environment variables are recorded
// only through an allow-list of prefixes and never when the name looks secret; in a command line
// the value of a secret-looking --flag (`--token X`, `--token=X`) and of a secret-looking
// KEY=VALUE (`--set storage.api_token=X`) is replaced by "<redacted>".
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ga::base {

inline constexpr const char* kRedacted = "<redacted>";

bool looks_secret(std::string_view name);
// NAME=VALUE entries of `env` (environ's form) whose NAME starts with one of `prefixes` and does
// not look secret, in the order given.
std::vector<std::string> allowed_environment(char** env, const std::vector<std::string>& prefixes);
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);

}  // namespace ga::base
