// Shared by the parts of report.html (report_html*.cpp): how a verdict colours a place, the
// verdicts of every place and host found once, and the escaping helpers. Not a public API.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reports/markup_escape.hpp"
#include "reports/report.hpp"

namespace ga::html {

// The colour of a place, worst first in this order: fail (an error-severity fail, missing or
// error verdict), warn (only warning-severity ones failed), pass (verdicts, all passing), none
// (no verdict, or only skipped ones).
enum class Tone { none = 0, pass = 1, warn = 2, fail = 3 };
Tone tone_of(const Verdict&);
const char* tone_class(Tone);   // "st-none", "st-pass", "st-warn", "st-fail"
const char* tone_word(Tone);    // "no verdict", "pass", "warning", "fail"

// The verdicts keyed to one place, or to one host and everything inside it.
struct Marks {
  Tone tone = Tone::none;
  int pass = 0, skipped = 0;
  std::vector<const Verdict*> bad;  // fail, missing, error: in the judge's order
  void add(const Verdict&);
};

struct VerdictIndex {
  std::unordered_map<std::string, Marks> by_place;  // verdict.place as written
  std::unordered_map<std::string, Marks> by_host;   // a host's own and its NUMA/GPU/NIC verdicts
  const Marks* place(const std::string& p) const;
  const Marks* host(const std::string& h) const;
};
VerdictIndex index_verdicts(const Judgement&);

Tone tone(const Marks*);
// Tooltip text: the head line, the counts, then up to `limit` failing verdicts with their
// reasons (each naming its place when that is not `place`, as in a host's roll-up).
std::string tooltip(const std::string& head, const std::string& place, const Marks*, std::size_t limit = 8);

inline void esc(std::string& out, std::string_view s) { markup::append_escaped(out, s); }

// The cluster on its topology as inline SVG (report_html_topology.cpp). `host_anchor(i)` is
// the id of r.hosts[i]'s section.
void append_topology(std::string& out, const Report& r, const VerdictIndex& index);
inline std::string host_anchor(std::size_t i) { return "h-" + std::to_string(i); }

// The plots (report_html_plots.cpp): each <svg data-plot="NAME"> drawn when its data exist.
void append_plots(std::string& out, const Report& r, const VerdictIndex& index);

// Above this many hosts the picture draws a compact grid plus the hosts that did not pass,
// and pair verdicts become a table: 1024 hosts drawn in full, with their pair lines, would
// be a picture no one can read and a file no browser opens quickly.
inline constexpr std::size_t kDrawAllHostsUpTo = 64;

}  // namespace ga::html
