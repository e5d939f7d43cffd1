// report.html: one self-contained page (inline CSS and SVG, a few lines of optional script;
// nothing fetched) that says first whether the run passed, then what failed and where, then
// shows the cluster on its topology coloured by the verdicts, then every host's metrics.
// Layout is docs/report-format.md. Like the other writers it only formats: the numbers come
// from the judgement, the words from build_report and text_format.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "base/quantity.hpp"
#include "reports/host_folds.hpp"
#include "reports/html_internal.hpp"
#include "reports/report.hpp"
#include "reports/text_format.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

using html::esc;
using html::Marks;
using html::Tone;
using nlohmann::json;
using report_text::string_or;

constexpr std::size_t kOpenHostsUpTo = 16;  // failing hosts' sections start open in small runs
constexpr std::size_t kFailingShown = 20;   // failing verdicts shown before "N more"

constexpr const char* kStyle = R"CSS(
:root{--fail:#cf222e;--fail-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;--pass:#1a7f37;--pass-bg:#dafbe1;
--none:#8c959f;--none-bg:#f3f4f6;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--inc:#bc4c00;--inc-bg:#fff1e5}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:#f6f8fa}
main{max-width:1440px;margin:0 auto;padding:0 20px 40px}
h2{font-size:19px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px;overflow:auto;max-height:420px}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
.banner{padding:18px 20px 16px;color:#fff;margin-bottom:8px}
.banner h1{margin:0;font-size:30px;letter-spacing:.5px}
.banner h1 small{font-size:15px;font-weight:400;opacity:.9;margin-left:10px}
.ov-PASS{background:var(--pass)}.ov-FAIL{background:var(--fail)}.ov-INCOMPLETE{background:var(--inc)}.ov-UNKNOWN{background:var(--none)}
.ov-TOOL_ERROR{background:var(--inc)}.ov-INCONCLUSIVE{background:var(--warn)}
.counts{display:flex;flex-wrap:wrap;gap:8px;margin-top:10px}
.count{background:rgba(255,255,255,.18);border:1px solid rgba(255,255,255,.35);border-radius:16px;padding:2px 12px}
.count b{font-size:16px;margin-right:4px}
.meta{margin-top:8px;opacity:.92;font-size:13px}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:6px 20px;font-size:13px}
nav a{margin-right:14px}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:2px 16px 14px;margin-top:16px}
section h2{border:0;margin-top:12px}
table{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0}
th,td{border-bottom:1px solid #eaeef2;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600;position:sticky;top:30px}
td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
tr.bad>td:not([rowspan]){background:#fff5f5}
td.pl{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:nowrap;border-left:4px solid var(--none)}
td.pl.st-fail{border-left-color:var(--fail)}td.pl.st-warn{border-left-color:#d4a72c}td.pl.st-pass{border-left-color:var(--pass)}
.chip{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;white-space:nowrap}
.chip.st-fail{background:var(--fail-bg);color:var(--fail)}.chip.st-warn{background:var(--warn-bg);color:var(--warn)}
.chip.st-pass{background:var(--pass-bg);color:var(--pass)}.chip.st-none{background:var(--none-bg);color:var(--muted)}
.v{display:inline-block;margin:0 6px 0 0;white-space:nowrap}
.v.st-fail{color:var(--fail);font-weight:600}.v.st-warn{color:var(--warn);font-weight:600}.v.st-pass{color:var(--pass)}.v.st-none{color:var(--muted)}
.incomplete{border-color:var(--inc);background:var(--inc-bg)}
.muted,.note{color:var(--muted)}.note{font-size:12.5px}
details.more>summary{cursor:pointer;color:#0969da;padding:4px 0}
details.host{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:#fff}
details.host>summary{cursor:pointer;padding:6px 10px;list-style-position:inside}
details.host[open]>summary{border-bottom:1px solid var(--line);background:#f6f8fa}
details.host>div{padding:4px 12px 10px}
table.narrow{width:auto;min-width:50%}
.legend{display:flex;flex-wrap:wrap;gap:14px;font-size:12.5px;color:var(--muted);margin:6px 0}
.legend i{display:inline-block;width:14px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px;border:1.5px solid}
.scroll{overflow:auto}
svg.topo{display:block;margin:6px 0;max-width:100%;height:auto;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
svg .st-fail.dev,svg .st-fail.grp,svg .st-fail.cell,svg .st-fail.hh{fill:var(--fail-bg);stroke:var(--fail)}
svg .st-warn.dev,svg .st-warn.grp,svg .st-warn.cell,svg .st-warn.hh{fill:var(--warn-bg);stroke:#d4a72c}
svg .st-pass.dev,svg .st-pass.grp,svg .st-pass.cell,svg .st-pass.hh{fill:var(--pass-bg);stroke:var(--pass)}
svg .st-none.dev,svg .st-none.grp,svg .st-none.cell,svg .st-none.hh{fill:var(--none-bg);stroke:var(--none)}
svg .grp{fill-opacity:.45}svg .hh{stroke:none}
svg .roll{fill:#fff;stroke-width:2.5}svg .roll.st-fail{stroke:var(--fail)}svg .roll.st-warn{stroke:#d4a72c}
svg .roll.st-pass{stroke:var(--pass)}svg .roll.st-none{stroke:var(--none)}
svg .dash{stroke-dasharray:4 3}
svg .pair{fill:none;stroke-width:2;stroke-opacity:.8}svg .pair.st-fail{stroke:var(--fail);stroke-width:3}
svg .pair.st-warn{stroke:#d4a72c;stroke-width:2.5}svg .pair.st-pass{stroke:var(--pass);stroke-opacity:.45}svg .pair.st-none{stroke:var(--none)}
svg .pair:hover{stroke-width:5;stroke-opacity:1}svg .port{fill:#57606a}
svg text{fill:var(--ink)}svg .hn{font-weight:700;font-size:14px}svg .hs{font-size:11px;fill:var(--muted)}
svg .gl{font-size:11px;font-weight:600;fill:#424a53}svg .dl{font-size:12px;font-weight:600}svg .ds{font-size:10px;fill:#424a53}
svg a .hn{fill:#0969da}svg .miss{fill:var(--fail);font-weight:700}
)CSS";

// Collapse/expand every host at once, and open a host's section when a link points at it.
// The page reads the same without it.
constexpr const char* kScript = R"JS(
(function(){
  var tools=document.getElementById('host-tools');
  function all(open){document.querySelectorAll('details.host').forEach(function(d){d.open=open;});}
  if(tools){[['Expand all hosts',true],['Collapse all hosts',false]].forEach(function(b){
    var e=document.createElement('button');e.type='button';e.textContent=b[0];
    e.onclick=function(){all(b[1]);};tools.appendChild(e);});}
  function reveal(){var t=location.hash&&document.getElementById(location.hash.slice(1));
    if(t&&t.tagName==='DETAILS'){t.open=true;}}
  window.addEventListener('hashchange',reveal);reveal();
})();
)JS";

struct Page {
  const Report& r;
  html::VerdictIndex ix;
  std::unordered_map<std::string, std::size_t> host_index;
  bool large = false;  // more hosts than are drawn in full
  std::string out;

  explicit Page(const Report& report)
      : r(report), ix(html::index_verdicts(*report.judgement)), large(report.hosts.size() > html::kDrawAllHostsUpTo) {
    for (std::size_t i = 0; i < r.hosts.size(); ++i) host_index.emplace(r.hosts[i].host, i);
  }

  void e(std::string_view s) { esc(out, s); }

  // A place, linked to its host's section when it has one.
  void place_link(const std::string& p) {
    auto it = host_index.find(place::kind(p) == place::Kind::pair ? std::string() : place::host_of(p));
    if (it != host_index.end()) {
      out += "<a href=\"#" + html::host_anchor(it->second) + "\"><code>";
      e(p);
      out += "</code></a>";
    } else {
      out += "<code>";
      e(p);
      out += "</code>";
    }
  }

  void chip(Tone t, std::string_view word) {
    out += "<span class=\"chip ";
    out += html::tone_class(t);
    out += "\">";
    e(word);
    out += "</span>";
  }

  void verdict_mark(const Verdict& v) {
    out += "<span class=\"v ";
    out += html::tone_class(html::tone_of(v));
    out += '"';
    // A large run's passing reasons would be half the file; they stay in report.md and .json.
    if (v.status != VerdictStatus::pass || !large) {
      out += " title=\"";
      e(v.reason);
      out += '"';
    }
    out += '>';
    e(report_text::mark(v));
    out += "</span>";
  }

  void head() {
    const std::string overall = r.judgement->summary.overall.empty() ? "UNKNOWN" : r.judgement->summary.overall;
    out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
           "<meta name=\"generator\" content=\"gpuaccept\"><title>gpuaccept: ";
    e(overall);
    out += " — " + std::to_string(r.hosts.size()) + (r.hosts.size() == 1 ? " host" : " hosts") + "</title><style>";
    out += kStyle;
    out += "</style></head>\n<body>\n";
  }

  void banner() {
    const Summary& s = r.judgement->summary;
    const std::string overall = s.overall.empty() ? "UNKNOWN" : s.overall;
    const json& run = r.run;
    const std::size_t hosts = run.contains("hosts") ? run["hosts"].size() : r.hosts.size();
    const std::size_t ranks = run.contains("ranks") ? run["ranks"].size() : 0;
    out += "<header class=\"banner ov-";
    std::string css = overall;  // "TOOL ERROR" -> ov-TOOL_ERROR: a class name has no spaces
    std::replace(css.begin(), css.end(), ' ', '_');
    e(css);
    out += "\" id=\"summary\"><h1>";
    e(overall);
    out += "<small>gpuaccept acceptance report</small></h1><div class=\"counts\">";
    auto count = [&](int n, const char* what) {
      out += "<span class=\"count\"><b>" + std::to_string(n) + "</b>" + what + "</span>";
    };
    count(s.pass, "pass");
    count(s.fail, "fail");
    count(s.missing, "missing");
    count(s.tool_error, "tool error");
    count(s.inconclusive, "inconclusive");
    count(s.skipped, "skipped");
    out += "</div><div class=\"meta\">" + std::to_string(hosts) + (hosts == 1 ? " host, " : " hosts, ") +
           std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + " · started ";
    e(string_or(run, "started", "(unknown)"));
    out += " · ended ";
    e(string_or(run, "ended", "(not recorded)"));
    out += " · exit code " + std::to_string(s.exit_code) + "</div></header>\n";
    out += "<nav><a href=\"#summary\">Summary</a>";
    if (r.judgement->incomplete) out += "<a href=\"#incomplete\">Incomplete</a>";
    out += "<a href=\"#failing\">Node faults</a>";
    if (s.tool_error) out += "<a href=\"#tool-errors\">Tool errors</a>";
    if (s.inconclusive) out += "<a href=\"#inconclusive\">Inconclusive</a>";
    out += "<a href=\"#topology\">Topology</a><a href=\"#probes\">Probes</a>"
           "<a href=\"#hosts\">Hosts</a>";
    if (!r.cluster.rows.empty() || !r.cluster.other_verdicts.empty()) out += "<a href=\"#pairs\">Cluster and pairs</a>";
    out += "<a href=\"#run\">Run</a></nav>\n<main>\n";
  }

  void incomplete() {
    const auto& inc = r.judgement->incomplete;
    if (!inc) return;
    out += "<section class=\"incomplete\" id=\"incomplete\"><h2>Incomplete: probe <code>";
    e(inc->probe);
    out += "</code> did not finish</h2><p>";
    e(inc->reason.empty() ? std::string("No reason recorded.") : inc->reason);
    out += "</p><p><b>Hosts with missing ranks:</b> ";
    std::vector<std::string> hosts;
    for (const auto& m : inc->missing_ranks)
      if (std::find(hosts.begin(), hosts.end(), m.host) == hosts.end()) hosts.push_back(m.host);
    if (hosts.empty()) out += "none recorded";
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      out += i ? ", " : "";
      place_link(hosts[i]);
    }
    out += "</p><table><thead><tr><th>rank<th>host<th>state</thead><tbody>\n";
    for (const auto& m : inc->missing_ranks) {
      out += "<tr class=\"bad\"><td class=\"n\">" + std::to_string(m.rank) + "<td>";
      e(m.host);
      out += "<td><span class=\"chip st-fail\">missing</span> never arrived\n";
    }
    for (const auto& w : inc->waiting_ranks) {
      out += "<tr><td class=\"n\">" + std::to_string(w.rank) + "<td>";
      e(w.host);
      out += "<td><span class=\"chip st-warn\">waiting</span> on the missing ranks\n";
    }
    out += "</tbody></table>";
    if (inc->detected_by >= 0) out += "<p>Detected by rank " + std::to_string(inc->detected_by) + ".</p>";
    out += "</section>\n";
  }

  // One section per outcome class (drain, fix the tool, re-test), as report.md has them.
  void failing() {
    outcome_section(OutcomeClass::node_fault, "failing", "Failing criteria: node faults",
                    "A criterion failed with evidence, or a required measurement is missing: the place named is at "
                    "fault (drain it; warnings are for a person to read).");
    outcome_section(OutcomeClass::tool_error, "tool-errors", "Tool errors",
                    "gpuaccept, its configuration or a library it loads failed here. These say nothing against the "
                    "places named: fix the tool or its setup and run again; never drain on them.");
    outcome_section(OutcomeClass::inconclusive, "inconclusive", "Inconclusive",
                    "The evidence is unconfirmed or contradictory (for example a suspect no re-test confirmed): "
                    "re-test these places; do not drain on them.");
  }

  void outcome_section(OutcomeClass which, const char* id, const char* title, const char* what_to_do) {
    std::vector<const Verdict*> bad;
    for (const auto& v : r.judgement->verdicts)
      if (v.outcome() == which) bad.push_back(&v);
    std::stable_partition(bad.begin(), bad.end(), [](const Verdict* v) { return v->severity == Severity::error; });
    if (bad.empty() && which != OutcomeClass::node_fault) return;
    out += std::string("<section id=\"") + id + "\"><h2>" + title + " (" + std::to_string(bad.size()) + ")</h2>";
    if (bad.empty()) {
      out += "<p>None.</p></section>\n";
      return;
    }
    out += "<p>";
    e(what_to_do);
    out += "</p>";
    const char* header =
        "<table><thead><tr><th>severity<th>status<th>criterion<th>place<th>value<th>bound<th>reason</thead><tbody>\n";
    out += header;
    for (std::size_t i = 0; i < bad.size(); ++i) {
      const Verdict* v = bad[i];
      // A long list would push the picture of the cluster far down: the rest folds away.
      if (i == kFailingShown && bad.size() > kFailingShown + 5) {
        out += "</tbody></table><details class=\"more\"><summary>" + std::to_string(bad.size() - i) +
               " more failing verdicts</summary>";
        out += header;
      }
      out += "<tr><td>";
      chip(html::tone_of(*v), to_string(v->severity));
      out += "<td>";
      e(to_string(v->status));
      out += "<td>";
      e(v->criterion);
      out += "<td>";
      place_link(v->place);
      out += "<td class=\"n\">";
      e(report_text::quantity(*v));
      out += "<td>";
      e(report_text::bound_text(v->bounds, v->unit));
      out += "<td>";
      e(v->reason);
      out += "\n";
    }
    out += "</tbody></table>";
    if (bad.size() > kFailingShown + 5) out += "</details>";
    out += "</section>\n";
  }

  void topology() {
    out += "<section id=\"topology\"><h2>Topology and verdicts</h2><div class=\"legend\">"
           "<span><i style=\"background:var(--fail-bg);border-color:var(--fail)\"></i>node fault: fail or missing</span>"
           "<span><i style=\"background:var(--warn-bg);border-color:#d4a72c\"></i>only warnings, tool errors or "
           "inconclusive (not the node's fault)</span>"
           "<span><i style=\"background:var(--pass-bg);border-color:var(--pass)\"></i>pass</span>"
           "<span><i style=\"background:var(--none-bg);border-color:var(--none)\"></i>no verdict or skipped</span>"
           "<span><i style=\"background:#0969da;border-color:#0969da;height:5px\"></i>GPU link island</span>"
           "<span>host outline: worst verdict anywhere in the host; header band: the host's own verdicts</span>"
           "<span>GPU: → nearest NIC and PCIe path class</span><span>hover any box for its verdicts</span></div>\n";
    html::append_topology(out, r, ix);
    out += "</section>\n";
  }

  void probes() {
    out += "<section id=\"probes\"><h2>Probes</h2>";
    if (r.judgement->probes.empty()) {
      out += "<p>No probe ran.</p></section>\n";
      return;
    }
    out += "<table class=\"narrow\"><thead><tr><th>probe<th>status<th>elapsed<th>reason</thead><tbody>\n";
    for (const auto& p : r.judgement->probes) {
      const Tone t = p.status == ProbeStatus::ok        ? Tone::pass
                     : p.status == ProbeStatus::skipped ? Tone::none
                                                        : Tone::fail;
      out += "<tr><td><code>";
      e(p.name);
      out += "</code><td>";
      chip(t, to_string(p.status));
      out += "<td class=\"n\">";
      for (const auto& rec : r.journal->probes)
        if (rec.name == p.name && rec.ended) e(base::format_quantity(rec.elapsed_s, "s"));
      out += "<td>";
      e(p.reason);
      out += "\n";
    }
    out += "</tbody></table></section>\n";
  }

  void topology_brief(const topo::HostTopology* h) {
    out += "<p class=\"note\">";
    if (!h) {
      out += "Topology: not recorded.</p>";
      return;
    }
    auto numa = [](const std::optional<int>& n) { return n ? "NUMA " + std::to_string(*n) : std::string("NUMA ?"); };
    std::string s = "NUMA nodes:";
    for (std::size_t i = 0; i < h->numa_nodes.size(); ++i) {
      const auto& n = h->numa_nodes[i];
      s += std::string(i ? ";" : "") + " " + std::to_string(n.os_index);
      if (!n.cpuset.empty()) s += " (CPUs " + n.cpuset + (n.memory_bytes ? ", " + base::format_quantity(double(*n.memory_bytes), "B") : "") + ")";
    }
    s += h->numa_nodes.empty() ? " none" : "";
    s += " · GPUs:";
    for (std::size_t i = 0; i < h->gpus.size(); ++i) {
      const auto& g = h->gpus[i];
      s += std::string(i ? ";" : "") + " " + std::to_string(g.index) + " (" + numa(g.numa_node);
      if (!g.nearest_nics.empty()) {
        s += ", NIC ";
        for (std::size_t k = 0; k < g.nearest_nics.size(); ++k) s += (k ? "/" : "") + g.nearest_nics[k];
        if (g.nic_path) s += std::string(" ") + topo::to_string(*g.nic_path);
      }
      s += ")";
    }
    s += h->gpus.empty() ? " none" : "";
    s += " · NICs:";
    for (std::size_t i = 0; i < h->nics.size(); ++i)
      s += std::string(i ? ";" : "") + " " + h->nics[i].name + " (" + numa(h->nics[i].numa_node) + ")";
    s += h->nics.empty() ? " none" : "";
    e(s);
    out += "</p>";
  }

  // Rows of one place share its place and where cells (rowspan), so a GPU's 20 metrics do not
  // repeat its description 20 times: at 1024 hosts that is most of the file.
  void metric_table(const HostSection& s) {
    if (s.rows.empty()) {
      out += "<p class=\"note\">No metrics measured here.</p>";
    } else {
      out += "<table><thead><tr><th>place<th>where<th>metric<th>params<th>value<th>verdicts</thead><tbody>\n";
      for (std::size_t i = 0; i < s.rows.size();) {
        std::size_t j = i;
        while (j < s.rows.size() && s.rows[j].place() == s.rows[i].place()) ++j;
        for (std::size_t k = i; k < j; ++k) {
          const PlacedMetric& row = s.rows[k];
          bool bad = false;
          for (const Verdict* v : row.verdicts) bad |= html::tone_of(*v) >= Tone::warn;
          out += bad ? "<tr class=\"bad\">" : "<tr>";
          if (k == i) {
            std::string span;
            if (j - i > 1) {
              span = " rowspan=\"";
              span += std::to_string(j - i);
              span += '"';
            }
            out += "<td class=\"pl ";
            out += html::tone_class(html::tone(ix.place(row.place())));
            out += '"';
            out += span;
            out += '>';
            e(row.place());
            out += "<td";
            out += span;
            out += '>';
            e(row.where());
          }
          const Metric& m = *row.metric;
          out += "<td>";
          e(m.metric);
          out += "<td>";
          e(report_text::params_text(m.params));
          out += "<td class=\"n\">";
          e(report_text::quantity(m));
          out += "<td>";
          for (const Verdict* v : row.verdicts) verdict_mark(*v);
          out += "\n";
        }
        i = j;
      }
      out += "</tbody></table>";
    }
    if (!s.other_verdicts.empty()) {
      out += "<p>Verdicts not tied to one measured row:</p><ul>";
      for (const Verdict* v : s.other_verdicts) {
        out += "<li>";
        verdict_mark(*v);
        out += " at <code>";
        e(v->place);
        out += "</code>: ";
        e(v->reason);
        out += "</li>";
      }
      out += "</ul>";
    }
  }

  void hosts() {
    out += "<section id=\"hosts\"><h2>Hosts (" + std::to_string(r.hosts.size()) +
           ")</h2><div id=\"host-tools\" class=\"legend\"></div>\n";
    out += "<p class=\"note\">Hover a verdict for its reason";
    if (large) out += " (failing ones only in a run this large: report.md has every reason)";
    out += ".</p>\n";
    if (r.hosts.empty()) out += "<p>No hosts recorded.</p>";
    const bool open_failing = r.hosts.size() <= kOpenHostsUpTo;
    const report_fold::Folds folds = report_fold::fold_hosts(r);
    for (std::size_t i = 0; i < r.hosts.size(); ++i) {
      const HostSection& s = r.hosts[i];
      if (folds.folded(i)) {
        // Hosts alike in topology whose every verdict passes: one section for all of them.
        // Each member keeps its anchor there, so links to any of them land on the fold.
        if (folds.leader[i] != i) continue;
        const auto c = report_fold::fold_counts(r, folds, i);
        out += "<details class=\"host fold\" id=\"" + html::host_anchor(i) + "\"><summary>";
        chip(Tone::pass, html::tone_word(Tone::pass));
        out += " <b>";
        e(report_fold::fold_title(r, folds, i));
        out += "</b> <span class=\"muted\">ranks " + report_text::rank_list(c.ranks) + " · " +
               std::to_string(c.rows) + " metrics · " + std::to_string(c.verdicts) + " pass</span></summary><div>";
        for (std::size_t k : folds.members[i])
          if (k != i) out += "<i id=\"" + html::host_anchor(k) + "\"></i>";
        topology_brief(r.journal->topology.find(s.host));
        out += "<p class=\"note\">Each host's metric rows are in report.json.</p></div></details>\n";
        continue;
      }
      const Marks* m = ix.host(s.host);
      const Tone t = html::tone(m);
      out += "<details class=\"host\" id=\"" + html::host_anchor(i) + "\"";
      if (open_failing && t >= Tone::warn) out += " open";
      out += "><summary>";
      chip(t, html::tone_word(t));
      out += " <b>";
      e(s.host);
      out += "</b> <span class=\"muted\">ranks " + report_text::rank_list(s.ranks) + " · " +
             std::to_string(s.rows.size()) + " metrics · " + std::to_string(m ? m->pass : 0) + " pass · " +
             std::to_string(m ? m->bad.size() : 0) + " failing</span></summary><div>";
      topology_brief(r.journal->topology.find(s.host));
      metric_table(s);
      out += "</div></details>\n";
    }
    out += "</section>\n";
    if (!r.cluster.rows.empty() || !r.cluster.other_verdicts.empty()) {
      out += "<section id=\"pairs\"><h2>Cluster and pair metrics</h2>";
      const report_fold::PairFold pairs = report_fold::fold_pairs(r);
      metric_table(pairs.folded ? pairs.listed : r.cluster);
      if (pairs.folded) {
        out += "<p class=\"note\">";
        e(report_fold::pair_fold_note(pairs));
        out += "</p>";
      }
      out += "</section>\n";
    }
  }

  void kv(const char* key, std::string_view value) {
    out += "<tr><th>";
    out += key;
    out += "<td>";
    e(value);
    out += "\n";
  }

  void run_info() {
    const json& run = r.run;
    out += "<section id=\"run\"><h2>Run</h2><table class=\"narrow\"><tbody>\n";
    std::string argv;
    if (run.contains("argv"))
      for (const auto& a : run["argv"])
        argv += (argv.empty() ? "" : " ") +
                (a.is_string() ? a.get<std::string>() : a.dump(-1, ' ', false, json::error_handler_t::replace));
    out += "<tr><th>command<td><code>";
    e(argv.empty() ? std::string("(not recorded)") : argv);
    out += "</code>\n";
    kv("started", string_or(run, "started", "(unknown)"));
    kv("ended", string_or(run, "ended", "(not recorded)"));
    if (run.contains("suite") && run["suite"].is_object()) kv("suite", string_or(run["suite"], "name", "(unnamed)"));
    if (run.contains("probe_timeout_s") && run["probe_timeout_s"].is_number())
      kv("probe deadline", base::format_quantity(run["probe_timeout_s"].get<double>(), "s"));
    if (run.contains("slurm") && run["slurm"].is_object())
      kv("Slurm job", string_or(run["slurm"], "job_id", "(no id)"));
    if (run.contains("versions") && run["versions"].is_object())
      for (auto it = run["versions"].begin(); it != run["versions"].end(); ++it) {
        out += "<tr><th>";
        e(it.key());
        out += "<td>";
        e(it.value().is_string() ? it.value().get<std::string>()
          : it.value().is_null() ? std::string("(not recorded)")
                                 : it.value().dump(-1, ' ', false, json::error_handler_t::replace));
        out += "\n";
      }
    std::string source = run.contains("criteria") ? string_or(run["criteria"], "source", "(unknown)") : "(unknown)";
    kv("criteria", source);
    out += "</tbody></table>";
    if (!r.journal->signals.empty()) {
      out += "<h3>Signals</h3><table><thead><tr><th>rank<th>host<th>signal<th>probe<th>time</thead><tbody>\n";
      for (const auto& sg : r.journal->signals) {
        out += "<tr><td class=\"n\">" + std::to_string(sg.rank) + "<td>";
        e(sg.host);
        out += "<td>";
        e(sg.signal);
        out += "<td>";
        e(sg.probe);
        out += "<td>";
        e(sg.time);
        out += "\n";
      }
      out += "</tbody></table>";
    }
    if (run.contains("criteria")) {
      out += "<details><summary>Criteria the run was judged with (";
      e(source);
      out += ")</summary><pre>";
      e(string_or(run["criteria"], "text", ""));
      out += "</pre></details>";
    }
    out += "</section>\n";
  }
};

}  // namespace

std::string report_to_html(const Report& r) {
  Page p(r);
  p.out.reserve(64 * 1024 + r.judgement->metrics.size() * 110 + r.judgement->verdicts.size() * 90);
  p.head();
  p.banner();
  p.incomplete();
  p.failing();
  p.topology();
  html::append_plots(p.out, r, p.ix);
  p.probes();
  p.hosts();
  p.run_info();
  p.out += "</main>\n<script>";
  p.out += kScript;
  p.out += "</script>\n</body></html>\n";
  return std::move(p.out);
}

}  // namespace ga
