// The files of a report directory, written so that a reader (or a crash) never sees half a
// file: each through base::write_file_atomic (a temp file in the same directory, fsync'd,
// renamed over the final name, the directory fsync'd so the rename itself survives a power
// loss). A failure leaves the old file and no temp file. One list of them (report_files) serves
// the writer and `gpuaccept verify`, which renders the same list into digests and compares.
#include <exception>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "base/both.hpp"
#include "base/file_io.hpp"
#include "reports/attest.hpp"
#include "reports/bad_hosts.hpp"
#include "reports/campaign.hpp"
#include "reports/report.hpp"

namespace ga {

std::vector<ReportFile> report_files(const Report& r) {
  std::vector<ReportFile> files;
  // Streamed: the JSON and JUnit text of a large run (1.4 GiB and 350 MiB at 4096 hosts) are
  // never held whole in memory. report.md and report.html fold pairs and hosts and stay small.
  files.push_back({"report.json", [&r](std::ostream& out) { write_report_json(r, out); }, "json"});
  files.push_back({"report.md", [&r](std::ostream& out) { out << report_to_markdown(r); }, "md"});
  files.push_back({"report.html", [&r](std::ostream& out) { out << report_to_html(r); }, "html"});
  files.push_back({"report.junit.xml", [&r](std::ostream& out) { write_report_junit(r, out); }, "junit"});
  files.push_back({"report.prom", [&r](std::ostream& out) { write_report_prom(r, out); }, "prom"});
  // A re-test writes the campaign, and the campaign's bad hosts are what drain, undrain and the
  // next rerun-plan act on (reports/campaign.hpp). A previous run that cannot be read leaves
  // this run's own bad hosts and says why in campaign.md.
  std::optional<Campaign> campaign;
  std::string campaign_error;
  // The previous run is what the re-test's journal copied of it when it began (run_start's
  // rerun_of, app/run_support.cpp): nothing outside DIR is read, so a copy of DIR, the earlier
  // run deleted, gives the same files.
  static const nlohmann::json kNoStart = nlohmann::json::object();  // a report made without a journal
  const nlohmann::json& start = r.journal ? r.journal->run_start : kNoStart;
  if (const auto it = start.find("rerun_of"); it != start.end() && !it->is_null()) {
    try {
      if (!it->is_object() || !it->contains("campaign"))
        throw std::runtime_error("rerun_of is " + it->dump() +
                                 ": written by a gpuaccept that named the earlier run's directory instead of copying "
                                 "what it said; that directory is not read");
      campaign = merge_campaign(campaign_from_json((*it)["campaign"]), r);
    } catch (const std::exception& e) {
      campaign_error = e.what();
    }
  }
  if (campaign) {
    auto c = std::make_shared<Campaign>(std::move(*campaign));
    files.push_back({"bad-hosts.txt", [c](std::ostream& out) { out << bad_hosts_text(campaign_bad_hosts(*c)); }, ""});
    files.push_back({"campaign.json", [c](std::ostream& out) { out << campaign_to_json(*c).dump(2) << "\n"; }, ""});
    files.push_back({"campaign.md", [c](std::ostream& out) { out << campaign_to_markdown(*c); }, ""});
  } else {
    files.push_back({"bad-hosts.txt", [&r](std::ostream& out) { out << bad_hosts_text(bad_hosts(r)); }, ""});
    if (!campaign_error.empty())
      files.push_back({"campaign.md", [campaign_error](std::ostream& out) {
                         out << "# gpuaccept re-test campaign: not merged\n\n" << campaign_error
                             << "\n\nbad-hosts.txt holds this run's own hosts only.\n";
                       },
                       ""});
  }
  return files;
}

ReportChoice parse_report_choice(const std::string& spec) {
  static const std::set<std::string> known = {"json", "md", "html", "junit", "prom"};
  ReportChoice c;
  if (spec.empty() || spec == "all") return c;
  c.formats.clear();
  std::string item;
  std::istringstream in(spec);
  while (std::getline(in, item, ',')) {
    std::string fmt = item;
    if (const auto colon = item.find(':'); colon != std::string::npos) {
      fmt = item.substr(0, colon);
      if (item.substr(colon + 1) != "out=-")
        throw std::invalid_argument(item + ": the only option is out=- (print to stdout)");
      if (!c.to_stdout.empty()) throw std::invalid_argument("only one format can go to stdout");
      c.to_stdout = fmt;
    }
    if (!known.count(fmt))
      throw std::invalid_argument("unknown format \"" + fmt + "\" (json, md, html, junit, prom)");
    c.formats.insert(fmt);
  }
  return c;
}

void write_report_files(const Report& r, const std::string& dir, const ReportChoice& choice, std::ostream* stdout_) {
  std::filesystem::create_directories(dir);
  std::vector<ReportFile> files;
  for (auto& f : report_files(r)) {
    if (!f.format.empty() && !choice.formats.count(f.format)) continue;
    if (!f.format.empty() && f.format == choice.to_stdout) {
      if (stdout_) f.write(*stdout_);
      continue;
    }
    files.push_back(std::move(f));
  }
  if (files.empty()) return;
  // report.json, the largest, is written by a thread of its own while this one writes the
  // others: the writers only read the report (nothing in reports/ keeps state), and at 4096
  // hosts writing them one after the other was a quarter of `gpuaccept judge`.
  // Each file hashed as it is written, for the manifest (a 4096-host report is ~2.5 GiB).
  std::vector<std::string> digest(files.size());
  auto write_one = [&](std::size_t i) {
    base::write_file_atomic(dir + "/" + files[i].name,
                            [&](std::ostream& out) { digest[i] = attest::write_hashed(out, files[i].write); });
  };
  auto write_others = [&] {
    for (std::size_t i = 1; i < files.size(); ++i) write_one(i);
  };
  const bool manifest = r.journal && r.judgement;
  if (!manifest) {
    base::both([&] { write_one(0); }, write_others);
    return;
  }
  // The manifest covers everything in the directory: the journal and NCCL's logs, which are
  // there already, and these files. What is there is listed before any of these is written (so
  // that no temp file of theirs is listed) and hashed on a third thread while they are written:
  // at 4096 hosts the journal (~0.7 GiB) and the hosts' records were a second after the writers.
  std::set<std::string> writing;
  for (const auto& f : files) writing.insert(f.name);
  const std::vector<std::string> present = attest::manifest_files(dir, writing);
  attest::Manifest m;
  base::both([&] { write_one(0); },
             [&] { base::both([&] { m = attest::make_manifest(dir, r, present); }, write_others); });
  for (std::size_t i = 0; i < files.size(); ++i) m.files[files[i].name] = digest[i];
  base::write_file_atomic(dir + "/" + attest::kManifest, attest::manifest_to_json(m).dump(2) + "\n");
}

}  // namespace ga
