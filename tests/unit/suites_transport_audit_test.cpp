// The transport audit's verdicts (issue 34 item 2), as the judge gives them from the samples
// the nccl probe writes: a fallback at some hosts fails those hosts; at every host judged it is
// the run's environment (a tool error); chosen by the run's own NCCL settings, a tool error
// naming them; a network the probe could not tell, inconclusive saying why.
#include <gtest/gtest.h>

#include "suites_fixture.hpp"

namespace ga {
namespace {

using testing::criteria;
using testing::JournalBuilder;
using testing::verdict_at;

MetricCatalogue catalogue() {
  MetricCatalogue c;
  c.add("nccl", MetricDecl{"nccl.socket_fallback", "count", Better::lower, "sockets where RDMA is up"}
                    .when_not_the_node(MetricDecl::NotTheNode::tool_error));
  c.add("p2p", MetricDecl{"p2p.mpi_tcp_with_rdma", "count", Better::lower, "MPI over TCP where RDMA is up"}
                   .when_not_the_node(MetricDecl::NotTheNode::warning));
  return c;
}

const char* kRule = R"(  - {name: nccl.transport.rdma, metric: nccl.socket_fallback, compare: "<=", value: 0, scope: gpu, required: false}
)";

Judgement judged(JournalBuilder& b) {
  b.probe("nccl");
  const auto cat = catalogue();
  return judge(b.build(), criteria(kRule), &cat);
}

TEST(TransportAudit, SocketsAtSomeHostsFailThoseHostsAlone) {
  JournalBuilder b({"h1", "h2", "h3"}, 1);
  b.sample("nccl.socket_fallback", "h1/gpu:0", 1, "count", {{"reason", "NET/Socket on h1"}});
  b.sample("nccl.socket_fallback", "h2/gpu:0", 0, "count");
  b.sample("nccl.socket_fallback", "h3/gpu:0", 0, "count");
  const auto j = judged(b);
  ASSERT_TRUE(verdict_at(j, "nccl.transport.rdma", "h1/gpu:0"));
  EXPECT_EQ(verdict_at(j, "nccl.transport.rdma", "h1/gpu:0")->status, VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "nccl.transport.rdma", "h2/gpu:0")->status, VerdictStatus::pass);
  EXPECT_EQ(verdict_at(j, "nccl.transport.rdma", "h3/gpu:0")->status, VerdictStatus::pass);
}

TEST(TransportAudit, SocketsAtEveryHostAreTheEnvironmentNotANodeFault) {
  JournalBuilder b({"h1", "h2"}, 1);
  b.sample("nccl.socket_fallback", "h1/gpu:0", 1, "count");
  b.sample("nccl.socket_fallback", "h2/gpu:0", 1, "count");
  const auto j = judged(b);
  for (const char* at : {"h1/gpu:0", "h2/gpu:0"}) {
    const Verdict* v = verdict_at(j, "nccl.transport.rdma", at);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->status, VerdictStatus::tool_error) << v->reason;
    EXPECT_NE(v->reason.find("every host it was judged on (2)"), std::string::npos) << v->reason;
  }
  // One host judged: it is that host's, whatever the others did not say.
  JournalBuilder one({"h1", "h2"}, 1);
  one.sample("nccl.socket_fallback", "h1/gpu:0", 1, "count");
  EXPECT_EQ(verdict_at(judged(one), "nccl.transport.rdma", "h1/gpu:0")->status, VerdictStatus::fail);
}

TEST(TransportAudit, SocketsTheRunAskedForAreAToolErrorNamingTheSetting) {
  JournalBuilder b({"h1", "h2", "h3"}, 1);
  b.sample("nccl.socket_fallback", "h1/gpu:0", 1, "count", {{"configured_by", "NCCL_IB_DISABLE=1"}});
  b.sample("nccl.socket_fallback", "h2/gpu:0", 0, "count");
  b.sample("nccl.socket_fallback", "h3/gpu:0", 0, "count");
  const Verdict* v = verdict_at(judged(b), "nccl.transport.rdma", "h1/gpu:0");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::tool_error);
  EXPECT_NE(v->reason.find("NCCL_IB_DISABLE=1"), std::string::npos) << v->reason;
}

TEST(TransportAudit, ANetworkThatCouldNotBeToldIsInconclusive) {
  JournalBuilder b({"h1", "h2"}, 1);
  b.sample("nccl.socket_fallback", "h2/gpu:0", 0, "count");
  auto j = b.build();
  Sample s;
  s.probe = "nccl";
  s.metric = "nccl.socket_fallback";
  s.place = "h1/gpu:0";
  s.text = "undetermined";
  s.unit = "text";
  s.params = nlohmann::json{{"undetermined", "NCCL's log names no network for this communicator"}};
  j.samples.push_back(std::move(s));
  ProbeRecord p;
  p.name = "nccl";
  p.ended = true;
  for (const auto& r : j.ranks) p.outcomes.push_back({r.rank, r.host, ProbeStatus::ok, ""});
  j.probes.push_back(p);
  const auto cat = catalogue();
  const auto g = judge(j, criteria(kRule), &cat);
  const Verdict* v = verdict_at(g, "nccl.transport.rdma", "h1/gpu:0");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::inconclusive);
  EXPECT_NE(v->reason.find("names no network"), std::string::npos) << v->reason;
  EXPECT_EQ(verdict_at(g, "nccl.transport.rdma", "h2/gpu:0")->status, VerdictStatus::pass);
}

// MPI over TCP where RDMA ports are up fails those hosts; launched that way on purpose (the
// run's own MCA settings) or on every host, a warning naming it, never a failure.
TEST(TransportAudit, MpiOverTcpTheRunAskedForIsAWarning) {
  const char* rule = R"(  - {name: p2p.mpi.rdma, metric: p2p.mpi_tcp_with_rdma, compare: "<=", value: 0, scope: host, required: false}
)";
  const auto cat = catalogue();
  JournalBuilder b({"h1", "h2", "h3"});
  b.probe("p2p");
  b.sample("p2p.mpi_tcp_with_rdma", "h1", 1, "count");
  b.sample("p2p.mpi_tcp_with_rdma", "h2", 1, "count", {{"configured_by", "OMPI_MCA_btl=self,vader,tcp"}});
  b.sample("p2p.mpi_tcp_with_rdma", "h3", 0, "count");
  const auto j = judge(b.build(), criteria(rule), &cat);
  EXPECT_EQ(verdict_at(j, "p2p.mpi.rdma", "h1")->status, VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "p2p.mpi.rdma", "h1")->severity, Severity::error);
  const Verdict* chosen = verdict_at(j, "p2p.mpi.rdma", "h2");
  EXPECT_EQ(chosen->severity, Severity::warning) << chosen->reason;
  EXPECT_NE(chosen->reason.find("OMPI_MCA_btl=self,vader,tcp"), std::string::npos) << chosen->reason;
  JournalBuilder all({"h1", "h2"});
  all.probe("p2p");
  all.sample("p2p.mpi_tcp_with_rdma", "h1", 1, "count");
  all.sample("p2p.mpi_tcp_with_rdma", "h2", 1, "count");
  const auto g = judge(all.build(), criteria(rule), &cat);
  for (const char* h : {"h1", "h2"}) EXPECT_EQ(verdict_at(g, "p2p.mpi.rdma", h)->severity, Severity::warning);
}

}  // namespace
}  // namespace ga
