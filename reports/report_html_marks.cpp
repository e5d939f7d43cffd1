// Which colour a place gets in report.html, from the verdicts keyed to it. Statuses are only
// sorted here; no measured number is looked at.
#include <algorithm>

#include "reports/html_internal.hpp"
#include "topology/place.hpp"

namespace ga::html {

Tone tone_of(const Verdict& v) {
  switch (v.status) {
    case VerdictStatus::pass: return Tone::pass;
    case VerdictStatus::skipped: return Tone::none;
    case VerdictStatus::fail:
    case VerdictStatus::missing: return v.severity == Severity::error ? Tone::fail : Tone::warn;
    // Not the place's fault: never painted as one.
    case VerdictStatus::tool_error:
    case VerdictStatus::inconclusive: return Tone::warn;
  }
  return Tone::none;
}

const char* tone_class(Tone t) {
  switch (t) {
    case Tone::fail: return "st-fail";
    case Tone::warn: return "st-warn";
    case Tone::pass: return "st-pass";
    case Tone::none: break;
  }
  return "st-none";
}

const char* tone_word(Tone t) {
  switch (t) {
    case Tone::fail: return "fail";
    case Tone::warn: return "warning";
    case Tone::pass: return "pass";
    case Tone::none: break;
  }
  return "no verdict";
}

void Marks::add(const Verdict& v) {
  Tone t = tone_of(v);
  tone = std::max(tone, t);
  if (v.status == VerdictStatus::pass) ++pass;
  else if (v.status == VerdictStatus::skipped) ++skipped;
  else bad.push_back(&v);
}

const Marks* VerdictIndex::place(const std::string& p) const {
  auto it = by_place.find(p);
  return it == by_place.end() ? nullptr : &it->second;
}

const Marks* VerdictIndex::host(const std::string& h) const {
  auto it = by_host.find(h);
  return it == by_host.end() ? nullptr : &it->second;
}

VerdictIndex index_verdicts(const Judgement& g) {
  VerdictIndex ix;
  for (const auto& v : g.verdicts) {
    ix.by_place[v.place].add(v);
    auto k = place::kind(v.place);
    if (k == place::Kind::pair || k == place::Kind::cluster) continue;
    if (auto h = place::host_of(v.place); !h.empty()) ix.by_host[h].add(v);
  }
  // A folded judgement's passes (Judgement::passing) count at their hosts, as listed ones do.
  for (const auto& f : g.passing) {
    if (f.kind == place::to_string(place::Kind::pair) || f.kind == place::to_string(place::Kind::cluster)) continue;
    for (const auto& h : f.hosts) {
      Marks& m = ix.by_host[h.host];
      m.tone = std::max(m.tone, Tone::pass);
      m.pass += static_cast<int>(h.places);
    }
  }
  return ix;
}

Tone tone(const Marks* m) { return m ? m->tone : Tone::none; }

std::string tooltip(const std::string& head, const std::string& place, const Marks* m, std::size_t limit) {
  std::string t = head;
  if (!m) return t + "\nno verdict";
  t += '\n';
  t += std::to_string(m->pass);
  t += " pass, ";
  t += std::to_string(m->bad.size());
  t += " failing";
  if (m->skipped) t += ", " + std::to_string(m->skipped) + " skipped";
  for (std::size_t i = 0; i < m->bad.size() && i < limit; ++i) {
    const Verdict& v = *m->bad[i];
    t += "\n✗ " + v.criterion;
    if (v.status != VerdictStatus::fail) t += std::string(" (") + to_string(v.status) + ")";
    if (v.severity == Severity::warning) t += " (warning)";
    if (v.place != place) t += " at " + v.place;
    t += ": " + v.reason;
  }
  if (m->bad.size() > limit) t += "\n… and " + std::to_string(m->bad.size() - limit) + " more";
  return t;
}

}  // namespace ga::html
