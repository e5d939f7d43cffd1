#include "base/redact.hpp"

#include <algorithm>
#include <cctype>

namespace ga::base {

namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

}  // namespace

bool looks_secret(std::string_view name) {
  const std::string u = upper(name);
  for (const char* part : {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY"})
    if (u.find(part) != std::string::npos) return true;
  std::string word;
  auto is_secret_word = [](const std::string& w) {
    for (const char* s : {"KEY", "PASS", "PWD", "AUTH", "COOKIE", "SESSION", "CREDENTIALS"})
      if (w == s) return true;
    return false;
  };
  for (char c : u + "_") {
    if (c == '_' || c == '-' || c == '.') {
      if (is_secret_word(word)) return true;
      word.clear();
    } else {
      word += c;
    }
  }
  return false;
}

std::vector<std::string> allowed_environment(char** env, const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (char** e = env; e && *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const bool allowed = std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return name.rfind(p, 0) == 0; });
    if (allowed && !looks_secret(name)) out.push_back(entry);
  }
  return out;
}

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  bool hide_next = false;
  for (const auto& a : argv) {
    if (hide_next) {
      hide_next = false;
      if (a.rfind("-", 0) != 0) {
        out.emplace_back(kRedacted);
        continue;
      }
    }
    const auto eq = a.find('=');
    if (a.rfind("-", 0) == 0) {
      const std::string flag = a.substr(0, eq);
      if (looks_secret(flag.substr(flag.find_first_not_of('-') == std::string::npos ? 0 : flag.find_first_not_of('-')))) {
        if (eq == std::string::npos) hide_next = true, out.push_back(a);
        else out.push_back(flag + "=" + kRedacted);
        continue;
      }
    } else if (eq != std::string::npos && looks_secret(a.substr(0, eq))) {
      out.push_back(a.substr(0, eq + 1) + kRedacted);  // --set storage.api_token=X
      continue;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace ga::base
