// Writes report.json, report.md, report.html and report.junit.xml so that a reader (or a
// crash) never sees half a file: each is written through base::write_file_atomic (a temp file
// in the same directory, fsync'd, renamed over the final name, the directory fsync'd so the
// rename itself survives a power loss). A failure leaves the old file and no temp file.
#include <filesystem>
#include <ostream>
#include <string>

#include "base/file_io.hpp"
#include "reports/report.hpp"

namespace ga {

void write_report_files(const Report& r, const std::string& dir) {
  std::filesystem::create_directories(dir);
  // Streamed: the JSON and JUnit text of a large run (1.4 GiB and 350 MiB at 4096 hosts) are
  // never held whole in memory. report.md and report.html fold pairs and hosts and stay small.
  base::write_file_atomic(dir + "/report.json", [&](std::ostream& out) { write_report_json(r, out); });
  base::write_file_atomic(dir + "/report.md", report_to_markdown(r));
  base::write_file_atomic(dir + "/report.html", report_to_html(r));
  base::write_file_atomic(dir + "/report.junit.xml", [&](std::ostream& out) { write_report_junit(r, out); });
}

}  // namespace ga
