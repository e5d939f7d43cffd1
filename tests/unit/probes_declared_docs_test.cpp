// The generated tables in docs/ are what the declarations say: a probe that declares a new
// metric or parameter without scripts/gen-docs.sh leaves the docs wrong, and this fails.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app/commands.hpp"
#include "suites/criteria.hpp"

namespace ga {
namespace {

// The text between a file's <!-- generated: NAME --> markers (without the surrounding newlines).
std::string generated(const std::string& doc, const std::string& name) {
  std::ifstream in(std::string(GA_TEST_DATA_DIR) + "/../../docs/" + doc);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str(), begin = "<!-- generated: " + name + " -->\n",
                    end = "\n<!-- end generated: " + name + " -->";
  const auto b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return "(no markers in docs/" + doc + ")";
  return text.substr(b + begin.size(), e - b - begin.size());
}

TEST(DeclaredDocs, CriteriaMetricTableIsTheDeclarations) {
  std::string want = app::metrics_table();
  want.pop_back();  // the table's last newline is the marker's
  EXPECT_EQ(generated("criteria.md", "gpuaccept list --metrics"), want)
      << "docs/criteria.md is out of date: run scripts/gen-docs.sh";
}

TEST(DeclaredDocs, ParameterTableIsTheDeclarations) {
  std::string want = app::params_table();
  want.pop_back();
  EXPECT_EQ(generated("parameters.md", "gpuaccept list --params"), want)
      << "docs/parameters.md is out of date: run scripts/gen-docs.sh";
}

TEST(DeclaredDocs, ProfileTableIsTheProfiles) {
  std::string want = app::profiles_table();
  want.pop_back();
  EXPECT_EQ(generated("criteria.md", "gpuaccept list --profiles"), want)
      << "docs/criteria.md is out of date: run scripts/gen-docs.sh";
}

// A profile naming a metric no probe declares would only show as "skipped" on a real cluster.
TEST(DeclaredDocs, ProfilesNameDeclaredMetrics) {
  const MetricCatalogue catalogue = app::builtin_catalogue();
  for (const auto& name : criteria_profile_names()) {
    const CriteriaProfile p = criteria_profile(name);
    EXPECT_NO_THROW(check_criteria_metrics(parse_criteria(p.text, p.source), catalogue)) << name;
  }
}

}  // namespace
}  // namespace ga
