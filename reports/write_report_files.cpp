// Writes report.json, report.md, report.html, report.junit.xml, bad-hosts.txt and report.prom so that a reader (or a
// crash) never sees half a file: each is written through base::write_file_atomic (a temp file
// in the same directory, fsync'd, renamed over the final name, the directory fsync'd so the
// rename itself survives a power loss). A failure leaves the old file and no temp file.
#include <filesystem>
#include <ostream>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "base/file_io.hpp"
#include "reports/bad_hosts.hpp"
#include "reports/campaign.hpp"
#include "reports/report.hpp"

namespace ga {

void write_report_files(const Report& r, const std::string& dir) {
  std::filesystem::create_directories(dir);
  // Streamed: the JSON and JUnit text of a large run (1.4 GiB and 350 MiB at 4096 hosts) are
  // never held whole in memory. report.md and report.html fold pairs and hosts and stay small.
  // report.json, the largest, is written by a thread of its own while this one writes the
  // other three: the writers only read the report (nothing in reports/ keeps state), and at
  // 4096 hosts writing them one after the other was a quarter of `gpuaccept judge`.
  std::exception_ptr json_failed;
  std::thread json([&] {
    try {
      base::write_file_atomic(dir + "/report.json", [&](std::ostream& out) { write_report_json(r, out); });
    } catch (...) {
      json_failed = std::current_exception();
    }
  });
  std::exception_ptr others_failed;
  try {
    base::write_file_atomic(dir + "/report.md", report_to_markdown(r));
    base::write_file_atomic(dir + "/report.html", report_to_html(r));
    base::write_file_atomic(dir + "/report.junit.xml", [&](std::ostream& out) { write_report_junit(r, out); });
    // A re-test writes the campaign, and the campaign's bad hosts are what drain, undrain and
    // the next rerun-plan act on (reports/campaign.hpp). A previous run that cannot be read
    // leaves this run's own bad hosts and says why in campaign.md.
    std::optional<Campaign> campaign;
    std::string campaign_error;
    if (r.run.contains("rerun_of") && r.run["rerun_of"].is_string()) {
      try {
        campaign = merge_campaign(r.run["rerun_of"].get<std::string>(), r, dir);
      } catch (const std::exception& e) {
        campaign_error = e.what();
      }
    }
    if (campaign) {
      base::write_file_atomic(dir + "/campaign.json", campaign_to_json(*campaign).dump(2) + "\n");
      base::write_file_atomic(dir + "/campaign.md", campaign_to_markdown(*campaign));
      base::write_file_atomic(dir + "/bad-hosts.txt", bad_hosts_text(campaign_bad_hosts(*campaign)));
    } else {
      if (!campaign_error.empty())
        base::write_file_atomic(dir + "/campaign.md", "# gpuaccept re-test campaign: not merged\n\n" + campaign_error +
                                                          "\n\nbad-hosts.txt holds this run's own hosts only.\n");
      base::write_file_atomic(dir + "/bad-hosts.txt", bad_hosts_text(bad_hosts(r)));
    }
    base::write_file_atomic(dir + "/report.prom", [&](std::ostream& out) { write_report_prom(r, out); });
  } catch (...) {
    others_failed = std::current_exception();
  }
  json.join();
  if (json_failed) std::rethrow_exception(json_failed);
  if (others_failed) std::rethrow_exception(others_failed);
}

}  // namespace ga
