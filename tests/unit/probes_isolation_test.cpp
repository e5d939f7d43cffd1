// Adaptive isolation (probes/harness/isolation.hpp) on simulated clusters of 64, 512 and 4096
// hosts, and the leaf-group files it reads (probes/harness/topology_conf.hpp).
//
// The simulator gives every directed measurement a latency and a bandwidth from the health of
// its two hosts, of the pair, and of the link between their two leaf groups, times lognormal
// noise (sigma 5%); a pair across leaves is 1.3x the latency of one within a leaf (one more
// hop), which is no fault. Each case runs the planner to "done" over many seeds, counts the
// rounds (all pairs would take N-1) and checks that the blame names exactly the faulty place.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "probes/harness/isolation.hpp"
#include "probes/harness/topology_conf.hpp"

using namespace ga::isolation;

namespace {

std::string host_name(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "n%04d", i + 1);
  return b;
}
std::string leaf_name(int g) {
  char b[16];
  std::snprintf(b, sizeof b, "leaf%03d", g + 1);
  return b;
}

struct Sim {
  int n = 0, leaf = 32;
  double hop = 1.3;                              // latency across leaves against within one
  std::vector<double> host;                      // slowness factor per host (1 = healthy)
  std::map<std::pair<int, int>, double> group;   // {g, h}, g < h: the link between two leaves
  std::map<std::pair<int, int>, double> link;    // {a, b}, a < b
  int flaky_round = -1;                          // one measurement in this round is 5x slow, once
  std::mt19937_64 rng;
  std::normal_distribution<double> noise{0.0, 0.05};

  Sim(int hosts, int leaf_size, std::uint64_t seed) : n(hosts), leaf(leaf_size), host(static_cast<std::size_t>(hosts), 1.0), rng(seed) {}
  int group_of(int e) const { return e / leaf; }

  std::vector<Endpoint> endpoints(bool labelled) const {
    std::vector<Endpoint> ep;
    for (int i = 0; i < n; ++i) ep.push_back({host_name(i), labelled ? leaf_name(group_of(i)) : "", 0});
    return ep;
  }

  PairResult measure(int a, int b, int round, double extra) {
    const int g = group_of(a), h = group_of(b);
    double slow = host[static_cast<std::size_t>(a)] * host[static_cast<std::size_t>(b)] * extra;
    if (auto it = link.find(std::minmax(a, b)); it != link.end()) slow *= it->second;
    if (g != h)
      if (auto it = group.find(std::minmax(g, h)); it != group.end()) slow *= it->second;
    PairResult r;
    r.src = a, r.dst = b, r.round = round;
    if (!std::isfinite(slow)) {  // a dead host: nothing completes
      r.completed = false;
      r.values = {NAN, NAN};
      return r;
    }
    r.values = {2e-6 * (g != h ? hop : 1.0) * slow * std::exp(noise(rng)), 25e9 / slow * std::exp(noise(rng))};
    return r;
  }
};

Options sim_options(std::uint64_t seed) {
  Options o;
  o.bases = {{"latency", true}, {"bw", false}};
  o.seed = seed;
  return o;
}

struct SimRun {
  Verdict verdict;
  int rounds = 0;
  std::string flaky_place;  // endpoint pair whose measurement was made slow
  std::vector<std::string> flaky_groups;
  bool well_formed = true;  // no endpoint twice in a round, pairs a < b
};

SimRun drive(Sim& sim, const Planner& planner) {
  std::vector<PairResult> results;
  SimRun run;
  for (int guard = 0; guard < 400; ++guard) {
    const Step s = planner.next(results);
    if (s.phase == Phase::done) break;
    std::vector<int> seen(static_cast<std::size_t>(sim.n), 0);
    std::size_t flaky = s.round == sim.flaky_round ? static_cast<std::size_t>(sim.rng() % s.pairs.size()) : s.pairs.size();
    for (std::size_t i = 0; i < s.pairs.size(); ++i) {
      const auto [a, b] = s.pairs[i];
      if (a >= b || seen[static_cast<std::size_t>(a)]++ || seen[static_cast<std::size_t>(b)]++) run.well_formed = false;
      results.push_back(sim.measure(a, b, s.round, i == flaky ? 5.0 : 1.0));
      results.push_back(sim.measure(b, a, s.round, 1.0));
      if (i == flaky) {
        run.flaky_place = host_name(a) + "~" + host_name(b);
        run.flaky_groups = {leaf_name(sim.group_of(a)), leaf_name(sim.group_of(b))};
      }
    }
    ++run.rounds;
  }
  run.verdict = planner.verdict(results);
  return run;
}

enum class Case { noise, flaky, two_bad_hosts, bad_group_link };
const char* name(Case c) {
  switch (c) {
    case Case::noise: return "noise only";
    case Case::flaky: return "a flaky pair";
    case Case::two_bad_hosts: return "two bad hosts in different leaves";
    case Case::bad_group_link: return "one bad inter-leaf link";
  }
  return "?";
}

std::string describe(const Verdict& v) {
  std::string s;
  for (const auto& f : v.findings)
    s += std::string("\n  ") + to_string(f.kind) + " " + f.place + " " + to_string(f.status) + ": " + f.why;
  return s;
}

// Runs `seeds` simulations of a case at n hosts; checks blame and round counts; prints the
// round figures (recorded in docs/fabric.md).
void run_case(Case c, int n, int leaf, int seeds, int max_rounds) {
  SCOPED_TRACE(std::string(name(c)) + " at " + std::to_string(n) + " hosts");
  int lo = 1 << 30, hi = 0;
  long total = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Sim sim(n, leaf, static_cast<std::uint64_t>(seed) * 7919 + static_cast<std::uint64_t>(n));
    const int groups = n / leaf;
    std::set<std::string> want_hosts, want_groups;
    if (c == Case::two_bad_hosts) {
      const int g1 = static_cast<int>(sim.rng() % static_cast<unsigned>(groups));
      const int g2 = (g1 + 1 + static_cast<int>(sim.rng() % static_cast<unsigned>(groups - 1))) % groups;
      for (int g : {g1, g2}) {
        const int h = g * leaf + static_cast<int>(sim.rng() % static_cast<unsigned>(leaf));
        sim.host[static_cast<std::size_t>(h)] = 4.0;
        want_hosts.insert(host_name(h));
      }
    }
    if (c == Case::bad_group_link) {
      const int g1 = static_cast<int>(sim.rng() % static_cast<unsigned>(groups));
      const int g2 = (g1 + 1 + static_cast<int>(sim.rng() % static_cast<unsigned>(groups - 1))) % groups;
      sim.group[std::minmax(g1, g2)] = 4.0;
      want_groups.insert(leaf_name(std::min(g1, g2)) + "~" + leaf_name(std::max(g1, g2)));
    }
    const Planner planner(sim.endpoints(true), sim_options(static_cast<std::uint64_t>(seed)));
    if (c == Case::flaky) sim.flaky_round = static_cast<int>(sim.rng() % 10);
    const SimRun run = drive(sim, planner);
    SCOPED_TRACE("seed " + std::to_string(seed) + describe(run.verdict));
    ASSERT_TRUE(run.well_formed);
    const auto hosts = run.verdict.places(Kind::endpoint, Status::blamed);
    const auto links = run.verdict.places(Kind::link, Status::blamed);
    const auto glinks = run.verdict.places(Kind::group_link, Status::blamed);
    EXPECT_EQ(std::set<std::string>(hosts.begin(), hosts.end()), want_hosts);
    EXPECT_TRUE(links.empty());
    EXPECT_EQ(std::set<std::string>(glinks.begin(), glinks.end()), want_groups);
    for (auto k : {Kind::endpoint, Kind::link, Kind::group_link})
      EXPECT_TRUE(run.verdict.places(k, Status::inconclusive).empty()) << "nothing left inconclusive";
    if (c == Case::flaky) {
      // The flaky pair was a suspect and its re-test cleared it (within a leaf: the link;
      // across leaves: the pair, and the link between the leaves with it or by another pair).
      const auto cleared = run.verdict.places(Kind::link, Status::cleared);
      EXPECT_NE(std::find(cleared.begin(), cleared.end(), run.flaky_place), cleared.end()) << run.flaky_place;
      for (const auto& f : run.verdict.findings)
        if (f.place == run.flaky_place) {
          bool retest = false;
          for (const auto& e : f.evidence) retest = retest || (e.follow_up && e.factor <= 1.5);
          EXPECT_TRUE(retest) << "the clearing re-test is in the evidence";
        }
    }
    EXPECT_LE(run.rounds, max_rounds);
    lo = std::min(lo, run.rounds), hi = std::max(hi, run.rounds);
    total += run.rounds;
    if (::testing::Test::HasFailure()) return;
  }
  std::printf("[ isolation ] %-34s %5d hosts, %3d seeds: %d-%d rounds (mean %.1f), all pairs %d\n", name(c), n, seeds, lo,
              hi, double(total) / seeds, n - 1);
}

}  // namespace

TEST(Isolation, SimulatedClusterOf64) {
  for (auto c : {Case::noise, Case::flaky, Case::two_bad_hosts, Case::bad_group_link}) run_case(c, 64, 16, 100, 21);
}

TEST(Isolation, SimulatedClusterOf512) {
  for (auto c : {Case::noise, Case::flaky, Case::two_bad_hosts, Case::bad_group_link}) run_case(c, 512, 32, 100, 24);
}

// 4096 hosts: 25 seeds per case, not 100, to keep the test within seconds (each run measures
// ~70,000 pair directions); GA_ISOLATION_SEEDS=100 runs all 100 (docs/fabric.md has the figures).
TEST(Isolation, SimulatedClusterOf4096) {
  const char* env = std::getenv("GA_ISOLATION_SEEDS");
  const int seeds = env && std::atoi(env) > 0 ? std::atoi(env) : 25;
  for (auto c : {Case::noise, Case::flaky, Case::two_bad_hosts, Case::bad_group_link}) run_case(c, 4096, 32, seeds, 28);
}

// Without a switch map: two rounds of name-order neighbours, and their latencies split at the
// leaf boundaries. Hosts of a leaf have consecutive names here, as racks usually do.
TEST(Isolation, InfersLeafGroupsFromNeighbourLatencies) {
  for (int seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Sim sim(512, 32, static_cast<std::uint64_t>(seed));
    const Planner planner(sim.endpoints(false), sim_options(static_cast<std::uint64_t>(seed)));
    EXPECT_EQ(planner.infer_rounds(), 2);
    const SimRun run = drive(sim, planner);
    ASSERT_TRUE(run.well_formed);
    for (auto k : {Kind::endpoint, Kind::link, Kind::group_link}) {
      EXPECT_TRUE(run.verdict.places(k, Status::blamed).empty()) << describe(run.verdict);
      EXPECT_TRUE(run.verdict.places(k, Status::inconclusive).empty()) << describe(run.verdict);
    }
    EXPECT_LE(run.rounds, 2 + 8 + 4 + 3);
  }
  // The groups themselves, from the two infer rounds alone.
  Sim sim(512, 32, 5);
  const Planner planner(sim.endpoints(false), sim_options(5));
  std::vector<PairResult> res;
  for (int k = 0; k < 2; ++k) {
    const Step s = planner.next(res);
    ASSERT_EQ(s.phase, Phase::infer);
    for (auto [a, b] : s.pairs) res.push_back(sim.measure(a, b, k, 1)), res.push_back(sim.measure(b, a, k, 1));
  }
  const Grouping g = planner.groups(res);
  for (int i = 0; i < 512; ++i) {
    EXPECT_TRUE(g.inferred[static_cast<std::size_t>(i)]);
    EXPECT_EQ(g.group[static_cast<std::size_t>(i)], "auto:" + host_name(i / 32 * 32)) << host_name(i);
  }
  EXPECT_EQ(planner.next(res).phase, Phase::cover);
}

TEST(Isolation, InferenceKeepsASlowHostInsideItsLeafAndBlamesIt) {
  for (int seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Sim sim(256, 32, static_cast<std::uint64_t>(seed));
    const int bad = 40 + seed;  // inside leaf 2, never at its edge
    sim.host[static_cast<std::size_t>(bad)] = 4;
    const Planner planner(sim.endpoints(false), sim_options(static_cast<std::uint64_t>(seed)));
    const SimRun run = drive(sim, planner);
    EXPECT_EQ(run.verdict.places(Kind::endpoint, Status::blamed), std::vector<std::string>{host_name(bad)}) << describe(run.verdict);
    EXPECT_TRUE(run.verdict.places(Kind::group_link, Status::blamed).empty());
    EXPECT_TRUE(run.verdict.places(Kind::link, Status::blamed).empty());
  }
}

TEST(Isolation, AFlatFabricIsOneGroup) {
  Sim sim(128, 32, 3);
  sim.hop = 1.0;
  const Planner planner(sim.endpoints(false), sim_options(3));
  const SimRun run = drive(sim, planner);
  EXPECT_TRUE(run.verdict.findings.empty()) << describe(run.verdict);
  std::vector<PairResult> res;
  for (int k = 0; k < 2; ++k)
    for (auto [a, b] : planner.next(res).pairs) res.push_back(sim.measure(a, b, k, 1)), res.push_back(sim.measure(b, a, k, 1));
  const auto g = planner.groups(res).group;
  EXPECT_EQ(std::set<std::string>(g.begin(), g.end()).size(), 1u);
}

// The cover phase at 4096 hosts in 128 leaves: every two leaves meet in at least
// group_pair_samples pairs, every host meets 8 others in its leaf and 8 in other leaves.
TEST(Isolation, CoverSamplesEveryPairOfGroups) {
  Sim sim(4096, 32, 1);
  const Planner planner(sim.endpoints(true), sim_options(1));
  std::vector<PairResult> res;
  std::map<std::pair<int, int>, int> group_pairs;
  std::vector<std::set<int>> within(4096), across(4096);
  for (;;) {
    const Step s = planner.next(res);
    if (s.phase != Phase::cover) break;
    for (auto [a, b] : s.pairs) {
      const int g = a / 32, h = b / 32;
      if (g == h) within[static_cast<std::size_t>(a)].insert(b), within[static_cast<std::size_t>(b)].insert(a);
      else ++group_pairs[std::minmax(g, h)], across[static_cast<std::size_t>(a)].insert(b), across[static_cast<std::size_t>(b)].insert(a);
      res.push_back(sim.measure(a, b, s.round, 1));
      res.push_back(sim.measure(b, a, s.round, 1));
    }
  }
  EXPECT_EQ(group_pairs.size(), 128u * 127 / 2);
  int fewest = 1 << 30;
  for (const auto& [gh, count] : group_pairs) fewest = std::min(fewest, count);
  EXPECT_GE(fewest, 2);
  // A partner across leaves may come twice (a group met again in a later round draws its
  // member at random), so "at least 6 distinct of 8".
  for (int e = 0; e < 4096; ++e) {
    EXPECT_EQ(within[static_cast<std::size_t>(e)].size(), 8u);
    EXPECT_GE(across[static_cast<std::size_t>(e)].size(), 6u);
  }
  EXPECT_EQ(planner.max_rounds(res), 8 + 8 + planner.options().max_followup_rounds);
}

TEST(Isolation, SameSeedSameRoundsOtherSeedOtherPartners) {
  Sim a(512, 32, 1), b(512, 32, 1);
  const Planner p1(a.endpoints(true), sim_options(7)), p2(a.endpoints(true), sim_options(7)), p3(a.endpoints(true), sim_options(8));
  std::vector<PairResult> none;
  EXPECT_EQ(p1.next(none).pairs, p2.next(none).pairs);
  EXPECT_NE(p1.next(none).pairs, p3.next(none).pairs);
  const SimRun r1 = drive(a, p1), r2 = drive(b, p2);
  EXPECT_EQ(r1.rounds, r2.rounds);
}

// Rail by rail: rail k of a host meets rail k of other hosts only; a bad rail is blamed alone.
TEST(Isolation, RailByRail) {
  std::vector<Endpoint> ep;
  for (int h = 0; h < 64; ++h)
    for (int r = 0; r < 2; ++r) ep.push_back({host_name(h) + "/rail:" + std::to_string(r), leaf_name(h / 16), r});
  const Planner planner(ep, sim_options(2));
  std::mt19937_64 rng(2);
  std::normal_distribution<double> noise(0, 0.05);
  const int bad = 2 * 37 + 1;  // n0038/rail:1
  std::vector<PairResult> res;
  for (;;) {
    const Step s = planner.next(res);
    if (s.phase == Phase::done) break;
    for (auto [a, b] : s.pairs) {
      ASSERT_EQ(ep[static_cast<std::size_t>(a)].rail, ep[static_cast<std::size_t>(b)].rail);
      for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        const double slow = (x == bad || y == bad) ? 5 : 1;
        const double hop = x / 32 != y / 32 ? 1.3 : 1.0;
        res.push_back({x, y, s.round, true, {2e-6 * hop * slow * std::exp(noise(rng)), 25e9 / slow * std::exp(noise(rng))}});
      }
    }
  }
  const Verdict v = planner.verdict(res);
  EXPECT_EQ(v.places(Kind::endpoint, Status::blamed), std::vector<std::string>{"n0038/rail:1"}) << describe(v);
  EXPECT_EQ(v.findings.size(), 1u) << describe(v);
}

// A host that completes nothing is blamed ("did not complete" is infinitely slow); more
// suspects than the re-test budget leaves the rest inconclusive, never blamed.
TEST(Isolation, DeadHostAndTheRetestBudget) {
  Sim sim(512, 32, 4);
  sim.host[100] = INFINITY;
  const Planner planner(sim.endpoints(true), sim_options(4));
  const SimRun run = drive(sim, planner);
  EXPECT_EQ(run.verdict.places(Kind::endpoint, Status::blamed), std::vector<std::string>{host_name(100)}) << describe(run.verdict);
  EXPECT_TRUE(run.verdict.places(Kind::link, Status::blamed).empty());

  Sim many(512, 32, 5);
  for (int i = 0; i < 20; ++i) many.host[static_cast<std::size_t>(i * 25)] = 3 + 0.1 * i;
  Options o = sim_options(5);
  o.max_suspects = 16;
  const Planner p2(many.endpoints(true), o);
  const SimRun r2 = drive(many, p2);
  EXPECT_EQ(r2.verdict.places(Kind::endpoint, Status::blamed).size(), 16u) << describe(r2.verdict);
  EXPECT_EQ(r2.verdict.places(Kind::endpoint, Status::inconclusive).size(), 4u);
  for (const auto& f : r2.verdict.findings)
    if (f.status == Status::inconclusive) EXPECT_NE(f.why.find("over the re-test budget"), std::string::npos) << f.why;
}

// A bad pair inside a leaf (both hosts fine with everyone else): the link is blamed after its
// re-test, and its ends are not.
TEST(Isolation, BadPairInsideALeaf) {
  Sim sim(64, 16, 6);
  const Planner planner(sim.endpoints(true), sim_options(6));
  // Find a pair the cover phase measures within a leaf, then make it slow.
  const Step first = planner.next({});
  const auto [a, b] = first.pairs.front();
  ASSERT_EQ(a / 16, b / 16);
  sim.link[{a, b}] = 5;
  const SimRun run = drive(sim, planner);
  EXPECT_EQ(run.verdict.places(Kind::link, Status::blamed), std::vector<std::string>{host_name(a) + "~" + host_name(b)})
      << describe(run.verdict);
  EXPECT_TRUE(run.verdict.places(Kind::endpoint, Status::blamed).empty());
}

TEST(Isolation, RejectsBadInput) {
  EXPECT_THROW(Planner({{"a", "", 0}, {"a", "", 0}}), std::invalid_argument);
  EXPECT_THROW(Planner({{"", "", 0}}), std::invalid_argument);
  Options o;
  o.ratio = 1;
  EXPECT_THROW(Planner({{"a", "", 0}}, o), std::invalid_argument);
  const Planner p({{"a", "x", 0}, {"b", "x", 0}});
  EXPECT_THROW(p.verdict({{0, 5, 0, true, {1e-6}}}), std::invalid_argument);
  // Nothing to pair: done at once.
  EXPECT_EQ(Planner({{"a", "", 0}}).next({}).phase, Phase::done);
}

// ---- leaf groups from files ----

TEST(TopologyConf, ExpandsHostlists) {
  EXPECT_EQ(expand_hostlist("node[001-003,7],gpu1"),
            (std::vector<std::string>{"node001", "node002", "node003", "node7", "gpu1"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[8-9]"), (std::vector<std::string>{"r1n8", "r1n9", "r2n8", "r2n9"}));
  EXPECT_EQ(expand_hostlist("a[09-11]-ib"), (std::vector<std::string>{"a09-ib", "a10-ib", "a11-ib"}));
  EXPECT_EQ(expand_hostlist("solo"), std::vector<std::string>{"solo"});
  EXPECT_THROW(expand_hostlist("n[3-1]"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("n[1-2"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("n1-2]"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("n[a-b]"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("n[1-100]", 50), std::invalid_argument);
  // Found by fuzz_switch_map: 165 bytes of bracket groups multiplied to a million long names
  // (323 MB). Past 65536 names, or 16 MiB of them, a list is refused.
  EXPECT_EQ(expand_hostlist("n[1-65536]").size(), kHostlistMaxNames);
  EXPECT_THROW(expand_hostlist("n[1-65537]"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist(std::string(300, 'x') + "[1-256]y[1-256]"), std::invalid_argument);
}

// ... and a map of many such lists is refused at kSwitchMapMaxNames names in all, naming its line.
TEST(TopologyConf, AMapNamingMoreThanItsBudgetIsRefusedNamingTheLine) {
  std::string text;
  for (int i = 0; i < 17; ++i) text += "n" + std::to_string(i) + "x[1-65536] leaf" + std::to_string(i) + "\n";
  try {
    parse_switch_map(text, "map");
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("map:17:"), std::string::npos) << e.what();
  }
}

TEST(TopologyConf, ReadsSlurmTopologyConf) {
  const std::string conf =
      "# topology/tree\n"
      "SwitchName=leaf1 Nodes=node[01-04] LinkSpeed=400\n"
      "switchname=leaf2 nodes=node[05-07],\\\n"
      "node08\n"
      "SwitchName=leaf3 Nodes=gpu[1-2]\n"
      "SwitchName=spine1 Switches=leaf[1-2]\n"
      "SwitchName=core Switches=spine1,leaf3\n";
  const SwitchMap m = parse_switch_file(conf, "topology.conf");
  EXPECT_EQ(m.format, "topology.conf");
  EXPECT_EQ(m.leaf_of.size(), 10u);
  EXPECT_EQ(m.leaf_of.at("node04"), "leaf1");
  EXPECT_EQ(m.leaf_of.at("node08"), "leaf2");
  EXPECT_EQ(m.leaf_of.at("gpu2"), "leaf3");
  EXPECT_EQ(m.uplinks("leaf1"), (std::vector<std::string>{"spine1", "core"}));
  EXPECT_EQ(m.common_switch("leaf1", "leaf2"), "spine1");
  EXPECT_EQ(m.common_switch("leaf1", "leaf3"), "core");
  try {
    parse_topology_conf("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n2\n", "t.conf");
    FAIL() << "a host on two leaves";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t.conf:2: host n2 is on leaf a and on leaf b"), std::string::npos) << e.what();
  }
  try {
    parse_topology_conf("SwitchName=a Nodes=n[2-1]\n", "t.conf");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t.conf:1: hostlist"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_topology_conf("Nodes=n1\n", "t"), std::invalid_argument);
  EXPECT_THROW(parse_topology_conf("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "t"), std::invalid_argument);
}

TEST(TopologyConf, ReadsASwitchMap) {
  const SwitchMap m = parse_switch_file("# host leaf [uplinks]\nga-h[1-4] leafA spine\nga-h5 leafB spine  # the odd one\n\n", "map");
  EXPECT_EQ(m.format, "switch-map");
  EXPECT_EQ(m.leaf_of.at("ga-h3"), "leafA");
  EXPECT_EQ(m.leaf_of.at("ga-h5"), "leafB");
  EXPECT_EQ(m.common_switch("leafA", "leafB"), "spine");
  try {
    parse_switch_map("ga-h1 leafA\nga-h2\n", "map");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("map:2: expected HOSTS LEAF"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_switch_file("/nonexistent/switch.map"), std::invalid_argument);
}
