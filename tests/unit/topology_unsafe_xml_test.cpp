// Hostile XML topologies (issue 14 item 8): a document type declaration or an entity
// declaration never reaches hwloc's libxml2 or pugixml. Each case is a recorded file with one
// declaration put in, written by the test; the unchanged file is loaded too, so a rejection
// is the declaration's doing and not the file's.
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "base/text.hpp"
#include "scratch_dir.hpp"
#include "topology_test_util.hpp"

using namespace ga::topo;
using namespace topo_test;

namespace {

std::string write(const ScratchDir& d, const std::string& name, const std::string& text) {
  const std::string p = (d.p / name).string();
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// Loads `path`, which must fail naming the file and `line` with `says` in the message.
void expect_refused(const std::string& path, int line, const std::string& says, const std::string& label) {
  try {
    load_topology_file(path);
    ADD_FAILURE() << label << ": loaded";
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.file, path) << label;
    EXPECT_EQ(e.line, line) << label << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(path + ":" + std::to_string(line) + ": " + says), std::string::npos)
        << label << ": " << e.what();
  }
}

const char* kHwlocFile = "hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml";
const char* kHwlocDoctype = "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">";  // its line 2
const char* kNcclFile = "nccl-topo/aws-p4d.24xlarge-topo.xml";            // a 14-line comment, then <system>

}  // namespace

TEST(TopologyUnsafeXml, HwlocDoctypesOtherThanHwlocsOwnAreRefusedBeforeHwlocParses) {
  ScratchDir d("ga-topo-xml");
  const std::string good = slurp(fixture(kHwlocFile));
  const auto at = good.find(kHwlocDoctype);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(load_topology_file(write(d, "good.xml", good)).gpus.size(), 16u);  // hwloc's own DOCTYPE is read

  struct Case {
    const char* label;
    std::string doctype;
    int line;        // of the refused declaration
    const char* says;
  };
  const std::vector<Case> cases = {
      // The one that crashed hwloc's libxml2 import with SIGSEGV (no system id).
      {"internal subset", "<!DOCTYPE topology [<!ENTITY a \"x\">]>", 2, "DOCTYPE not accepted"},
      {"external entity", "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\" [\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>", 2,
       "DOCTYPE not accepted"},
      {"billion laughs",
       "<!DOCTYPE topology [\n <!ENTITY lol \"lol\">\n <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
       " <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n]>",
       2, "DOCTYPE not accepted"},
      {"another DTD", "<!DOCTYPE topology SYSTEM \"http://example.invalid/x.dtd\">", 2, "DOCTYPE not accepted"},
      {"public id", "<!DOCTYPE topology PUBLIC \"-//x//EN\" \"hwloc2.dtd\">", 2, "DOCTYPE not accepted"},
      {"lower case", "<!doctype topology [<!ENTITY a \"x\">]>", 2, "DOCTYPE not accepted"},
      // hwloc's own DOCTYPE kept, an entity declared after it (malformed, still never parsed).
      {"entity after hwloc's DOCTYPE", std::string(kHwlocDoctype) + "\n\n<!ENTITY a \"x\">", 4,
       "ENTITY declaration not accepted"},
  };
  for (const auto& c : cases) {
    std::string text = good;
    text.replace(at, std::strlen(kHwlocDoctype), c.doctype);
    expect_refused(write(d, "hostile.xml", text), c.line, c.says, c.label);
  }
}

TEST(TopologyUnsafeXml, NcclXmlRefusesEveryDoctypeButNotOneInsideAComment) {
  ScratchDir d("ga-topo-xml");
  const std::string good = slurp(fixture(kNcclFile));
  const auto root = good.find("<system");
  ASSERT_NE(root, std::string::npos);
  const int root_line = ga::base::line_of_offset(good, root);
  EXPECT_EQ(load_topology_file(write(d, "good.xml", good)).source, "nccl-xml");

  // NCCL writes no DOCTYPE: even hwloc's is refused in an NCCL file.
  for (const std::string doctype : {std::string("<!DOCTYPE system [<!ENTITY a \"x\">]>\n"), std::string(kHwlocDoctype) + "\n"}) {
    std::string text = good;
    text.insert(root, doctype);
    expect_refused(write(d, "hostile.xml", text), root_line, "DOCTYPE not accepted", doctype);
  }
  // Inside a comment it is text: the licence comment may say anything.
  std::string commented = good;
  commented.insert(good.find("-->"), "<!DOCTYPE system [<!ENTITY a \"x\">]>\n");
  EXPECT_EQ(load_topology_file(write(d, "commented.xml", commented)).source, "nccl-xml");
}

TEST(TopologyUnsafeXml, TextTheByteScanCannotVouchForIsRefused) {
  ScratchDir d("ga-topo-xml");
  const std::string good = slurp(fixture(kHwlocFile));
  // UTF-7 spells "<!DOCTYPE" as "+ADw-!DOCTYPE": a declared encoding that is not ASCII-compatible.
  std::string utf7 = good;
  utf7.replace(0, good.find('\n'), "<?xml version=\"1.0\" encoding=\"UTF-7\"?>");
  expect_refused(write(d, "utf7.xml", utf7), 1, "XML encoding \"UTF-7\" not accepted", "utf-7");
  // A NUL byte (UTF-16 text, or binary): libxml2 would decode UTF-16 and see what the scan cannot.
  std::string nul = good;
  nul.insert(good.find("<topology"), std::string("\0", 1));
  expect_refused(write(d, "nul.xml", nul), 3, "NUL byte not accepted", "nul");
}
