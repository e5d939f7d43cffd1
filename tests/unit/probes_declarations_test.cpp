// What every built-in probe declares (probes/declare.hpp): its metrics, each with the unit its
// samples carry, and its parameters, each default valid against its own declaration. Then the
// probes that run cheaply in this process are run, and every sample they emit must be declared
// with the same unit. (p2p and mpi-coll need an MPI job, resume a worker binary: their samples
// are covered by the sweep's line_samples here and by the integration tests.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "base/units.hpp"
#include "probes/harness/sweep.hpp"
#include "probes/p2p/p2p_params.hpp"
#include "probes/probe.hpp"
#include "probes/rdma/rdma_probe.hpp"
#include "probes_gpu_fixture.hpp"
#include "scratch_dir.hpp"

namespace {

using namespace ga;
namespace fs = std::filesystem;

// Every unit spelling samples use. A new one is fine, but must be added here on purpose.
const std::set<std::string> kUnits = {unit::bytes, unit::seconds, unit::bytes_per_second, unit::count, unit::text,
                                      unit::boolean, unit::flops, unit::percent, "x", "ppm", "Gb/s", "op/s",
                                      "degC", "W", "MHz", "errors/bit", "errors/s"};
// Metrics whose samples carry no unit at all (a plain ratio).
const std::set<std::string> kUnitless = {"p2p.unreachable_fraction", "nccl.unreachable_fraction", "net.tcp.retrans_rate",
                                           "p2p.host_tail_p", "p2p.link_tail_p"};  // probabilities

std::vector<const Probe*> builtin(ProbeRegistry& reg) {
  register_builtin_probes(reg);
  return reg.all();
}

const MetricDecl* declaration(const ProbeInfo& info, const std::string& id) {
  for (const auto& d : info.metrics)
    if (declares(d, id)) return &d;
  return nullptr;
}

const ParamDecl* param(const ProbeInfo& info, const std::string& name) {
  for (const auto& p : info.params)
    if (p.name == name) return &p;
  return nullptr;
}

ProbeInfo info_of(const std::string& name) {
  ProbeRegistry reg;
  register_builtin_probes(reg);
  const Probe* p = reg.find(name);
  EXPECT_NE(p, nullptr) << name;
  return p ? p->info() : ProbeInfo{};
}

TEST(ProbeDeclarations, EveryProbeDeclaresMetricsWithUnitDirectionAndSummary) {
  ProbeRegistry reg;
  const auto probes = builtin(reg);
  ASSERT_EQ(probes.size(), 15u);
  for (const Probe* p : probes) {
    const ProbeInfo i = p->info();
    SCOPED_TRACE(i.name);
    EXPECT_FALSE(i.metrics.empty());
    std::set<std::string> ids;
    for (const auto& m : i.metrics) {
      EXPECT_TRUE(ids.insert(m.id).second) << "declared twice: " << m.id;
      // The judge takes a metric's probe from its prefix.
      EXPECT_EQ(m.id.rfind(i.name + ".", 0), 0u) << m.id;
      const auto star = m.id.find('*');
      EXPECT_TRUE(star == std::string::npos || star == m.id.size() - 1) << "'*' only at the end: " << m.id;
      if (kUnitless.count(m.id)) EXPECT_EQ(m.unit, "") << m.id;
      else EXPECT_TRUE(kUnits.count(m.unit)) << m.id << ": unit \"" << m.unit << "\" is not one samples use";
      EXPECT_FALSE(m.summary.empty()) << m.id;
      EXPECT_EQ(m.summary.find('\n'), std::string::npos) << m.id << ": one line";
      if (m.unit == unit::text) EXPECT_EQ(m.better, Better::none) << m.id << ": text has no direction";
      // What a criterion's scope and where are checked against (issue 32): stated for every one.
      EXPECT_FALSE(m.places.empty()) << m.id << ": no place kinds declared (.at({...}))";
      EXPECT_TRUE(m.param_keys.has_value()) << m.id << ": no param keys declared (.carries({...}))";
    }
  }
}

TEST(ProbeDeclarations, EveryParamIsUniqueAndItsDefaultFitsItsOwnDeclaration) {
  ProbeRegistry reg;
  for (const Probe* p : builtin(reg)) {
    const ProbeInfo i = p->info();
    SCOPED_TRACE(i.name);
    std::set<std::string> names;
    for (const auto& d : i.params) {
      EXPECT_FALSE(d.name.empty());
      EXPECT_TRUE(names.insert(d.name).second) << "declared twice: " << d.name;
      EXPECT_FALSE(d.summary.empty()) << d.name;
      if (d.min && d.max) EXPECT_LE(*d.min, *d.max) << d.name;
      if (!d.choices.empty()) EXPECT_EQ(d.type, ParamType::string) << d.name << ": choices are for strings";
      if (d.min || d.max)
        EXPECT_TRUE(d.type == ParamType::integer || d.type == ParamType::number) << d.name << ": a range is for numbers";
      // null: the probe derives the default (from the deadline, the job, the environment).
      if (!d.default_value.is_null())
        EXPECT_EQ(check_param(d, d.default_value), "") << d.name << " = " << d.default_value.dump();
    }
  }
}

TEST(ProbeDeclarations, ProbesWithoutParametersDeclareNone) {
  EXPECT_TRUE(info_of("inventory").params.empty());
  EXPECT_TRUE(info_of("topology").params.empty());
}

// --- the probes' own lists of keys, held to the declarations -----------------------------

// The keys sweep_config_from_params reads, from its source: the sweep leaves the others to
// the probe, so nothing else can tell which keys it takes.
std::set<std::string> sweep_keys_in_source() {
  std::ifstream in(std::string(GA_TEST_DATA_DIR) + "/../../probes/harness/sweep.cpp");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  const auto from = src.find("SweepConfig sweep_config_from_params(");
  const auto to = src.find("\n}\n", from);
  EXPECT_NE(from, std::string::npos) << "sweep.cpp: sweep_config_from_params not found";
  const std::string body = src.substr(from, to - from);
  std::set<std::string> keys;
  static const std::regex re(R"re(p\.contains\("([a-z_]+)"\))re");
  for (std::sregex_iterator it(body.begin(), body.end(), re), end; it != end; ++it) keys.insert((*it)[1]);
  return keys;
}

TEST(ProbeDeclarations, BothSweepProbesDeclareEverySweepKeyAlike) {
  const auto keys = sweep_keys_in_source();
  ASSERT_GE(keys.size(), 10u) << "sweep.cpp no longer reads its keys through p.contains(\"...\")";
  const ProbeInfo coll = info_of("mpi-coll"), nccl = info_of("nccl");
  for (const auto& k : keys) {
    const ParamDecl* a = param(coll, k);
    const ParamDecl* b = param(nccl, k);
    ASSERT_TRUE(a) << "mpi-coll does not declare sweep key " << k;
    ASSERT_TRUE(b) << "nccl does not declare sweep key " << k;
    EXPECT_EQ(a->type, b->type) << k;
    EXPECT_EQ(a->min, b->min) << k;
    EXPECT_EQ(a->max, b->max) << k;
    EXPECT_EQ(a->choices, b->choices) << k;
    // Each default is one the sweep accepts.
    for (const ParamDecl* d : {a, b})
      if (!d->default_value.is_null())
        EXPECT_NO_THROW(sweep::sweep_config_from_params({{k, d->default_value}}, {})) << k << " = " << d->default_value.dump();
  }
  // Beside the sweep's keys, mpi-coll takes only time_share and corrupt; nccl those and its own.
  for (const auto& d : coll.params)
    if (!keys.count(d.name)) EXPECT_TRUE(d.name == "time_share" || d.name == "corrupt") << d.name;
  for (const char* own : {"time_share", "corrupt", "scopes", "min_ranks", "memory_fraction", "min_cuda_driver",
                          "cuda_library", "nccl_library", "nvml_library", "cublas_library", "abort_margin_s",
                          "ranks_per_unique_id"})
    EXPECT_TRUE(param(nccl, own)) << own;
  EXPECT_EQ(nccl.params.size(), keys.size() + 20);
  EXPECT_EQ(coll.params.size(), keys.size() + 2);
  // The sweep's own defaults are the declared ones where the probe does not change them.
  const sweep::SweepConfig d;
  EXPECT_EQ(param(coll, "warmup_iters")->default_value, d.warmup_iters);
  EXPECT_EQ(param(coll, "max_iters")->default_value, d.max_iters);
  EXPECT_EQ(param(coll, "min_bytes")->default_value, d.sizes.min_bytes);
  EXPECT_EQ(param(coll, "collectives")->default_value.size(), sweep::all_collectives().size());
}

TEST(ProbeDeclarations, TheSweepProbesRefuseExactlyTheUndeclaredKeys) {
  // nccl and mpi-coll check their keys against the declaration before anything else.
  for (const std::string name : {"nccl", "mpi-coll"}) {
    nlohmann::json p = {{"no_such_key", 1}};
    auto r = gpu_fixture::run_probe(name, p, "/nonexistent-root");
    // A parameter nobody declared is a mistake of the suite, not of the host: a tool error.
    EXPECT_EQ(r.outcome.status, ProbeStatus::error) << name;
    EXPECT_NE(r.outcome.reason.find(name + ".no_such_key: unknown parameter"), std::string::npos) << r.outcome.reason;
  }
  // A declared key is never refused as unknown (its value may still be refused).
  for (const std::string name : {"nccl", "mpi-coll"})
    for (const auto& d : info_of(name).params) {
      if (d.default_value.is_null()) continue;
      auto r = gpu_fixture::run_probe(name, {{d.name, d.default_value}}, "/nonexistent-root");
      EXPECT_EQ(r.outcome.reason.find("unknown parameter"), std::string::npos) << name << " " << d.name << ": " << r.outcome.reason;
    }
}

TEST(ProbeDeclarations, P2pParserKnowsExactlyTheDeclaredKeysWithTheDeclaredDefaults) {
  const ProbeInfo info = info_of("p2p");
  ASSERT_EQ(info.params.size(), p2p::p2p_param_decls().size());
  const p2p::P2pParams base = p2p::parse_p2p_params(nlohmann::json::object());
  for (const auto& d : info.params) {
    SCOPED_TRACE(d.name);
    // Each declared default gives what no key gives.
    if (!d.default_value.is_null()) {
      const auto r = p2p::parse_p2p_params({{d.name, d.default_value}});
      EXPECT_EQ(r.max_size(), base.max_size());
      EXPECT_EQ(r.measurements().size(), base.measurements().size());
      EXPECT_EQ(r.schedule.unit, base.schedule.unit);
      EXPECT_EQ(r.schedule.max_rails, base.schedule.max_rails);
      EXPECT_EQ(r.schedule.intra_host, base.schedule.intra_host);
      EXPECT_EQ(r.limits.target_s, base.limits.target_s);
      EXPECT_EQ(r.limits.limit_s, base.limits.limit_s);
      EXPECT_EQ(r.limits.warmup, base.limits.warmup);
      EXPECT_EQ(r.limits.max_iters, base.limits.max_iters);
      EXPECT_EQ(r.budget_fraction, base.budget_fraction);
      EXPECT_EQ(r.retest, base.retest);
      EXPECT_EQ(r.retest_options.ratio, base.retest_options.ratio);
      EXPECT_EQ(r.retest_options.partners, base.retest_options.partners);
      EXPECT_EQ(r.retest_options.max_suspects, base.retest_options.max_suspects);
    }
    // And the parser really reads the key: a value of the wrong kind is refused, naming it.
    const nlohmann::json wrong = d.type == ParamType::string ? nlohmann::json(5) : nlohmann::json("not-this");
    try {
      p2p::parse_p2p_params({{d.name, wrong}});
      ADD_FAILURE() << "no error for " << d.name << " = " << wrong.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(d.name), std::string::npos) << e.what();
    }
  }
  try {
    p2p::parse_p2p_params({{"no_such_key", 1}});
    ADD_FAILURE() << "no error for an unknown key";
  } catch (const std::invalid_argument& e) {
    for (const auto& d : info.params) EXPECT_NE(std::string(e.what()).find(d.name), std::string::npos) << d.name;
  }
}

// --- samples against declarations ----------------------------------------------------------

// Every sample declared, with the declared unit; returns the declarations seen.
std::set<std::string> expect_declared(const std::string& probe, const std::vector<Sample>& samples) {
  const ProbeInfo info = info_of(probe);
  std::set<std::string> seen;
  for (const auto& s : samples) {
    const MetricDecl* d = declaration(info, s.metric);
    if (!d) {
      ADD_FAILURE() << probe << " emits " << s.metric << ", which it does not declare";
      continue;
    }
    seen.insert(d->id);
    EXPECT_EQ(s.unit, d->unit) << s.metric << " at " << s.place;
    EXPECT_EQ(s.text.has_value(), d->unit == unit::text) << s.metric << ": text samples and only they are in \"text\"";
    // Where it is emitted and what it carries, as declared: a criterion's scope and where are
    // checked against these before a run (issue 32), so they must be what the samples are.
    EXPECT_FALSE(d->places.empty()) << d->id << ": declares no place kinds (.at({...}))";
    EXPECT_TRUE(d->param_keys.has_value()) << d->id << ": declares no param keys (.carries({...}))";
    const auto kind = Place::parse(s.place).kind;
    EXPECT_TRUE(d->emitted_at(kind)) << s.metric << " emitted at " << s.place << " (" << place::to_string(kind)
                                     << "), declared at " << places_text(*d);
    for (const auto& [key, v] : s.params.items())
      EXPECT_TRUE(d->may_carry(key)) << s.metric << " at " << s.place << " carries param " << key << ", not declared";
  }
  return seen;
}

struct Collect : SampleSink {
  std::vector<Sample> s;
  void emit(Sample x) override { s.push_back(std::move(x)); }
};

struct OneProcess {
  std::unique_ptr<Comm> comm = make_self_comm();
  topo::ClusterTopology cluster;
  std::unique_ptr<ProbeContext> ctx;
  explicit OneProcess(topo::HostTopology host, nlohmann::json params, double seconds = 30) {
    host.hostname = "h1";
    cluster.hosts.push_back(std::move(host));
    ctx = std::make_unique<ProbeContext>(ProbeContext{*comm, cluster, cluster.hosts[0], "h1"});
    ctx->rank_hosts = {"h1"};
    ctx->params = std::move(params);
    ctx->deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(seconds));
  }
  Outcome run(Probe& p, Collect& out) { return p.run(*ctx, out); }
  Outcome run(const std::string& name, Collect& out) {
    ProbeRegistry reg;
    register_builtin_probes(reg);
    return reg.find(name)->run(*ctx, out);
  }
};

TEST(ProbeSamplesAreDeclared, Inventory) {
  topo::HostTopology h;
  h.cores = 4;
  OneProcess one(h, nlohmann::json::object());
  Collect out;
  ASSERT_EQ(one.run("inventory", out).status, ProbeStatus::ok);
  const auto seen = expect_declared("inventory", out.s);
  // Everything but the memory size (absent where /proc/meminfo is) and the chassis (absent
  // without /sys/class/dmi, as in containers and VMs like this one) is always emitted.
  const std::set<std::string> optional = {"inventory.memory_bytes", "inventory.system_serial", "inventory.system_product"};
  for (const auto& d : info_of("inventory").metrics)
    if (!optional.count(d.id)) EXPECT_TRUE(seen.count(d.id)) << d.id << " declared, never emitted";
}

// A host with every optional fact set, so every feature is emitted.
topo::HostTopology full_host() {
  topo::HostTopology h;
  h.source = "live";
  h.packages = 2;
  h.cores = 64;
  h.pus = 128;
  h.numa_nodes = {{0, "0-31", 1ull << 36}, {1, "32-63", 1ull << 36}};
  topo::Gpu g;
  g.index = 0;
  g.vendor = "nvidia";
  g.model = "NVIDIA H100 80GB HBM3";
  g.numa_node = 0;
  g.nearest_nics = {"mlx5_0"};
  g.nic_path = topo::PathClass::PIX;
  h.gpus = {g};
  g.index = 1;
  g.numa_node = 1;
  h.gpus.push_back(g);
  topo::Nic n;
  n.name = "mlx5_0";
  n.kind = "infiniband";
  n.numa_node = 0;
  n.rate_gbps = 400;
  h.nics = {n};
  h.gpu_links = {{0, 1, "nvlink", 18, std::nullopt}};
  h.gpu_link_islands = {{0, 1}};
  h.gpu_link_all_to_all = true;
  return h;
}

TEST(ProbeSamplesAreDeclared, TopologyEveryFeatureAndNothingElse) {
  OneProcess one(full_host(), nlohmann::json::object());
  Collect out;
  ASSERT_EQ(one.run("topology", out).status, ProbeStatus::ok);
  const auto seen = expect_declared("topology", out.s);
  // Fixed names, one declaration per feature: each declared feature shows up on a full host.
  for (const auto& d : info_of("topology").metrics) EXPECT_TRUE(seen.count(d.id)) << d.id << " declared, never emitted";
  for (const auto& d : info_of("topology").metrics) EXPECT_EQ(d.id.find('*'), std::string::npos) << d.id;
}

TEST(ProbeSamplesAreDeclared, Hostmem) {
  OneProcess one({}, {{"array_mib", 1}, {"iterations", 1}});
  Collect out;
  ASSERT_EQ(one.run("hostmem", out).status, ProbeStatus::ok);
  ASSERT_FALSE(out.s.empty());
  EXPECT_TRUE(expect_declared("hostmem", out.s).count("hostmem.triad_bw"));
}

TEST(ProbeSamplesAreDeclared, Clock) {
  OneProcess one({}, {{"exchanges", 4}, {"keep", 1}, {"gap_s", 0}, {"command_timeout_s", 1.0}});
  Collect out;
  const Outcome o = one.run("clock", out);
  EXPECT_EQ(o.status, ProbeStatus::ok) << o.reason;
  const auto seen = expect_declared("clock", out.s);
  for (const char* m : {"clock.synchronized", "clock.daemon", "clock.timezone", "clock.offset", "clock.offset_abs",
                        "clock.offset_uncertainty", "clock.drift_ppm", "clock.max_skew"})
    EXPECT_TRUE(seen.count(m)) << m;
}

TEST(ProbeSamplesAreDeclared, Storage) {
  ScratchDir d;
  OneProcess one({}, {{"file_mib", 1}, {"metadata_files", 5}});
  one.ctx->run_dir = one.ctx->shared_dir = d.str();
  Collect out;
  const Outcome o = one.run("storage", out);
  EXPECT_EQ(o.status, ProbeStatus::ok) << o.reason;
  const auto seen = expect_declared("storage", out.s);
  for (const char* m : {"storage.write_bw", "storage.read_bw", "storage.visible", "storage.metadata_rate",
                        "storage.free_bytes", "storage.free_space_ratio"})
    EXPECT_TRUE(seen.count(m)) << m;
}

TEST(ProbeSamplesAreDeclared, RdmaInventoryAndErrorCounters) {
  ScratchDir d;
  const fs::path root = d.p / "tree";
  fs::copy(std::string(GA_TEST_DATA_DIR) + "/rdma/mixed-faults", root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  OneProcess one(topo::HostTopology{}, nlohmann::json::object());
  one.ctx->sysfs_root = root.string();
  auto probe = make_rdma_probe_with_hook(
      [&] { std::ofstream(root / "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error") << "12\n"; });
  Collect out;
  // The counters are read at the run's bounds, around every probe (Probe::read_run_bound).
  probe->read_run_bound(RunBound::start, *one.ctx, out);
  const Outcome o = one.run(*probe, out);
  probe->read_run_bound(RunBound::end, *one.ctx, out);
  EXPECT_EQ(o.status, ProbeStatus::ok) << o.reason;
  const auto seen = expect_declared("rdma", out.s);
  for (const char* m : {"rdma.port_active", "rdma.state", "rdma.rate_gbps", "rdma.link_layer", "rdma.is_vf",
                        "rdma.roce_v2_gid", "rdma.counter.*", "rdma.counters_read_at", "rdma.data_path"})
    EXPECT_TRUE(seen.count(m)) << m;
}

TEST(ProbeSamplesAreDeclared, GpuOnTheFakes) {
  const nlohmann::json p = {{"cuda_library", GA_FAKE_CUDA_OK}, {"nvml_library", GA_FAKE_NVML},
                            {"cublas_library", GA_FAKE_CUBLAS}, {"hbm_mib", 4}, {"h2d_mib", 4}, {"p2p_mib", 2},
                            {"gemm_n", 64}, {"iterations", 2}, {"warmup", 1}, {"kernel_log", "/dev/null"}};
  auto r = gpu_fixture::run_probe("gpu", p, gpu_fixture::kTree);
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  const auto seen = expect_declared("gpu", r.out.s);
  EXPECT_GE(seen.size(), 35u);
  EXPECT_TRUE(seen.count("gpu.xid_errors"));
}

TEST(ProbeSamplesAreDeclared, NcclOnTheFakes) {
  const nlohmann::json p = {{"cuda_library", GA_FAKE_CUDA_OK}, {"nccl_library", GA_FAKE_NCCL}, {"min_ranks", 1},
                            {"min_bytes", 8}, {"max_bytes", 4096}, {"warmup_iters", 1}, {"max_iters", 2}};
  auto r = gpu_fixture::run_probe("nccl", p, gpu_fixture::kTree);
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  const auto seen = expect_declared("nccl", r.out.s);
  for (const char* m : {"nccl.init_time", "nccl.init_time_slowest", "nccl.time", "nccl.algbw", "nccl.busbw",
                        "nccl.wrong", "nccl.avg_busbw", "nccl.version", "nccl.env"})
    EXPECT_TRUE(seen.count(m)) << m;
}

TEST(ProbeSamplesAreDeclared, SdcOnTheFakes) {
  // One rank, the two fake GPUs (its PTX interpreted): sdc.unlike_majority is rank 0's, here too.
  const nlohmann::json p = {{"cuda_library", GA_FAKE_CUDA_OK}, {"duration_s", 0}, {"mib", 1}};
  auto r = gpu_fixture::run_probe("sdc", p, gpu_fixture::kTree);
  ASSERT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  const auto seen = expect_declared("sdc", r.out.s);
  for (const char* m : {"sdc.mismatched_repetitions", "sdc.unlike_own_repetitions", "sdc.unlike_majority",
                        "sdc.repetitions", "sdc.repetition_time", "sdc.rate"})
    EXPECT_TRUE(seen.count(m)) << m;
}

TEST(ProbeSamplesAreDeclared, SweepLinesOfBothSweepProbes) {
  sweep::LineResult r;
  r.line.bytes = 1024;
  r.seconds = 1e-5;
  r.algbw = r.busbw = 1e8;
  r.checked = true;
  for (const std::string probe : {"mpi-coll", "nccl"}) {
    sweep::SweepConfig cfg;
    cfg.probe = probe;
    const auto seen = expect_declared(probe, sweep::line_samples(r, cfg, "float", 0));
    EXPECT_EQ(seen, (std::set<std::string>{probe + ".time", probe + ".algbw", probe + ".busbw", probe + ".wrong"}));
  }
}

}  // namespace
