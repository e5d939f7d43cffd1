#include "tests/support/nccltests_log.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "base/text.hpp"

namespace ga::nccltests {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

[[noreturn]] void bad(int line, const std::string& what, const std::string& text) {
  throw std::runtime_error("nccl-tests log line " + std::to_string(line) + ": " + what + ": \"" + text + "\"");
}

double number(const std::string& tok, int line, const char* col, const std::string& text) {
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(tok, &pos);
  } catch (const std::exception&) {
    bad(line, std::string("column ") + col + " is not a number", text);
  }
  if (pos != tok.size()) bad(line, std::string("column ") + col + " is not a number", text);
  return v;
}

std::uint64_t whole(const std::string& tok, int line, const char* col, const std::string& text) {
  if (!all_digits(tok)) bad(line, std::string("column ") + col + " is not a whole number", text);
  return std::stoull(tok);
}

// nccl-tests prints time with 2, 1 or 0 decimals depending on its magnitude; what we can
// know of the real time is +- half a unit of the last digit printed.
double resolution_of(const std::string& tok) {
  const auto dot = tok.find('.');
  if (dot == std::string::npos) return 0.5;
  return 0.5 * std::pow(10.0, -static_cast<double>(tok.size() - dot - 1));
}

Timing timing(const std::vector<std::string>& t, std::size_t at, int line, const std::string& text) {
  Timing x;
  x.time_us = number(t[at], line, "time", text);
  x.time_resolution_us = resolution_of(t[at]);
  x.algbw_gbs = number(t[at + 1], line, "algbw", text);
  x.busbw_gbs = number(t[at + 2], line, "busbw", text);
  if (t[at + 3] != "N/A") x.wrong = whole(t[at + 3], line, "#wrong", text);
  return x;
}

std::optional<double> after_colon(const std::string& s) {
  const auto c = s.find(':');
  if (c == std::string::npos) return std::nullopt;
  const auto toks = ga::base::split_words(s.substr(c + 1));
  if (toks.empty()) return std::nullopt;
  try {
    return std::stod(toks[0]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

int Log::nranks() const {
  if (!ranks.empty()) return static_cast<int>(ranks.size());
  return n_threads * n_gpus;
}

Log parse_log(const std::string& text) {
  static const std::regex rank_re(
      R"(^#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*?)\s*$)");
  Log log;
  bool saw_header = false;
  std::istringstream in(text);
  int lineno = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++lineno;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const auto first = raw.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const std::string s = raw.substr(first);
    if (s[0] == '#') {
      std::smatch m;
      if (s.find("nThread") != std::string::npos) {
        saw_header = true;
        const auto t = ga::base::split_words(s);
        for (std::size_t i = 0; i + 1 < t.size(); ++i) {
          if (t[i] == "nThread" && all_digits(t[i + 1])) log.n_threads = std::stoi(t[i + 1]);
          if (t[i] == "nGpus" && all_digits(t[i + 1])) log.n_gpus = std::stoi(t[i + 1]);
          if (t[i] == "minBytes" && all_digits(t[i + 1])) log.min_bytes = std::stoull(t[i + 1]);
          if (t[i] == "maxBytes" && all_digits(t[i + 1])) log.max_bytes = std::stoull(t[i + 1]);
        }
      } else if (std::regex_match(s, m, rank_re)) {
        log.ranks.push_back({std::stoi(m[1]), m[2], std::stoi(m[3]), m[4], m[5]});
      } else if (s.find("Avg bus bandwidth") != std::string::npos) {
        log.avg_busbw_gbs = after_colon(s);
      } else if (s.find("Out of bounds values") != std::string::npos) {
        if (auto v = after_colon(s)) log.out_of_bounds = static_cast<std::uint64_t>(*v);
      }
      continue;  // column headers, separators, comments
    }
    if (s.rfind("NCCL version", 0) == 0 || s.rfind("RCCL version", 0) == 0) {
      const auto t = ga::base::split_words(s);
      if (t.size() >= 3) log.nccl_version = t[2];
      continue;
    }
    const auto t = ga::base::split_words(s);
    if (t.empty() || !all_digits(t[0])) {  // Open MPI help aggregation, banners, warnings
      log.ignored.push_back(s);
      continue;
    }
    // size count type redop root (time algbw busbw #wrong) x 2; releases before 2.7 have no
    // root column.
    Row r;
    r.line = lineno;
    std::size_t at = 0;
    if (t.size() == 13) {
      r.root = static_cast<int>(number(t[4], lineno, "root", s));
      at = 5;
    } else if (t.size() == 12) {
      at = 4;
    } else {
      bad(lineno, "a data row has 13 columns (12 without root), this has " + std::to_string(t.size()), s);
    }
    r.size = whole(t[0], lineno, "size", s);
    r.count = whole(t[1], lineno, "count", s);
    r.type = t[2];
    r.redop = t[3];
    r.out_of_place = timing(t, at, lineno, s);
    r.in_place = timing(t, at + 4, lineno, s);
    log.rows.push_back(std::move(r));
  }
  if (!saw_header && log.rows.empty()) throw std::runtime_error("not an nccl-tests log: no \"# nThread\" header and no data row");
  return log;
}

Log parse_log_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read nccl-tests log " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_log(ss.str());
}

}  // namespace ga::nccltests
