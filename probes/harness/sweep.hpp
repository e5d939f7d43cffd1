// The collective sweep harness, shared by the `mpi-coll` (MPI on host memory) and `nccl`
// probes. Modelled on nccl-tests (src/common.cu, doc/PERFORMANCE.md): a collective says only
// what is special about it (its element counts for a size, its bus-bandwidth factor); a
// Backend says how to fill, launch, wait for and check one operation; the harness owns the
// rest: the size sweep, warm-up, an iteration count fitted to the deadline, timing (slowest
// rank's average per-iteration time), algbw/busbw, the data check and the samples.
//
// It never includes mpi.h or nccl.h: cross-rank agreement goes through ga::Comm (any
// communicator: the job's, or one a probe split off for a host or a rail, wrapped in MpiComm).
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/comm.hpp"
#include "probes/declare.hpp"
#include "probes/progress.hpp"
#include "probes/sample.hpp"

namespace ga {
class SampleSink;
}

namespace ga::sweep {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };

// Snake-case names as nccl-tests' binaries spell them ("all_reduce", "alltoall", "sendrecv").
std::string_view to_string(Collective);
// Accepts the names above and the spellings without underscore ("allreduce", "reducescatter").
std::optional<Collective> collective_from_string(std::string_view);
const std::vector<Collective>& all_collectives();

// Element counts of one operation on one rank. The sweep's size is nccl-tests' "size"
// column: the bytes of the larger of the two buffers (all of the gathered data for
// all_gather, all of the scattered input for reduce_scatter, the whole buffer for alltoall).
struct Counts {
  std::size_t send = 0;   // elements in the send buffer
  std::size_t recv = 0;   // elements in the receive buffer
  std::size_t count = 0;  // nccl-tests' "count" column: the count argument of the call
};

// What is special about one collective, and nothing else.
struct CollectiveDesc {
  Collective kind;
  std::string_view name;
  bool rooted;                                  // broadcast, reduce
  bool reduces;                                 // has a reduction operator
  Counts (*counts)(std::size_t elements, int nranks);  // elements = size / element size
  double (*bus_factor)(int nranks);             // busbw = algbw x factor
};
const CollectiveDesc& describe(Collective);
inline double bus_factor(Collective c, int nranks) { return describe(c).bus_factor(nranks); }
// nccl-tests' bandwidths of one line (doc/PERFORMANCE.md): algbw = size / time, busbw =
// algbw x the collective's factor for n ranks. B/s; 0 when the time is not positive. The
// harness computes every line with this, and the tests hold it against recorded logs.
struct Bandwidth {
  double algbw = 0, busbw = 0;
};
Bandwidth bandwidth_of(Collective, std::uint64_t bytes, double seconds, int nranks);
// The counts for a requested size, rounded down as nccl-tests does so every rank's share is
// whole; the line's real size is bytes_of(counts) (0 when the size is too small for nranks).
Counts counts_for(Collective, std::uint64_t bytes, std::size_t type_size, int nranks);
inline std::uint64_t bytes_of(const Counts& c, std::size_t type_size) {
  return static_cast<std::uint64_t>(c.send > c.recv ? c.send : c.recv) * type_size;
}

// Sizes min, min*f, min*f^2, ... up to max (nccl-tests -b -e -f). Throws std::invalid_argument
// naming the bad bound (min 0, max < min, factor <= 1).
struct SizeRange {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 16ull << 20;
  double step_factor = 2.0;
};
std::vector<std::uint64_t> sweep_sizes(const SizeRange&);

// One line of the sweep, as a Backend sees it.
struct Line {
  Collective coll = Collective::all_reduce;
  std::uint64_t bytes = 0;     // the line's size (bytes_of(counts))
  Counts counts;
  std::size_t type_size = 4;
  bool in_place = false;
  int root = 0;
  int rank = 0, nranks = 1;    // in the sweep's communicator
};

// The backend: how to run one operation. Everything else is the harness's.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string dtype() const = 0;        // "float", as nccl-tests prints it
  virtual std::size_t type_size() const = 0;
  virtual std::string redop() const { return "sum"; }
  // False for a combination the backend cannot run (e.g. sendrecv in place); the harness
  // skips those lines and says so in SweepResult::skipped.
  virtual bool supports(Collective, bool in_place) const { return true; }
  // Buffers big enough for `line`; called before anything else on a line. Throws on failure
  // (out of memory): the harness turns that into the sweep's error.
  virtual void prepare(const Line& line) = 0;
  // Inputs from sweep::input_value(rank, i) (sweep_pattern.hpp), outputs poisoned, so a
  // collective that writes nothing is caught by check().
  virtual void fill(const Line& line) = 0;
  virtual void launch(const Line& line) = 0;    // start one operation (may be asynchronous)
  virtual void synchronize() = 0;               // wait until every launched operation is done
  // After fill + launch + synchronize: elements of this rank's output that differ from
  // sweep::expected_value (0 where the rank has no output, e.g. reduce off the root).
  virtual std::uint64_t check(const Line& line) = 0;
};

// A test hook (suite param `corrupt`): flip one output element on one rank after the checked
// operation of one line, so that line must show wrong = 1. Backends call applies() in check().
struct Corruption {
  Collective coll = Collective::all_reduce;
  std::uint64_t bytes = 0;     // the line's size
  int rank = 0;
  std::optional<bool> in_place;  // unset: both placements of the line
  bool applies(const Line& l) const {
    return l.coll == coll && l.bytes == bytes && l.rank == rank && (!in_place || *in_place == l.in_place);
  }
};
// {collective, size, rank[, in_place]}; throws std::invalid_argument naming the bad key.
Corruption corruption_from_json(const nlohmann::json&);

enum class TimeAcrossRanks { max, avg };   // nccl-tests -a: 1 = avg (its default), 3 = max

struct SweepConfig {
  std::string probe;                        // metric prefix: "<probe>.time" ...
  std::string place = "cluster";            // where the samples go
  nlohmann::json extra_params = nlohmann::json::object();  // added to every sample (scope, ...)
  std::vector<Collective> collectives = all_collectives();
  SizeRange sizes;
  bool out_of_place = true, in_place = true;
  int root = 0;
  int warmup_iters = 5;                     // nccl-tests -w default
  int min_iters = 1, max_iters = 20;        // nccl-tests -n default 20
  TimeAcrossRanks time_across = TimeAcrossRanks::max;
  bool check = true;                        // data check on every line (nccl-tests -c 1)
  int emit_rank = 0;                        // the rank of the sweep's comm that emits samples
  // The sweep stops starting lines at this point; lines not run are listed in `not_run`.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Where each line is reported as it starts ("all_reduce 1 MiB out of place", k of K lines):
  // the probe's ProbeContext::progress, or nullptr for none.
  Progress* progress = nullptr;
};

// Reads the sweep options a suite gives a probe: min_bytes, max_bytes, step_factor,
// collectives (list of names), in_place, out_of_place, warmup_iters, iters (fixes min and max),
// max_iters, root, check, time_across ("max" | "avg"). Unknown keys are left to the probe.
// Throws std::invalid_argument naming the bad key and value.
SweepConfig sweep_config_from_params(const nlohmann::json& params, SweepConfig defaults);
// The declarations of exactly those keys, with a probe's defaults (mpi-coll and nccl both
// sweep; a note is appended to max_bytes' summary where the probe caps it further).
std::vector<ParamDecl> sweep_param_decls(const SweepConfig& defaults, const std::string& max_bytes_note = "");

struct LineResult {
  Line line;                   // rank/nranks as on the emitting rank
  int iters = 0;
  double seconds = 0;          // per operation, reduced across ranks (TimeAcrossRanks)
  double algbw = 0;            // B/s: line.bytes / seconds
  double busbw = 0;            // B/s: algbw x bus_factor
  std::uint64_t wrong = 0;     // summed over ranks; 0 when check is off
  bool checked = false;
};

struct SweepResult {
  std::vector<LineResult> lines;            // on every rank (identical values)
  std::vector<std::string> skipped;         // "sendrecv in place: not supported by the backend"
  std::vector<std::string> not_run;         // lines the deadline left out
  std::uint64_t wrong_total = 0;
  std::string error;                        // non-empty: the sweep stopped on this error
};

// Collective over `comm`: every rank calls it with the same config. Emits the samples of each
// line from cfg.emit_rank as soon as the line is done (so a later hang keeps earlier lines).
SweepResult run_sweep(Comm& comm, Backend& backend, const SweepConfig& cfg, SampleSink* out);

// The four samples of one line: <probe>.time (s), .algbw (B/s), .busbw (B/s), .wrong (count),
// params {collective, size, count, dtype, in_place, ranks} + cfg.extra_params.
std::vector<Sample> line_samples(const LineResult&, const SweepConfig&, const std::string& dtype,
                                 int sample_rank);

// nccl-tests' "Avg bus bandwidth": the mean busbw over every line (both placements).
double average_busbw(const std::vector<LineResult>&);

}  // namespace ga::sweep
