// Hostile topology files (issue 14 item 8), each found by the fuzz targets (tests/fuzz/): every
// one crashed a loader or made the journal writer throw far from the file; each is now refused
// with TopologyError naming the file and line. The inputs are built here rather than committed:
// the stack overflows need a few hundred kilobytes of one character.
#include <algorithm>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "scratch_dir.hpp"
#include "topology_test_util.hpp"

using namespace ga::topo;
using namespace topo_test;

namespace {

// Writes `text` as NAME in D, loads it; it must be refused naming the file, `line` and `says`.
void expect_refused(const ScratchDir& d, const std::string& name, const std::string& text, int line,
                    const std::string& says) {
  const std::string path = (d.p / name).string();
  std::ofstream(path, std::ios::binary) << text;
  try {
    load_topology_file(path);
    ADD_FAILURE() << name << ": loaded";
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.file, path) << name;
    EXPECT_EQ(e.line, line) << name << ": " << e.what();
    const std::string at = line > 0 ? path + ":" + std::to_string(line) : path;  // 0: the file has no line to name
    EXPECT_NE(std::string(e.what()).find(at + ": " + says), std::string::npos)
        << name << ": " << e.what();
  }
}

const std::string kBig(300000, ' ');

}  // namespace

// Found by fuzz_nccl_xml: a byte that is not UTF-8 in an attribute was loaded, and the journal's
// JSON writer threw "invalid UTF-8 byte" when the run recorded the topology.
TEST(TopologyHostileInput, TextThatIsNotUtf8IsRefusedNamingItsLine) {
  ScratchDir d("ga-topo-hostile");
  std::string nccl = slurp(fixture("nccl-topo/azure-ndv2-topo.xml"));
  ASSERT_NO_THROW(load_topology_text(nccl, "azure-ndv2"));
  const auto at = nccl.find("busid=\"") + 7;
  const int line = 1 + int(std::count(nccl.begin(), nccl.begin() + long(at), '\n'));
  expect_refused(d, "nccl.xml", nccl.insert(at, "\xf2\xf2"), line, "not UTF-8 text");

  std::string hw = slurp(fixture("hwloc/hp-sl390s-g7-2socket-mlx4-qdr.hwloc-v2.xml"));
  ASSERT_NO_THROW(load_topology_text(hw, "sl390s"));
  expect_refused(d, "hwloc.xml", hw + "<!-- \xff -->\n", 1 + int(std::count(hw.begin(), hw.end(), '\n')),
                 "not UTF-8 text");

  std::string smi = slurp(fixture("nvidia-smi-topo/princeton-della-2xA100-pcie-2numa.txt"));
  ASSERT_NO_THROW(load_topology_text(smi, "della"));
  expect_refused(d, "smi.txt", "\xc3\x28\n" + smi, 1, "not UTF-8 text");
}

// Found by the hostile-input pass over fuzz_hwloc_xml/fuzz_nccl_xml: std::regex (libstdc++)
// recurses once per character, and an XML declaration or DOCTYPE of a few hundred kilobytes
// overflowed the stack (SIGSEGV) in reject_unsafe_xml.
TEST(TopologyHostileInput, LongXmlDeclarationsAreRefusedNotRecursedInto) {
  ScratchDir d("ga-topo-hostile");
  expect_refused(d, "decl.xml", "<?xml version=\"1.0\" encoding=\"" + std::string(300000, 'u') + "\"?>\n<topology/>\n", 1,
                 "XML declaration without its closing ?> in its first 1024 bytes");
  expect_refused(d, "doctype.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE topology" + kBig + "SYSTEM \"hwloc2.dtd\">\n<topology/>\n",
                 2, "DOCTYPE not accepted");
  expect_refused(d, "torn-doctype.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM" + kBig, 2,
                 "DOCTYPE not accepted");
}

// Found by fuzz_hwloc_xml: one attribute name misspelt (complete_cpusEt, one byte changed in a
// recorded file) made hwloc 2.9's own XML import dereference NULL in hwloc_topology_load
// (SIGSEGV in hwloc_bitmap_compare_first). Checked before hwloc sees the file.
TEST(TopologyHostileInput, HwlocObjectWithACpusetButNoCompleteCpuset) {
  ScratchDir d("ga-topo-hostile");
  std::string hw = slurp(fixture("hwloc/hpe-cray-ex255a-4xMI300A-SPX-tuolumne.hwloc-v2.xml"));
  ASSERT_NO_THROW(load_topology_text(hw, "tuolumne"));
  const auto at = hw.find("<object type=\"L2Cache\"");
  ASSERT_NE(at, std::string::npos);
  const auto attr = hw.find("complete_cpuset=", at);
  hw[attr + 14] = 'E';  // complete_cpusEt
  const int line = 1 + int(std::count(hw.begin(), hw.begin() + long(at), '\n'));
  expect_refused(d, "cpuset.xml", hw, line, "object type=\"L2Cache\" has cpuset without complete_cpuset");
  std::string nodes = slurp(fixture("hwloc/hpe-cray-ex255a-4xMI300A-SPX-tuolumne.hwloc-v2.xml"));
  const auto n = nodes.find(" nodeset=", nodes.find("<object type=\"L2Cache\""));
  nodes[n + 1] = 'N';  // Nodeset: complete_nodeset without nodeset
  expect_refused(d, "nodeset.xml", nodes, line, "object type=\"L2Cache\" has complete_nodeset without nodeset");
}

// Found by fuzz_hwloc_xml in the 600-s run: a PU whose os_index attribute is misspelt (os_yndex)
// made hwloc's import set bit 2^32 - 1 of a bitmap, 512 MiB for one 226 KB file (libFuzzer's
// out-of-memory at 1 GiB with its corpus). Refused before hwloc sees it, as is an os_index past
// 2^20 or not a number.
TEST(TopologyHostileInput, HwlocPuOrNumaNodeWithoutASaneOsIndex) {
  ScratchDir d("ga-topo-hostile");
  const std::string hw = slurp(fixture("hwloc/hpe-cray-ex255a-4xMI300A-CPX-tuolumne.hwloc-v2.xml"));
  const auto at = hw.find("<object type=\"PU\" os_index=\"138\"");
  ASSERT_NE(at, std::string::npos);
  const int line = 1 + int(std::count(hw.begin(), hw.begin() + long(at), '\n'));
  std::string missing = hw;
  missing.replace(missing.find("os_index", at), 8, "os_yndex");
  expect_refused(d, "pu.xml", missing, line, "object type=\"PU\" has no os_index");
  std::string huge = hw;
  huge.replace(huge.find("os_index=\"138\"", at), 14, "os_index=\"4294967295\"");
  expect_refused(d, "pu-huge.xml", huge, line, "object type=\"PU\" has os_index=\"4294967295\"");
  const auto n = hw.find("<object type=\"NUMANode\" os_index=\"");
  ASSERT_NE(n, std::string::npos);
  std::string numa = hw;
  numa.replace(numa.find("os_index=\"", n), 10, "os_index=\"-");
  expect_refused(d, "numa.xml", numa, 1 + int(std::count(hw.begin(), hw.begin() + long(n), '\n')),
                 "object type=\"NUMANode\" has os_index=\"-");
  // ... and a bitmap word without its 0x tripped an assert in hwloc_bitmap_sscanf (abort).
  std::string word = hw;
  const auto ns = word.find("nodeset=\"0x", at);
  word.replace(ns, 11, "nodeset=\",x");
  expect_refused(d, "bitmap.xml", word, line, "object type=\"PU\" has nodeset=\",x");
}

// Found by fuzz_nvidia_smi: a NUMA node or a GPU column past INT_MAX made std::stoi throw
// std::out_of_range, which no caller expects from a loader; and a long cell overflowed the
// stack in the NUMA list's regex.
TEST(TopologyHostileInput, NvidiaSmiNumbersOutOfRangeAndLongLines) {
  ScratchDir d("ga-topo-hostile");
  const std::string head = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n";
  const std::string ok = head + "GPU0\t X \tNV12\t0-15\t0\nGPU1\tNV12\t X \t0-15\t0\n";
  ASSERT_EQ(load_topology_text(ok, "ok").gpus.size(), 2u);
  expect_refused(d, "numa.txt", head + "GPU0\t X \tNV12\t0-15\t99999999999999999999\nGPU1\tNV12\t X \t0-15\t0\n", 2,
                 "NUMA Affinity 99999999999999999999 is out of range");
  expect_refused(d, "column.txt", "\tGPU0\tGPU99999999999\tCPU Affinity\tNUMA Affinity\n"
                                  "GPU0\t X \tNV12\t0-15\t0\nGPU99999999999\tNV12\t X \t0-15\t0\n",
                 1, "column GPU99999999999: GPU index out of range");
  std::string list;
  for (int i = 0; i < 100000; ++i) list += std::to_string(i % 8) + ",";
  expect_refused(d, "cell.txt", head + "GPU0\t X \tNV12\t0-15\t" + list + "0\nGPU1\tNV12\t X \t0-15\t0\n", 2,
                 "line longer than 4096 bytes");
  // Format detection read every line with a regex too: a long blank line is no header.
  // UTF-16 with its byte-order mark was "unrecognised" (the mark hides the '<'): it is named.
  expect_refused(d, "utf16.xml", std::string("\xff\xfe<\0?\0x\0m\0l\0", 12), 1, "NUL byte not accepted");
  expect_refused(d, "blank.txt", kBig + "\n", 0, "unrecognised topology format");
}
