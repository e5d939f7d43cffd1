// nccl: communicator set-up time and nccl-tests-style collective sweeps over NCCL, in three
// scopes, so that a slow host or rail is named and the whole is measured:
//   intra-host   each host's ranks (all its GPUs)          place HOST
//   inter-host   one GPU per host per rail (local index k)  place cluster, params {rail: k}
//   cluster      every rank with a GPU, as training runs    place cluster
// After them, when a rail across hosts falls short, an isolation pass (nccl_isolation.hpp)
// pairs the rail endpoints HOST/rail:K and re-tests suspects, so the judge can name the GPU/NIC
// or link instead of `cluster`. Each rank drives one GPU (the one gpu_assign gives its local rank). The sweep itself, its
// timing and its data check are the shared harness's (probes/harness/sweep.hpp); this file
// only sets NCCL up and says which ranks take part. The NCCL version and every NCCL_*
// variable of the environment are recorded with the results, and whether NVLS (NVLink SHARP)
// was likely in use, since it moves single-host all_reduce busbw above the NVLink spec.
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "probes/devices/memory_share.hpp"
#include "probes/harness/comm_split.hpp"
#include "probes/vendor/cuda_driver.hpp"
#include "probes/devices/gpu_assign.hpp"
#include "probes/devices/gpu_models.hpp"
#include "probes/devices/gpu_presence.hpp"
#include "probes/vendor/nccl_api.hpp"
#include "probes/nccl/nccl_backend.hpp"
#include "probes/nccl/nccl_isolation.hpp"
#include "probes/nccl/nccl_log.hpp"
#include "probes/devices/port_inventory.hpp"
#include "probes/harness/sweep.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"
#include "base/quantity.hpp"
#include "base/redact.hpp"
#include "base/units.hpp"

extern char** environ;

namespace ga {
namespace {

using namespace ga::gpu;

constexpr std::uint64_t kDefaultMaxBytes = 8ull << 30;  // nccl-tests' usual -e 8G
constexpr double kDefaultTimeShare = 0.8;

constexpr double kDefaultMemoryFraction = 0.25;
// An NCCL operation still running this long before the probe's deadline has its communicator
// aborted, so that the ranks waiting in it leave the probe and the watchdog (which fires at the
// deadline) finds only the stuck rank still inside.
constexpr double kDefaultAbortMargin = 3.0;
constexpr int kDefaultMinRanks = 2;
// A communicator of more ranks than this is bootstrapped from several unique ids, one per this
// many ranks (ncclCommInitRankScalable). 256 is NCCL's own NCCL_UID_STAGGER_THRESHOLD default
// (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html, NCCL 2.23+): the number of ranks
// connecting to one id's root above which NCCL staggers their connections (at
// NCCL_UID_STAGGER_RATE, 7000 a second) to spare the root, i.e. slows its bootstrap down.
constexpr int kDefaultRanksPerId = 256;
// The isolation pass (nccl_isolation.hpp): in auto mode it runs when a rail across hosts
// reached less than this share of its NIC rate (the inter-host criterion's 80%) or has no
// known rate; each pair's all_reduce is the sweep's largest line, at most this many bytes.
constexpr double kDefaultIsolateBelow = 80;
constexpr std::uint64_t kDefaultIsolateMaxBytes = 64ull << 20;

sweep::SweepConfig default_sweep() {
  sweep::SweepConfig d;
  d.probe = "nccl";
  d.sizes.max_bytes = kDefaultMaxBytes;
  return d;
}

std::vector<ParamDecl> param_decls() {
  auto p = sweep::sweep_param_decls(
      default_sweep(), "; unset, it is also capped by memory_fraction of the tightest GPU's free memory");
  const std::vector<ParamDecl> own = {
      {"time_share", ParamType::number, kDefaultTimeShare, 0, 1, {},
       "share of the probe's time left that the scopes may use, in (0, 1]"},
      {"corrupt", ParamType::mapping, nullptr, {}, {}, {},
       "test hook {collective, size, rank[, in_place]}: flip one output element of that line, which must then show "
       "nccl.wrong = 1"},
      {"scopes", ParamType::list, nlohmann::json::array({"intra-host", "inter-host", "cluster"}), {}, {}, {},
       "the scopes swept, a list of: intra-host (each host's GPUs), inter-host (one GPU per host per rail), cluster"},
      {"abort_margin_s", ParamType::number, kDefaultAbortMargin, 0.5, {}, {},
       "seconds before the probe's deadline at which an NCCL operation still running is aborted (ncclCommAbort); "
       "the ranks waiting in it then leave the probe and the watchdog names the rank that never entered"},
      {"min_ranks", ParamType::integer, kDefaultMinRanks, 1, {}, {}, "a scope with fewer ranks is not measured"},
      {"ranks_per_unique_id", ParamType::integer, kDefaultRanksPerId, 1, {}, {},
       "a communicator of more ranks is initialised with ncclCommInitRankScalable and one unique id per this many "
       "ranks (rounded up), each made by its own root rank and shared over MPI; default NCCL's "
       "NCCL_UID_STAGGER_THRESHOLD (256), above which one root staggers its ranks' connections. An NCCL without "
       "ncclCommInitRankScalable (before 2.23) gets one id and ncclCommInitRank (params init, unique_ids say which)"},
      {"memory_fraction", ParamType::number, kDefaultMemoryFraction, 0, 1, {},
       "share of memory the largest line's buffers may take, in (0, 1): of the GPU's free memory (send and "
       "receive buffers) and of the host's MemAvailable divided among its ranks (the host copy), on the tightest rank"},
      {"isolate", ParamType::string, "auto", {}, {}, {"auto", "always", "never"},
       "the isolation pass after the scopes (2-GPU all_reduce between rail endpoints HOST/rail:K, suspects re-tested "
       "against known-good partners, docs/gpu.md): auto runs it when an inter-host rail's all_reduce busbw is below "
       "isolate_below percent of its NIC rate or the rate is unknown"},
      {"isolate_below", ParamType::number, kDefaultIsolateBelow, 0, 100, {},
       "percent of the NIC rate under which a rail's inter-host all_reduce sends isolate: auto into the isolation pass"},
      {"isolate_bytes", ParamType::integer, nullptr, 8, {}, {},
       "bytes of each pair's all_reduce in the isolation pass; default the sweep's largest line, at most 64 MiB"},
      {"isolate_iters", ParamType::integer, 5, 1, 1000, {}, "timed iterations of each pair's all_reduce (after 1 warm-up)"},
      {"isolate_repeats", ParamType::integer, 3, 1, 100, {}, "timed runs of isolate_iters for each pair; the best busbw counts"},
      {"isolate_ratio", ParamType::number, 1.5, 1, {}, {},
       "a pair this much slower than the rail's reference makes its ends or the pair a suspect to re-test"},
      {"isolate_partners", ParamType::integer, 2, 1, 16, {}, "known-good partners each suspect endpoint is re-tested against"},
      {"isolate_round_s", ParamType::number, 20, 1, {}, {},
       "seconds a pair's all_reduce may run in one isolation round before its communicator is aborted (did not complete)"},
      {"min_cuda_driver", ParamType::integer, kMinCudaDriverVersion, 0, {}, {},
       "oldest CUDA driver API version accepted (12000 = 12.0)"},
      {"cuda_library", ParamType::string, nullptr, {}, {}, {},
       "path of libcuda; default $GPUACCEPT_CUDA_LIBRARY, then libcuda.so.1"},
      {"nccl_library", ParamType::string, nullptr, {}, {}, {},
       "path of libnccl; default $GPUACCEPT_NCCL_LIBRARY, then libnccl.so.2 (also in /usr/local/cuda)"},
      {"nvml_library", ParamType::string, nullptr, {}, {}, {},
       "path of libnvidia-ml (read and checked like the others; the nccl probe does not use NVML)"},
      {"cublas_library", ParamType::string, nullptr, {}, {}, {},
       "path of libcublas (read and checked like the others; the nccl probe does not use cuBLAS)"},
  };
  p.insert(p.end(), own.begin(), own.end());
  return p;
}

enum class Scope { intra_host, inter_host, cluster };
const char* scope_name(Scope s) {
  return s == Scope::intra_host ? "intra-host" : s == Scope::inter_host ? "inter-host" : "cluster";
}

// NCCL_* variables only, and none whose name looks secret (base/redact.hpp): values recorded,
// everything else of the environment left alone.
std::vector<std::string> nccl_environment() {
  auto v = base::allowed_environment(environ, {"NCCL_"});
  std::sort(v.begin(), v.end());
  return v;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// The transport audit: NCCL says which network, NICs and GPUDirect RDMA it used only in its
// debug output, so the probe has NCCL write INFO lines (subsystems INIT and NET) to a file per
// rank under the run's directory and reads each communicator's part of it after its sweep. NCCL
// reads these settings from the environment once, at its first call: they are set before the
// library is loaded, for this process, whatever the user's environment said (NCCL_DEBUG=WARN,
// a NCCL_DEBUG_FILE elsewhere): an audit the environment can switch off is no audit. The
// user's values are recorded in the samples (user_settings) and NCCL's lines for them are in
// the file instead.
struct DebugLog {
  std::string path;           // the file NCCL writes, "" when not audited
  std::string why_not;
  std::string user_settings;  // the user's NCCL_DEBUG* the probe replaced ("" none)
};

// The subsystems NCCL logs: the user's, with INIT and NET, which the audit reads.
std::string debug_subsystems(const char* user) {
  if (!user || !*user || user[0] == '^') return "INIT,NET";  // ^X: all but X, which may be ours
  std::string s = user;
  std::string upper;
  for (char c : s) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.find("ALL") != std::string::npos) return s;
  auto has = [&](const std::string& w) { return ("," + upper + ",").find("," + w + ",") != std::string::npos; };
  if (!has("INIT")) s += ",INIT";
  if (!has("NET")) s += ",NET";
  return s;
}

DebugLog setup_debug_log(const std::string& run_dir, int rank) {
  DebugLog d;
  for (const char* name : {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"})
    if (const char* v = std::getenv(name))
      d.user_settings += (d.user_settings.empty() ? "" : " ") + std::string(name) + "=" + v;
  if (run_dir.empty()) {
    d.why_not = "no run directory for NCCL's debug log";
    return d;
  }
  std::error_code ec;
  const std::string dir = run_dir + "/nccl-debug";
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    d.why_not = dir + ": " + ec.message();
    return d;
  }
  d.path = dir + "/rank" + std::to_string(rank) + ".log";
  setenv("NCCL_DEBUG_SUBSYS", debug_subsystems(std::getenv("NCCL_DEBUG_SUBSYS")).c_str(), 1);
  setenv("NCCL_DEBUG_FILE", d.path.c_str(), 1);
  setenv("NCCL_DEBUG", "INFO", 1);
  return d;
}

// The run's own NCCL settings that choose sockets over RDMA, as "NAME=VALUE" ("" none): a
// fallback they asked for is this run's configuration, not the node's fault.
std::string socket_chosen_by(const std::vector<std::string>& env) {
  std::string out;
  for (const auto& e : env) {
    const auto eq = e.find('=');
    const std::string name = e.substr(0, eq), value = eq == std::string::npos ? "" : e.substr(eq + 1);
    const bool chose = (name == "NCCL_IB_DISABLE" && value != "0" && !value.empty()) ||
                       (name == "NCCL_NET" && strcasecmp(value.c_str(), "IB") != 0 && !value.empty()) ||
                       (name == "NCCL_NET_PLUGIN" && strcasecmp(value.c_str(), "none") == 0);
    if (chose) out += (out.empty() ? "" : " ") + e;
  }
  return out;
}

std::uintmax_t file_size_or_0(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

// The part of `path` from byte `from` on, or nullopt when the file cannot be read.
std::optional<std::string> read_from(const std::string& path, std::uintmax_t from) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  // NCCL opens its debug file with "w" at its first log line, which may come after the offset
  // was taken (a stale file of a reused run directory): a file now shorter is read whole.
  if (file_size_or_0(path) < from) from = 0;
  f.seekg(static_cast<std::streamoff>(from));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct RankState {
  Outcome outcome = Outcome::ok();
  bool usable = false;                  // has a GPU and NCCL: takes part in the scopes
  std::unique_ptr<GpuAccess> access;
  std::unique_ptr<Nccl> nccl;
  const MatchedGpu* gpu = nullptr;
  std::size_t local_gpu_pos = 0;        // position among this host's assigned GPUs (the rail)
  std::size_t free_bytes = 0;
  MemoryShare memory;                   // what the sizes are chosen from
  std::uint64_t max_bytes = 0;          // the largest line chosen
  bool multicast = false;
  double nic_gbps = 0;                  // the rate of the GPU's nearest NIC (topology), 0 unknown
  DebugLog debug_log;                   // NCCL's INFO lines for the transport audit
  std::vector<std::string> user_env;    // the NCCL_* environment before the probe set its own
  std::vector<std::string> rdma_ports;  // this host's ACTIVE RDMA ports ("mlx5_0 (InfiniBand)")
  bool rdma_ports_known = false;
  std::string rdma_ports_error;         // why they were not read
};

class NcclProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "nccl";
    i.summary =
        "NCCL communicator set-up time and collective sweeps (nccl-tests style: time, algbw, busbw, data check "
        "per line) inside each host, across hosts per rail, and over the whole cluster";
    i.needs = {true, false, false};
    i.caveat = "not yet validated on a GPU host: the data path runs here only against a fake NCCL that moves the data "
               "over TCP between fake hosts";
    // Sweep lines (probes/harness/sweep.cpp line_samples) at HOST (intra-host) or cluster, with
    // params {scope, ranks, rail, nvls, algo, proto, collective, size, in_place ...}.
    using K = place::Kind;
    // The params keys, as run_scope builds them: sp, then setup (the communicator's making),
    // then the sweep's own (sweep.cpp line_samples) and those of each figure.
    auto keys = [](std::vector<std::string> a, const std::vector<std::string>& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    const std::vector<std::string> scope_keys = {"scope", "ranks", "rail"};
    const std::vector<std::string> setup_keys = keys(scope_keys, {"init", "unique_ids"});
    const std::vector<std::string> slowest_keys = keys(setup_keys, {"slowest_place", "slowest_rank"});
    const std::vector<std::string> sweep_keys = keys(scope_keys, {"nvls", "algo", "proto"});
    const std::vector<std::string> line_keys =
        keys(sweep_keys, {"collective", "size", "count", "dtype", "in_place", "root"});
    const std::vector<std::string> peak_keys = keys(sweep_keys, {"collective", "in_place", "size"});
    const std::vector<std::string> pair_keys = {"direction", "size", "pass", "rail", "path", "round"};
    // What the judge's culprit analysis gives its derived metrics (suites/fabric_analysis.cpp).
    const std::vector<std::string> derived_keys = {"basis", "size", "path", "direction", "rail"};
    i.metrics = {
        MetricDecl{"nccl.init_time", unit::seconds, Better::lower,
         "communicator init time of one GPU in one scope (place its GPU; params init: ncclCommInitRank or "
         "ncclCommInitRankScalable, unique_ids: how many)"}
            .at({K::gpu})
            .carries(keys(setup_keys, {"device_free", "host_available", "local_ranks", "memory_share", "max_bytes"})),
        MetricDecl{"nccl.init_time_slowest", unit::seconds, Better::lower,
         "the slowest GPU's init time in one scope (params: slowest_place, slowest_rank, init, unique_ids)"}
            .at({K::host, K::cluster}).carries(slowest_keys),
        MetricDecl{"nccl.unique_id_time", unit::seconds, Better::lower,
         "time of one GPU in one scope to have every unique id: made by their root ranks and shared over MPI, the phase "
         "before the init (place its GPU; params: unique_ids)"}
            .at({K::gpu}).carries(setup_keys),
        MetricDecl{"nccl.unique_id_time_slowest", unit::seconds, Better::lower,
         "the slowest GPU's nccl.unique_id_time in one scope (params: slowest_place, slowest_rank)"}
            .at({K::host, K::cluster}).carries(slowest_keys),
        MetricDecl{"nccl.init_slowest_host", unit::text, Better::none,
         "the host of the GPU whose communicator init was slowest in one scope (params: slowest_place, slowest_rank, "
         "seconds)"}
            .at({K::host, K::cluster}).carries(keys(slowest_keys, {"seconds"})),
        MetricDecl{"nccl.time", unit::seconds, Better::lower, "time of one operation of a sweep line, the slowest rank's"}
            .at({K::host, K::cluster}).carries(line_keys),
        MetricDecl{"nccl.algbw", unit::bytes_per_second, Better::higher, "algorithm bandwidth of a line: size over time"}
            .at({K::host, K::cluster}).carries(line_keys),
        MetricDecl{"nccl.busbw", unit::bytes_per_second, Better::higher,
         "bus bandwidth of a line: algbw times the collective's factor (nccl-tests' busbw)"}
            .at({K::host, K::cluster}).carries(line_keys),
        MetricDecl{"nccl.wrong", unit::count, Better::lower, "output elements of a line that differ from the expected, all ranks"}
            .at({K::host, K::cluster}).carries(line_keys),
        MetricDecl{"nccl.avg_busbw", unit::bytes_per_second, Better::higher,
         "mean busbw over every line of a scope (nccl-tests' \"Avg bus bandwidth\")"}
            .at({K::host, K::cluster}).carries(sweep_keys),
        MetricDecl{"nccl.busbw_theoretical", unit::bytes_per_second, Better::none,
         "the bus bandwidth a scope could reach: the GPU model's NVLink inside a host, the slowest rail NIC across hosts"}
            .at({K::host, K::cluster}).carries(keys(peak_keys, {"theory"})),
        MetricDecl{"nccl.busbw_of_theory", unit::percent, Better::higher,
         "busbw of the largest line of each collective and placement, in percent of nccl.busbw_theoretical"}
            .at({K::host, K::cluster}).carries(keys(peak_keys, {"theory"})),
        MetricDecl{"nccl.version", unit::text, Better::none, "the NCCL version loaded (params: library)"}
            .at({K::host}).carries({"library"}),
        MetricDecl{"nccl.env", unit::text, Better::none, "every NCCL_* variable of the environment, or \"none\" (params: vars)"}
            .at({K::host}).carries({"vars"}),
        MetricDecl{"nccl.transport", unit::text, Better::none,
         "the network one GPU's communicator used, from NCCL's debug log: IB (verbs, InfiniBand or RoCE), Socket, a "
         "plugin's name, or none (params: scope, nics, gdr_channels, net_channels, transports, nvls_channels, log)"}
            .at({K::gpu})
            .carries(keys(sweep_keys, {"log", "nics", "net_channels", "gdr_channels", "transports", "network_said",
                                       "nvls_channels", "collnet_channels", "user_settings"})),
        MetricDecl{"nccl.socket_fallback", unit::count, Better::lower,
         "1 when a communicator across hosts ran over TCP sockets although the GPU's host has ACTIVE RDMA ports, 0 "
         "when not; text \"undetermined\" (params.undetermined says why: no debug log, a log naming no network) "
         "where the ports are up and the network could not be told (params: rdma_ports, nics, reason, "
         "configured_by: the run's own NCCL_IB_DISABLE/NCCL_NET that chose sockets)"}
            .at({K::gpu})
            .carries(keys(sweep_keys, {"network", "nics", "rdma_ports", "reason", "undetermined", "configured_by", "user_settings"}))
            .when_not_the_node(MetricDecl::NotTheNode::tool_error),
        MetricDecl{"nccl.gdr", unit::count, Better::higher,
         "1 when a communicator over IB/RoCE used GPUDirect RDMA on some channel (via NET/IB/k/GDRDMA), 0 when none"}
            .at({K::gpu}).carries(keys(sweep_keys, {"nics", "gdr_disabled", "reason"})),
        MetricDecl{"nccl.nic_off_switch", unit::count, Better::lower,
         "NICs a GPU's communicator used that are not among the GPU's nearest NICs on the PCIe tree (topology)"}
            .at({K::gpu}).carries(keys(sweep_keys, {"nics", "nearest_nics", "reason"})),
        MetricDecl{"nccl.peak_busbw", unit::bytes_per_second, Better::higher,
         "busbw of the largest line of each collective and placement of a scope (place HOST inside a host, else "
         "cluster; params collective, in_place, size): what hosts are compared on"}
            .at({K::host, K::cluster}).carries(peak_keys),
        // The isolation pass (nccl_isolation.hpp).
        MetricDecl{"nccl.pair_busbw", unit::bytes_per_second, Better::higher,
         "busbw of one 2-GPU all_reduce between two rail endpoints (place A~B; params direction, size, pass: 1 cover, "
         "2 re-test, rail, round)"}
            .at({K::pair}).carries(pair_keys),
        MetricDecl{"nccl.pair_completed", unit::boolean, Better::higher,
         "one isolation pair's all_reduce completed with the right data within isolate_round_s (params: why)"}
            .at({K::pair}).carries(keys(pair_keys, {"why"})),
        MetricDecl{"nccl.rail_devices", unit::text, Better::none,
         "what a rail endpoint HOST/rail:K is: its GPU and the GPU's nearest NICs (params gpu, nics)"}
            .at({K::rail}).carries({"gpu", "nics"}),
        // Derived by the judge from the isolation pairs (suites/fabric_analysis.hpp).
        MetricDecl{"nccl.host_slowdown", "x", Better::lower,
         "a rail endpoint's best isolation pair against its rail's reference (1 = as good as the median endpoint)"}
            .at({K::rail}).carries(derived_keys),
        MetricDecl{"nccl.link_slowdown", "x", Better::lower,
         "an isolation pair's slowness left after its two ends' own slowness is accounted for"}
            .at({K::pair}).carries(derived_keys),
        MetricDecl{"nccl.busbw_median", unit::bytes_per_second, Better::higher,
         "a rail's reference: the median over its endpoints of their best isolation pair's busbw"}
            .at({K::cluster}).carries({"size", "path", "rail"}),
        MetricDecl{"nccl.unreachable_fraction", "", Better::lower,
         "share of a rail's endpoints that completed no isolation pair at all (0 to 1)"}
            .at({K::cluster}).carries({"size", "path", "rail", "basis"}),
    };
    i.params = param_decls();
    return i;
  }

  // Everything the probe reads from its params, parsed and checked; throws
  // std::invalid_argument naming the key. Shared by run() and check_config().
  struct Config {
    sweep::SweepConfig base;
    std::optional<sweep::Corruption> corrupt;
    std::vector<Scope> scopes{Scope::intra_host, Scope::inter_host, Scope::cluster};
    double share = kDefaultTimeShare, mem_fraction = kDefaultMemoryFraction;
    int min_ranks = kDefaultMinRanks;
    int ranks_per_id = kDefaultRanksPerId;
    double abort_margin = kDefaultAbortMargin;
    bool user_max = false;
    std::string isolate = "auto";
    double isolate_below = kDefaultIsolateBelow;
    IsolationConfig iso;
    std::optional<std::uint64_t> iso_bytes;
  };
  static Config parse_config(const nlohmann::json& params) {
    Config c;
    c.user_max = params.contains("max_bytes");
    c.base = sweep::sweep_config_from_params(params, default_sweep());
    if (params.contains("corrupt")) c.corrupt = sweep::corruption_from_json(params.at("corrupt"));
    c.share = params.value("time_share", kDefaultTimeShare);
    c.mem_fraction = params.value("memory_fraction", kDefaultMemoryFraction);
    c.min_ranks = params.value("min_ranks", kDefaultMinRanks);
    c.ranks_per_id = params.value("ranks_per_unique_id", kDefaultRanksPerId);
    if (c.ranks_per_id < 1) throw std::invalid_argument("ranks_per_unique_id must be >= 1");
    c.abort_margin = params.value("abort_margin_s", kDefaultAbortMargin);
    c.isolate = params.value("isolate", std::string("auto"));
    if (c.isolate != "auto" && c.isolate != "always" && c.isolate != "never")
      throw std::invalid_argument("isolate must be auto, always or never, not \"" + c.isolate + "\"");
    c.isolate_below = params.value("isolate_below", kDefaultIsolateBelow);
    if (params.contains("isolate_bytes")) c.iso_bytes = params.at("isolate_bytes").get<std::uint64_t>();
    c.iso.iters = params.value("isolate_iters", c.iso.iters);
    c.iso.repeats = params.value("isolate_repeats", c.iso.repeats);
    c.iso.ratio = params.value("isolate_ratio", c.iso.ratio);
    c.iso.partners = params.value("isolate_partners", c.iso.partners);
    c.iso.round_s = params.value("isolate_round_s", c.iso.round_s);
    if (!(c.share > 0 && c.share <= 1) || !(c.mem_fraction > 0 && c.mem_fraction < 1) || c.min_ranks < 1)
      throw std::invalid_argument("time_share and memory_fraction must be in (0, 1], min_ranks >= 1");
    if (params.contains("scopes")) {
      c.scopes.clear();
      for (const auto& sc : params.at("scopes")) {
        const std::string n = sc.get<std::string>();
        if (n == "intra-host") c.scopes.push_back(Scope::intra_host);
        else if (n == "inter-host") c.scopes.push_back(Scope::inter_host);
        else if (n == "cluster") c.scopes.push_back(Scope::cluster);
        else throw std::invalid_argument("scopes: unknown scope \"" + n + "\" (intra-host, inter-host, cluster)");
      }
    }
    return c;
  }

  std::optional<ParamProblem> check_config(const nlohmann::json& params) const override {
    return check_params_and_parse(info(), params, [](const nlohmann::json& p) { parse_config(p); }, "nccl: ");
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    // Checked before the run too; here for a probe run some other way. Alike on every rank: no one waits.
    if (const auto bad = check_params(info(), ctx.params)) return Outcome::tool_error(bad->message);
    // Checked before the run's first probe too (check_config); a bad value is the user's, never the node's.
    Config cfg;
    try {
      cfg = parse_config(ctx.params);
    } catch (const std::exception& e) {
      return Outcome::tool_error(std::string("nccl: ") + e.what());
    }
    sweep::SweepConfig base = cfg.base;
    const std::optional<sweep::Corruption> corrupt = cfg.corrupt;
    const std::vector<Scope> scopes = cfg.scopes;
    const double share = cfg.share, mem_fraction = cfg.mem_fraction;
    const int min_ranks = cfg.min_ranks;
    const double abort_margin = cfg.abort_margin;
    const bool user_max = cfg.user_max;
    const std::string isolate = cfg.isolate;
    const double isolate_below = cfg.isolate_below;
    IsolationConfig iso = cfg.iso;
    const std::optional<std::uint64_t> iso_bytes = cfg.iso_bytes;
    ranks_per_id_ = cfg.ranks_per_id;
    isolate_below_ = isolate_below;

    rail_short_ = rails_measured_ = false;
    std::vector<std::string> notes, problems;
    // Before NCCL is loaded: it reads its debug settings once. What the user set, first.
    std::vector<std::string> user_env = nccl_environment();
    DebugLog debug_log = setup_debug_log(ctx.run_dir, ctx.rank);
    // Every rank finds out what it has, then all make the same collective calls.
    RankState st = prepare_rank(ctx);
    st.debug_log = std::move(debug_log);
    st.user_env = std::move(user_env);
    if (!st.debug_log.why_not.empty() && ctx.rank == 0) notes.push_back("transport undetermined: " + st.debug_log.why_not);
    if (!st.debug_log.user_settings.empty() && ctx.rank == 0)
      notes.push_back("NCCL's debug output goes to nccl-debug/ for the transport audit; the environment's " +
                      st.debug_log.user_settings + " was replaced for this probe");
    try {
      for (const auto& p : rdma::read_ports(ctx.sysfs_root))
        if (p.active()) st.rdma_ports.push_back(p.place_name() + " (" + p.link_layer + ")");
      st.rdma_ports_known = true;
    } catch (const std::exception& e) {
      st.rdma_ports_error = e.what();
    }
    const auto numa = local_rank_numa(ctx.comm, ctx.rank_hosts, ctx.hostname);
    if (st.usable) pick_gpu(ctx, st, numa);
    std::optional<DeviceContext> dev;
    if (st.usable) {
      try {
        dev.emplace(*st.access->driver, st.gpu->cuda.ordinal);
        std::size_t total = 0;
        st.access->driver->mem_get_info(&st.free_bytes, &total);
        st.multicast = st.access->driver->attribute_or(st.gpu->cuda.ordinal, DevAttr::multicast_supported, 0) != 0;
      } catch (const std::exception& e) {
        st.usable = false;
        st.outcome = Outcome::failed(place::gpu(ctx.hostname, st.gpu->pci.index) + ": " + e.what());
      }
    }
    st.nic_gbps = nearest_nic_gbps(ctx, st);
    if (ctx.local_rank == 0 && st.outcome.status != ProbeStatus::skipped) record_stack(ctx, out, st);

    // Sizes: the largest line's send + receive buffers within the device share, its host copy
    // (fill and check) within the host share, on the tightest rank. A user's max_bytes above it
    // is lowered too: the OOM killer would otherwise end the run without a report.
    st.memory = {st.free_bytes, host_mem_available(), ctx.local_size, mem_fraction};
    const double mine_cap = st.usable ? std::min(double(st.memory.device_bytes()) / 2, double(st.memory.host_bytes())) : 1e30;
    const double cap = ctx.comm.allreduce_min(mine_cap);
    const std::uint64_t asked_max = base.sizes.max_bytes;
    if (!user_max || base.sizes.max_bytes > cap) {
      std::uint64_t m = base.sizes.min_bytes;
      while (double(m) * base.sizes.step_factor <= std::min(cap, double(base.sizes.max_bytes)))
        m = static_cast<std::uint64_t>(std::llround(double(m) * base.sizes.step_factor));
      base.sizes.max_bytes = std::max(base.sizes.min_bytes, m);
    }

    if (base.sizes.max_bytes < asked_max && ctx.rank == 0)
      notes.push_back("lines up to " + std::to_string(base.sizes.max_bytes) + " B (asked " + std::to_string(asked_max) +
                      "): memory_fraction " + std::to_string(mem_fraction) + " of the tightest rank's memory");
    st.max_bytes = base.sizes.max_bytes;
    if (st.outcome.status == ProbeStatus::failed) problems.push_back(st.outcome.reason);
    else if (!st.outcome.reason.empty()) notes.push_back(st.outcome.reason);
    const int hosts_with_gpu = static_cast<int>(ctx.comm.allreduce_sum(st.usable && st.local_gpu_pos == 0 ? 1 : 0));
    // The isolation pass takes one share of the time like a scope, when it may run.
    const bool may_isolate = isolate != "never" && hosts_with_gpu >= 2;
    const std::size_t slots = scopes.size() + (may_isolate ? 1 : 0);
    const auto abort_at = ctx.deadline - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(abort_margin));
    bool aborted = false;
    // The probe's own copy of the job's communicator for everything from here on. A rank whose
    // scope failed (a hang aborted, a peer gone) leaves the probe and waits in the harness's
    // collectives; on another communicator, the ranks still here then wait for it (and the
    // watchdog names who is where) instead of meeting it in a different collective, which MPI
    // fails (MPI_ERR_TRUNCATE) and which would end rank 0 without a report.
    auto own = split_comm(ctx.comm, 0, ctx.rank);
    Comm& pc = own ? *own : ctx.comm;
    for (std::size_t si = 0; si < scopes.size(); ++si) {
      const Scope sc = scopes[si];
      if (sc == Scope::inter_host && hosts_with_gpu < 2) {
        notes.push_back("inter-host: fewer than 2 hosts with a GPU");
        continue;
      }
      if (sc == Scope::cluster && hosts_with_gpu < 2 && std::find(scopes.begin(), scopes.end(), Scope::intra_host) != scopes.end()) {
        notes.push_back("cluster: one host, the same ranks as intra-host");
        continue;
      }
      const double left = ctx.seconds_left() * share / double(slots - si);
      if (run_scope(ctx, pc, out, st, sc, base, corrupt, left, abort_at, min_ranks, notes, problems) == ScopeEnd::aborted) {
        aborted = true;
        // The ranks of this scope leave the probe now: a later scope's set-up is collective over
        // every rank, and the one that never entered would hold them there too.
        if (scopes.size() - si > 1) problems.push_back("the scopes after " + std::string(scope_name(sc)) + " not run");
        break;
      }
    }
    if (may_isolate && !aborted) {
      // Every rank takes the same branch: the rail verdicts are rank 0's of each rail, reduced.
      const bool short_rail = pc.allreduce_max(rail_short_ ? 1 : 0) > 0;
      const bool rails_measured = pc.allreduce_max(rails_measured_ ? 1 : 0) > 0;
      if (isolate == "always" || short_rail) {
        IsolationRank me;
        me.usable = st.usable;
        me.rail = static_cast<int>(st.local_gpu_pos);
        if (st.gpu) {
          me.gpu_place = place::gpu(ctx.hostname, st.gpu->pci.index);
          for (const auto& g : ctx.host.gpus)
            if (g.index == st.gpu->pci.index) me.nics = g.nearest_nics;
        }
        me.driver = st.usable ? st.access->driver.get() : nullptr;
        me.nccl = st.nccl.get();
        // The sweep's largest line fits every rank's memory share; a larger isolate_bytes is lowered to it.
        iso.bytes = std::min<std::uint64_t>(iso_bytes.value_or(std::min(st.max_bytes, kDefaultIsolateMaxBytes)), st.max_bytes);
        if (iso_bytes && *iso_bytes > iso.bytes && ctx.rank == 0)
          notes.push_back("isolate_bytes lowered to " + std::to_string(iso.bytes) + " B, the largest line memory allows");
        iso.stop_at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                             std::chrono::duration<double>(std::max(0.0, ctx.seconds_left() * share)));
        iso.abort_at = abort_at;
        const std::string note = run_isolation(ctx, pc, out, me, iso);
        if (ctx.rank == 0 && !note.empty()) notes.push_back(note);
      } else if (ctx.rank == 0) {
        notes.push_back(rails_measured ? "isolation not run: every inter-host rail reached " +
                                             base::format_number(isolate_below) + "% of its NIC rate (isolate: auto)"
                                       : std::string("isolation not run: no inter-host rail was measured (isolate: auto)"));
      }
    }
    // A library that did not load, and nothing else: whose fault is for the harness to settle.
    if (problems.size() == 1 && st.outcome.library) return Outcome::missing_library(problems.front());
    if (!problems.empty()) return Outcome::failed(join(problems));
    if (st.outcome.status == ProbeStatus::skipped) return st.outcome;
    return Outcome::ok(join(notes));
  }

 private:
  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
  }

  RankState prepare_rank(ProbeContext& ctx) {
    RankState st;
    LibraryPaths paths;
    AccessOptions opt;
    try {
      paths = library_paths(ctx.params);
      opt.min_driver_version = ctx.params.value("min_cuda_driver", kMinCudaDriverVersion);
    } catch (const std::exception& e) {
      st.outcome = Outcome::failed(e.what());
      return st;
    }
    opt.cuda_visible_devices_set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
    st.access = std::make_unique<GpuAccess>(open_gpus(nvidia_gpus_on_bus(ctx.host, ctx.sysfs_root), paths, opt));
    if (st.access->stop) {
      st.outcome = *st.access->stop;
      return st;
    }
    st.nccl = std::make_unique<Nccl>(paths.nccl);
    if (!st.nccl->loaded()) {
      st.outcome = Outcome::missing_library("NVIDIA GPUs present but NCCL cannot be loaded: " + st.nccl->error());
      return st;
    }
    if (!st.access->failure.empty()) st.outcome = Outcome::failed(st.access->failure);
    st.usable = true;
    return st;
  }

  static void pick_gpu(ProbeContext& ctx, RankState& st, const std::vector<std::optional<int>>& numa) {
    std::vector<PciGpu> pci;
    for (const auto& g : st.access->gpus) pci.push_back(g.pci);
    const auto a = assign_gpus(pci, numa);
    const auto me = static_cast<std::size_t>(ctx.local_rank);
    if (me >= a.size() || a[me].empty()) {
      st.usable = false;
      st.outcome = Outcome::ok("local rank " + std::to_string(ctx.local_rank) + " has no GPU of its own; it sits out");
      return;
    }
    st.gpu = &st.access->gpus[a[me].front()];
    // The rail: this rank's position among the host's ranks that have a GPU.
    st.local_gpu_pos = me;
    if (a[me].size() > 1)
      st.outcome = Outcome::ok("one process drives one GPU in NCCL; " + std::to_string(a[me].size() - 1) +
                               " more GPU(s) of this host need one rank each (mpirun -np <GPUs>)");
  }

  static double nearest_nic_gbps(const ProbeContext& ctx, const RankState& st) {
    if (!st.gpu) return 0;
    for (const auto& g : ctx.host.gpus) {
      if (g.index != st.gpu->pci.index) continue;
      double best = 0;
      for (const auto& name : g.nearest_nics)
        for (const auto& n : ctx.host.nics)
          if (n.name == name && n.rate_gbps) best = std::max(best, *n.rate_gbps);
      return best;
    }
    return 0;
  }

  static void record_stack(ProbeContext& ctx, SampleSink& out, const RankState& st) {
    const std::string host = place::host(ctx.hostname);
    if (st.nccl && st.nccl->loaded()) out.text(host, "nccl.version", st.nccl->version(), {{"library", st.nccl->path()}});
    const auto& env = st.user_env;  // as the user set it, not the probe's debug settings
    nlohmann::json vars = nlohmann::json::object();
    std::string all;
    for (const auto& e : env) {
      const auto eq = e.find('=');
      vars[e.substr(0, eq)] = e.substr(eq + 1);
      all += (all.empty() ? "" : " ") + e;
    }
    out.text(host, "nccl.env", all.empty() ? "none" : all, {{"vars", vars}});
  }

  // What this communicator's part of NCCL's log says it used, as samples at this rank's GPU.
  static void audit_transport(const ProbeContext& ctx, SampleSink& out, const RankState& st, Scope sc,
                              const nlohmann::json& sp, const std::string& gpu_place, std::uintmax_t from,
                              std::vector<std::string>& notes) {
    const bool crosses_hosts = sc == Scope::inter_host || (sc == Scope::cluster && ctx.host_count > 1);
    // Across hosts, where the host has ACTIVE RDMA ports, the audit always says something at
    // this GPU: the network, or why it cannot be told (an inconclusive verdict, never a note).
    const bool judged_here = crosses_hosts && (!st.rdma_ports_known || !st.rdma_ports.empty());
    auto undetermined = [&](const std::string& why) {
      notes.push_back(gpu_place + ": " + std::string(scope_name(sc)) + ": transport undetermined: " + why);
      if (!judged_here) return;
      nlohmann::json f = sp;
      f["rdma_ports"] = st.rdma_ports;
      f["undetermined"] = why;
      if (!st.debug_log.user_settings.empty()) f["user_settings"] = st.debug_log.user_settings;
      out.text(gpu_place, "nccl.socket_fallback", "undetermined", f);
    };
    if (st.debug_log.path.empty()) return undetermined(st.debug_log.why_not);
    const auto text = read_from(st.debug_log.path, from);
    if (!text) return undetermined("NCCL wrote no debug log to " + st.debug_log.path);
    const auto s = nccl_log::parse_text(*text);
    const std::string net = s.network();
    const auto nics = s.nics_used();
    nlohmann::json p = sp;
    p["log"] = st.debug_log.path;
    p["nics"] = nics;
    p["net_channels"] = s.net_channels;
    p["gdr_channels"] = s.gdr_channels;
    p["transports"] = std::vector<std::string>(s.channel_transports.begin(), s.channel_transports.end());
    if (!s.network_said.empty()) p["network_said"] = s.network_said;
    if (s.nvls_channels) p["nvls_channels"] = *s.nvls_channels;
    if (s.collnet_channels) p["collnet_channels"] = *s.collnet_channels;
    if (!st.debug_log.user_settings.empty()) p["user_settings"] = st.debug_log.user_settings;
    out.text(gpu_place, "nccl.transport", net.empty() ? "none" : net, p);

    if (!crosses_hosts) return;
    if (net.empty()) return undetermined("NCCL's log (" + st.debug_log.path + ") names no network for this communicator");
    auto list = [](const std::vector<std::string>& v) {  // at most 4 named, then how many more
      std::string r;
      for (std::size_t i = 0; i < v.size() && i < 4; ++i) r += (r.empty() ? "" : ", ") + v[i];
      if (v.size() > 4) r += " and " + std::to_string(v.size() - 4) + " more";
      return r;
    };
    // Sockets where the ports could not be read: a fallback or all the host has, not known.
    if (!st.rdma_ports_known && net == "Socket")
      return undetermined("NCCL used sockets, and whether " + place::host(ctx.hostname) +
                          " has RDMA ports up is not known (" + st.rdma_ports_error + ")");
    {
      nlohmann::json f = sp;
      f["network"] = net;
      f["nics"] = nics;
      f["rdma_ports"] = st.rdma_ports;
      const bool fallback = net == "Socket" && !st.rdma_ports.empty();
      if (fallback) {
        f["reason"] = "NCCL's traffic across hosts went over TCP sockets (NET/Socket" +
                      (nics.empty() ? std::string() : " on " + list(nics)) + ") although " + place::host(ctx.hostname) +
                      " has ACTIVE RDMA ports " + list(st.rdma_ports) +
                      ": check NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA and the RDMA drivers (log " + st.debug_log.path + ")";
        if (const auto chose = socket_chosen_by(st.user_env); !chose.empty()) f["configured_by"] = chose;
      }
      out.value(gpu_place, "nccl.socket_fallback", fallback ? 1 : 0, unit::count, f);
    }
    if (net != "IB") return;
    nlohmann::json g = sp;
    g["nics"] = nics;
    g["gdr_disabled"] = s.gdr_disabled;
    if (s.gdr_channels == 0)
      g["reason"] = "no channel via NET/IB/k/GDRDMA: data staged through host memory" +
                    (s.gdr_disabled.empty() ? std::string() : " (GPU Direct RDMA disabled for " + list(s.gdr_disabled) + ")") +
                    "; check the nvidia-peermem module or DMA-BUF support";
    out.value(gpu_place, "nccl.gdr", s.gdr_channels > 0 ? 1 : 0, unit::count, g);
    // The NICs against the topology: a GPU's traffic belongs on a NIC of its own PCIe switch.
    for (const auto& hg : ctx.host.gpus) {
      if (!st.gpu || hg.index != st.gpu->pci.index || hg.nearest_nics.empty() || nics.empty()) continue;
      const auto off = nccl_log::off_switch(nics, hg.nearest_nics);
      nlohmann::json o = sp;
      o["nics"] = nics;
      o["nearest_nics"] = hg.nearest_nics;
      if (!off.empty())
        o["reason"] = "NCCL used " + list(off) + ", not among the GPU's nearest NICs " + list(hg.nearest_nics) +
                      " (check NCCL_IB_HCA and the PCIe topology NCCL detected)";
      out.value(gpu_place, "nccl.nic_off_switch", static_cast<double>(off.size()), unit::count, o);
    }
  }

  enum class ScopeEnd { done, aborted };

  struct Slowest {
    double seconds = 0;
    int rank = 0;
    std::string place;
  };
  // The largest `mine` over the communicator, the lowest rank that has it and its place.
  static Slowest slowest_rank(Comm& c, double mine, const std::string& my_place) {
    Slowest s;
    s.seconds = c.allreduce_max(mine);
    s.rank = static_cast<int>(c.allreduce_min(mine == s.seconds ? c.rank() : c.size()));
    s.place = c.broadcast(c.rank() == s.rank ? my_place : std::string(), s.rank);
    return s;
  }

  // The unique ids of a communicator of c.size() ranks, the same on every rank: one id when
  // it has at most ranks_per_id ranks, else one per ranks_per_id (rounded up), each made by
  // the rank NCCL's documentation gives it (rankHasRoot: "Creating a communicator using
  // multiple ncclUniqueIds") and shared with an allgather. An NCCL without
  // ncclCommInitRankScalable gets one id. False, with `err`, when a root could not make its id.
  static bool init_ids(Comm& c, const Nccl& nccl, int ranks_per_id, std::vector<NcclUniqueId>& ids, std::string& err,
                       const char*& init) {
    const int n = c.size();
    int n_ids = n > ranks_per_id ? (n + ranks_per_id - 1) / ranks_per_id : 1;
    if (n_ids > 1 && !nccl.has_scalable_init()) n_ids = 1;
    init = n_ids > 1 ? "ncclCommInitRankScalable" : "ncclCommInitRank";
    const int rmr = n % n_ids, rpr = n / n_ids, rlim = rmr * (rpr + 1), r = c.rank();
    const bool root = r < rlim ? r % (rpr + 1) == 0 : (r - rlim) % rpr == 0;
    std::string mine;
    if (root) {
      try {
        const auto u = nccl.unique_id();
        mine = "ok" + std::string(u.begin(), u.end());
      } catch (const std::exception& e) {
        mine = "er" + std::string(e.what());
      }
    }
    for (const auto& s : c.allgather(mine)) {  // in rank order: the roots' ids in NCCL's order
      if (s.empty()) continue;
      if (s.rfind("er", 0) == 0) {
        err = s.substr(2);
        return false;
      }
      NcclUniqueId u{};
      std::copy(s.begin() + 2, s.begin() + 2 + std::min<std::size_t>(u.size(), s.size() - 2), u.begin());
      ids.push_back(u);
    }
    if (static_cast<int>(ids.size()) != n_ids) {
      err = "expected " + std::to_string(n_ids) + " unique ids, got " + std::to_string(ids.size());
      return false;
    }
    return true;
  }

  ScopeEnd run_scope(ProbeContext& ctx, Comm& parent, SampleSink& out, RankState& st, Scope sc, sweep::SweepConfig cfg,
                     const std::optional<sweep::Corruption>& corrupt, double seconds,
                     std::chrono::steady_clock::time_point abort_at, int min_ranks,
                     std::vector<std::string>& notes, std::vector<std::string>& problems) {
    int color = -1;
    if (st.usable) {
      switch (sc) {
        case Scope::intra_host: color = ctx.host_index; break;
        case Scope::inter_host: color = static_cast<int>(st.local_gpu_pos); break;
        case Scope::cluster: color = 0; break;
      }
    }
    auto sub = split_comm(parent, color, ctx.rank);
    if (!sub) return ScopeEnd::done;
    const std::string name = scope_name(sc);
    if (sub->size() < min_ranks) {
      if (sub->rank() == 0) notes.push_back(std::string(name) + ": " + std::to_string(sub->size()) + " GPU(s), nothing to measure");
      return ScopeEnd::done;
    }
    // Set-up in two timed phases, the ranks starting together: the unique ids (made by their
    // roots, shared over MPI) and the communicator's init. Above ranks_per_unique_id ranks,
    // several ids and ncclCommInitRankScalable (init_ids).
    const Nccl& nccl = *st.nccl;
    // Where this communicator's part of the rank's NCCL debug log starts (the transport audit).
    const std::uintmax_t log_from = st.debug_log.path.empty() ? 0 : file_size_or_0(st.debug_log.path);
    sub->barrier();
    const double t0 = sub->wtime();
    std::string err;
    std::vector<NcclUniqueId> ids;
    const char* wanted_init = "ncclCommInitRank";
    if (!init_ids(*sub, nccl, ranks_per_id_, ids, err, wanted_init)) {
      problems.push_back(name + ": " + err);
      return ScopeEnd::done;
    }
    const double t1 = sub->wtime();
    std::unique_ptr<Nccl::Comm> comm;
    try {
      comm = std::make_unique<Nccl::Comm>(nccl, sub->size(), ids, sub->rank());
    } catch (const std::exception& e) {
      err = e.what();
    }
    const double t2 = sub->wtime();
    const double id_time = t1 - t0, init = t2 - t1;
    const std::string gpu_place = place::gpu(ctx.hostname, st.gpu->pci.index);
    const std::string scope_place = sc == Scope::intra_host ? place::host(ctx.hostname) : std::string(place::cluster());
    nlohmann::json sp = {{"scope", name}, {"ranks", sub->size()}};
    if (sc == Scope::inter_host) sp["rail"] = st.local_gpu_pos;
    nlohmann::json setup = sp;  // how the communicator was made
    setup["init"] = comm ? comm->init_call() : wanted_init;
    setup["unique_ids"] = ids.size();
    if (comm) {
      // Where this rank's sizes came from: its memory, its share, and the largest line chosen.
      nlohmann::json ip = setup;
      const nlohmann::json mem = st.memory.params();  // a named object: items() of a temporary dangles
      for (const auto& [k, v] : mem.items()) ip[k] = v;
      ip["max_bytes"] = st.max_bytes;
      out.value(gpu_place, "nccl.init_time", init, unit::seconds, ip);
      out.value(gpu_place, "nccl.unique_id_time", id_time, unit::seconds, setup);
    }
    const Slowest slow_init = slowest_rank(*sub, comm ? init : 0, gpu_place);
    const Slowest slow_id = slowest_rank(*sub, comm ? id_time : 0, gpu_place);
    if (sub->allreduce_max(comm ? 0 : 1) > 0) {
      // NCCL's own init is collective: a failure on one rank usually fails them all.
      problems.push_back(name + ": " + (err.empty() ? std::string(wanted_init) + " failed on another rank" : err));
      if (comm) comm->abort();
      return ScopeEnd::done;
    }
    if (sub->rank() == 0) {
      // The slowest rank of each phase, named: its GPU's place (host and GPU) and rank.
      nlohmann::json p = setup;
      p["slowest_place"] = slow_init.place;
      p["slowest_rank"] = slow_init.rank;
      out.value(scope_place, "nccl.init_time_slowest", slow_init.seconds, unit::seconds, p);
      p["slowest_place"] = slow_id.place;
      p["slowest_rank"] = slow_id.rank;
      out.value(scope_place, "nccl.unique_id_time_slowest", slow_id.seconds, unit::seconds, p);
      p["slowest_place"] = slow_init.place;
      p["slowest_rank"] = slow_init.rank;
      p["seconds"] = slow_init.seconds;
      out.text(scope_place, "nccl.init_slowest_host", place::host_of(slow_init.place), p);
    }

    // NVLS (NVLink SHARP) is NCCL's choice, not reported by its API; it is taken as on when
    // NCCL >= 2.17, NCCL_NVLS_ENABLE is not 0, every GPU supports multicast and some host
    // contributes two or more GPUs to the communicator.
    const bool all_multicast = sub->allreduce_min(st.multicast ? 1 : 0) > 0;
    const bool shared_host = sc != Scope::inter_host && sub->size() > ctx.host_count;
    const bool nvls = nccl.version_code() >= 21700 && env_or("NCCL_NVLS_ENABLE", "1") != "0" && all_multicast &&
                      (sc == Scope::intra_host || shared_host);
    sp["nvls"] = nvls;
    sp["algo"] = env_or("NCCL_ALGO", "default");
    sp["proto"] = env_or("NCCL_PROTO", "default");

    cfg.place = scope_place;
    cfg.extra_params = sp;
    cfg.progress = ctx.progress;  // rank 0's lines: "nccl: inter-host all_reduce 1 MiB (7 of 12 lines)"
    cfg.deadline = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(std::max(0.0, seconds)));
    auto backend = make_nccl_backend(*st.access->driver, *comm, corrupt, abort_at);
    const auto res = sweep::run_sweep(*sub, *backend, cfg, &out);
    if (!res.error.empty()) {
      // Aborted by this rank's guard, or failed because a peer aborted or died first (the fake
      // NCCL and NCCL's sockets fail at once when a peer closes): either way this rank leaves
      // the probe now, whichever came first, so that every rank of a hung scope does the same.
      problems.push_back(name + ": " + res.error);
      backend.reset();  // its guard first: it may hold the communicator
      comm->abort();    // a no-op after the guard's abort
      return ScopeEnd::aborted;
    }
    audit_transport(ctx, out, st, sc, sp, gpu_place, log_from, notes);
    if (!res.not_run.empty() && sub->rank() == 0)
      notes.push_back(name + ": " + std::to_string(res.not_run.size()) + " line(s) not run for lack of time, from " + res.not_run.front());
    if (res.wrong_total && sub->rank() == 0)
      notes.push_back(name + ": " + std::to_string(res.wrong_total) + " wrong element(s), see nccl.wrong");

    // The theoretical line: NVLink of the GPU model inside a host; the slowest rail NIC across
    // hosts (the cluster scope's ring crosses hosts, so the NIC bounds it too).
    const auto spec = model_spec(st.gpu->cuda.name);
    const double nvlink = sub->allreduce_min(spec && spec->nvlink_bytes_per_s > 0 ? spec->nvlink_bytes_per_s : 0);
    const double nic = sub->allreduce_min(st.nic_gbps) * 1e9 / 8;
    const double theory = sc == Scope::intra_host ? nvlink : (ctx.host_count > 1 ? nic : nvlink);
    if (sub->rank() != 0) return ScopeEnd::done;
    if (!res.lines.empty()) out.value(scope_place, "nccl.avg_busbw", sweep::average_busbw(res.lines), unit::bytes_per_second, sp);
    // The largest line of each collective and placement holds the peak, as nccl-tests reads it.
    std::map<std::pair<int, bool>, const sweep::LineResult*> peak;
    for (const auto& l : res.lines) {
      auto& p = peak[{static_cast<int>(l.line.coll), l.line.in_place}];
      if (!p || l.line.bytes > p->line.bytes) p = &l;
    }
    for (const auto& [key, l] : peak) {
      nlohmann::json p = sp;
      p["collective"] = std::string(sweep::to_string(l->line.coll));
      p["in_place"] = l->line.in_place;
      p["size"] = l->line.bytes;
      out.value(scope_place, "nccl.peak_busbw", l->busbw, unit::bytes_per_second, p);
    }
    // A rail across hosts short of its NIC rate, or of unknown rate, asks for the isolation pass.
    if (sc == Scope::inter_host) {
      rails_measured_ = true;
      const auto ar = peak.find({static_cast<int>(sweep::Collective::all_reduce), false});
      if (theory <= 0 || ar == peak.end() || 100.0 * ar->second->busbw / theory < isolate_below_) rail_short_ = true;
    }
    if (theory <= 0) {
      notes.push_back(name + ": no theoretical bandwidth (GPU model or NIC rate unknown)");
      return ScopeEnd::done;
    }
    for (const auto& [key, l] : peak) {
      nlohmann::json p = sp;
      p["collective"] = std::string(sweep::to_string(l->line.coll));
      p["in_place"] = l->line.in_place;
      p["size"] = l->line.bytes;
      p["theory"] = sc == Scope::intra_host || ctx.host_count == 1 ? "nvlink" : "nic";
      out.value(scope_place, "nccl.busbw_theoretical", theory, unit::bytes_per_second, p);
      out.value(scope_place, "nccl.busbw_of_theory", 100.0 * l->busbw / theory, unit::percent, p);
    }
    return ScopeEnd::done;
  }

  int ranks_per_id_ = kDefaultRanksPerId;  // this run's ranks_per_unique_id
  double isolate_below_ = kDefaultIsolateBelow;
  bool rail_short_ = false;                // this rank led a rail that asks for the isolation pass
  bool rails_measured_ = false;            // this rank led a rail of the inter-host scope
};

}  // namespace

std::unique_ptr<Probe> make_nccl_probe() { return std::make_unique<NcclProbe>(); }

}  // namespace ga
