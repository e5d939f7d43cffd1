// ga::Place: the one parser and formatter of place strings, and the wrappers over it.
#include <gtest/gtest.h>

#include "topology/model.hpp"
#include "topology/place.hpp"

using ga::Place;
using ga::place::Kind;
namespace place = ga::place;

namespace {

std::string round_trip(const std::string& s) { return ga::to_string(Place::parse(s)); }

TEST(Place, EveryShapeTheCodeWritesRoundTrips) {
  for (const std::string s : {
           "n1", "n1/numa:0", "n1/numa:3", "n1/gpu:0", "n1/gpu:15", "n1/nic:mlx5_0", "n1/nic:mlx5_0:2",
           "n1/nic:eth0", "n1/rail:0", "n1/rail:7", "n1/rank:3", "cluster", "n1~n2", "n1/gpu:0~n1/gpu:1",
           "n1/gpu:0~n2/gpu:1", "n1/nic:mlx5_0~n2/nic:mlx5_1:2", "n1/rail:1~n2/rail:1", "n1/rank:0~n1/rank:1",
           "node-01.example.org", "node-01.example.org/gpu:3", "a-b.c-d/numa:1~x.y-z/numa:0", "gpu-node-7/nic:ib0",
       })
    EXPECT_EQ(round_trip(s), s);
}

TEST(Place, BuildersWriteWhatTheyAlwaysWrote) {
  EXPECT_EQ(place::host("n1"), "n1");
  EXPECT_EQ(place::numa("n1", 2), "n1/numa:2");
  EXPECT_EQ(place::gpu("n1", 10), "n1/gpu:10");
  EXPECT_EQ(place::nic("n1", "mlx5_0:2"), "n1/nic:mlx5_0:2");
  EXPECT_EQ(place::rail("n1", 3), "n1/rail:3");
  EXPECT_EQ(place::pair("n1/gpu:0", "n2/gpu:1"), "n1/gpu:0~n2/gpu:1");
  EXPECT_EQ(std::string(place::cluster()), "cluster");
  EXPECT_EQ(place::numa("n1", -1), "n1/numa:-1");
  EXPECT_EQ(round_trip("n1/numa:-1"), "n1/numa:-1");
  EXPECT_EQ(Place::parse("n1/numa:-1").kind, Kind::numa);
}

TEST(Place, Fields) {
  auto n = Place::parse("n1/numa:2");
  EXPECT_EQ(n.kind, Kind::numa);
  EXPECT_EQ(n.host, "n1");
  EXPECT_EQ(n.index, 2);
  EXPECT_FALSE(n.logical);
  auto g = Place::parse("node-1.lab/gpu:7");
  EXPECT_EQ(g.kind, Kind::gpu);
  EXPECT_EQ(g.host, "node-1.lab");
  EXPECT_EQ(g.index, 7);
  auto c = Place::parse("n1/nic:mlx5_0:2");
  EXPECT_EQ(c.kind, Kind::nic);
  EXPECT_EQ(c.name, "mlx5_0:2");
  auto r = Place::parse("n1/rail:4");
  EXPECT_EQ(r.kind, Kind::rail);
  EXPECT_EQ(r.index, 4);
  auto p = Place::parse("n1/gpu:0~n2/gpu:1");
  ASSERT_EQ(p.kind, Kind::pair);
  ASSERT_EQ(p.ends.size(), 2u);
  EXPECT_EQ(p.first(), Place::make_gpu("n1", 0));
  EXPECT_EQ(p.second(), Place::make_gpu("n2", 1));
  EXPECT_EQ(p, Place::make_pair(Place::make_gpu("n1", 0), Place::make_gpu("n2", 1)));
  EXPECT_EQ(ga::to_string(Place::make_pair(Place::make_rail("a", 1), Place::make_host("b"))), "a/rail:1~b");
}

TEST(Place, Kinds) {
  EXPECT_EQ(place::kind("n1"), Kind::host);
  EXPECT_EQ(place::kind("n1/numa:0"), Kind::numa);
  EXPECT_EQ(place::kind("n1/gpu:3"), Kind::gpu);
  EXPECT_EQ(place::kind("n1/nic:mlx5_0"), Kind::nic);
  EXPECT_EQ(place::kind("n1/rail:2"), Kind::rail);
  EXPECT_EQ(place::kind("n1~n2"), Kind::pair);
  EXPECT_EQ(place::kind("n1/gpu:0~n1/gpu:1"), Kind::pair);
  EXPECT_EQ(place::kind("cluster"), Kind::cluster);
  EXPECT_EQ(place::kind("n1/rank:0"), Kind::other);
  EXPECT_EQ(place::kind(""), Kind::other);
  EXPECT_STREQ(place::to_string(Kind::rail), "rail");
  // Criteria scopes: the six they always were; rail is no scope (it was `other` before).
  for (Kind k : {Kind::host, Kind::numa, Kind::gpu, Kind::nic, Kind::pair, Kind::cluster})
    EXPECT_EQ(place::kind_from_string(place::to_string(k)), k);
  EXPECT_FALSE(place::kind_from_string("rail"));
  EXPECT_FALSE(place::kind_from_string("other"));
}

TEST(Place, HostOfEachShape) {
  EXPECT_EQ(place::host_of("n1"), "n1");
  EXPECT_EQ(place::host_of("n1/numa:1"), "n1");
  EXPECT_EQ(place::host_of("n1/gpu:3"), "n1");
  EXPECT_EQ(place::host_of("n1/nic:mlx5_0:2"), "n1");
  EXPECT_EQ(place::host_of("n1/rail:0"), "n1");
  EXPECT_EQ(place::host_of("n1/rank:2"), "n1");
  EXPECT_EQ(place::host_of("cluster"), "");
  EXPECT_EQ(place::host_of("node-1.lab/gpu:0"), "node-1.lab");
  // Pairs within a host belong to it; across hosts to none.
  EXPECT_EQ(place::host_of("n1/gpu:0~n1/gpu:1"), "n1");
  EXPECT_EQ(place::host_of("n1/rank:0~n1/rank:1"), "n1");
  EXPECT_EQ(place::host_of("n1~n1/nic:mlx5_0"), "n1");
  EXPECT_EQ(place::host_of("n1/gpu:0~n2/gpu:0"), "");
  EXPECT_EQ(place::host_of("n1~n2"), "");
  EXPECT_EQ(place::host_of("n1~cluster"), "");
}

TEST(Place, SplitPair) {
  auto within = place::split_pair("n1/gpu:0~n1/gpu:1");
  ASSERT_TRUE(within);
  EXPECT_EQ(within->first, "n1/gpu:0");
  EXPECT_EQ(within->second, "n1/gpu:1");
  auto across = place::split_pair("a.b-c/nic:mlx5_0:2~d-e.f/nic:mlx5_1");
  ASSERT_TRUE(across);
  EXPECT_EQ(across->first, "a.b-c/nic:mlx5_0:2");
  EXPECT_EQ(across->second, "d-e.f/nic:mlx5_1");
  EXPECT_FALSE(place::split_pair("n1/gpu:0"));
  EXPECT_FALSE(place::split_pair("cluster"));
  // At the first '~', as always: the second end of a~b~c is the pair b~c.
  auto three = place::split_pair("a~b~c");
  ASSERT_TRUE(three);
  EXPECT_EQ(three->first, "a");
  EXPECT_EQ(three->second, "b~c");
  EXPECT_EQ(place::kind(three->second), Kind::pair);
}

TEST(Place, Subplace) {
  auto sub = [](const std::string& s) { return place::subplace(Place::parse(s)); };
  EXPECT_EQ(sub("n1"), "");
  EXPECT_EQ(sub("n1/gpu:3"), "gpu:3");
  EXPECT_EQ(sub("n1/numa:1"), "numa:1");
  EXPECT_EQ(sub("n1/nic:mlx5_0:2"), "nic:mlx5_0:2");
  EXPECT_EQ(sub("n1/rail:2"), "rail:2");
  EXPECT_EQ(sub("n1/rank:0"), "rank:0");
  EXPECT_EQ(sub("cluster"), "cluster");
  EXPECT_EQ(sub("n1/gpu:0~n2/gpu:1"), "gpu:0~gpu:1");
  EXPECT_EQ(sub("n1~n2"), "~");
  EXPECT_EQ(place::on_host("n1", ""), "n1");
  EXPECT_EQ(place::on_host("n1", "gpu:3"), "n1/gpu:3");
}

TEST(Place, LogicalNumaIndexFromTheHostTopology) {
  ga::topo::HostTopology h;
  h.hostname = "n1";
  h.numa_nodes = {{2, "8-15", std::nullopt}, {0, "0-7", std::nullopt}};  // any order: sorted by OS index
  auto n0 = ga::with_logical(Place::parse("n1/numa:0"), h);
  auto n2 = ga::with_logical(Place::parse("n1/numa:2"), h);
  EXPECT_EQ(n0.index, 0);
  EXPECT_EQ(n0.logical, 0);
  EXPECT_EQ(n2.index, 2);
  EXPECT_EQ(n2.logical, 1);
  // What is written stays the OS index.
  EXPECT_EQ(ga::to_string(n2), "n1/numa:2");
  // An OS index the host does not have, another host, a place that is no NUMA node: none.
  EXPECT_FALSE(ga::with_logical(Place::parse("n1/numa:1"), h).logical);
  EXPECT_FALSE(ga::with_logical(Place::parse("n2/numa:0"), h).logical);
  EXPECT_EQ(ga::with_logical(Place::parse("n1/gpu:0"), h), Place::parse("n1/gpu:0"));
  // A pair's NUMA ends get theirs.
  auto p = ga::with_logical(Place::parse("n1/numa:2~n1/numa:0"), h);
  EXPECT_EQ(p.first().logical, 1);
  EXPECT_EQ(p.second().logical, 0);
  EXPECT_EQ(ga::to_string(p), "n1/numa:2~n1/numa:0");
  // Across hosts, each end from its own host's topology.
  ga::topo::ClusterTopology c;
  c.hosts = {h, h};
  c.hosts[1].hostname = "n2";
  c.hosts[1].numa_nodes = {{4, "", std::nullopt}};
  auto q = ga::with_logical(Place::parse("n1/numa:2~n2/numa:4"), c);
  EXPECT_EQ(q.first().logical, 1);
  EXPECT_EQ(q.second().logical, 0);
  EXPECT_FALSE(ga::with_logical(Place::parse("n3/numa:0"), c).logical);
}

TEST(Place, OddInputsParseAndRoundTrip) {
  const std::vector<std::string> odd = {"", "a~", "~b", "~", "~~", "/gpu:1", "h/gpu:x", "h/gpu:", "h/gpu:01", "h/gpu:-0",
                              "h/gpu:+1", "h/gpu: 1", "h/gpu:99999999999", "h/numa:1/x", "h/", "/", "h//gpu:1",
                              "h/nic:", "h/rail:k", "h/unknown:3", "h/gpu:1~", "cluster/gpu:1", "clusterx", " n1 ",
                              "n1/gpu:1\n", std::string("a\0b/gpu:1", 9)};
  for (const std::string& s : odd) {
    Place p;
    EXPECT_NO_THROW(p = Place::parse(s)) << s;
    EXPECT_EQ(ga::to_string(p), s);
    EXPECT_NO_THROW((void)place::host_of(s));
    EXPECT_NO_THROW((void)place::subplace(p));
  }
  EXPECT_EQ(Place::parse("").kind, Kind::other);
  EXPECT_EQ(place::host_of(""), "");
  EXPECT_EQ(Place::parse("a~").kind, Kind::pair);
  EXPECT_EQ(Place::parse("a~").second().kind, Kind::other);
  EXPECT_EQ(place::host_of("a~"), "");  // a and nothing: no one host
  // An empty host is kept (the kind is what follows the slash).
  auto g = Place::parse("/gpu:1");
  EXPECT_EQ(g.kind, Kind::gpu);
  EXPECT_EQ(g.host, "");
  EXPECT_EQ(g.index, 1);
  // A GPU index that is not a number as written: kind other, its text kept, host still known.
  for (const std::string s : {"h/gpu:x", "h/gpu:01", "h/gpu:99999999999", "h/rail:k"}) {
    auto o = Place::parse(s);
    EXPECT_EQ(o.kind, Kind::other) << s;
    EXPECT_EQ(o.text, s);
    EXPECT_EQ(place::host_of(s), "h");
  }
  EXPECT_EQ(place::subplace(Place::parse("h/gpu:x")), "gpu:x");
  EXPECT_EQ(Place::parse("h/nic:").kind, Kind::nic);  // as kind() always said
  // Deep nesting ends in kind other instead of recursing without bound.
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "h/gpu:" + std::to_string(i) + "~";
  EXPECT_EQ(round_trip(deep), deep);
  EXPECT_EQ(place::kind(deep), Kind::pair);
}

}  // namespace
