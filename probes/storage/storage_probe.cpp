// storage: is the shared directory (--shared-dir, default the report directory) fit for
// checkpoints? Every rank writes a checkpoint-sized file at once (with fsync), reads back a
// file that a rank on another host wrote and checks its checksum (visibility across hosts),
// runs a metadata test (create, stat, unlink many small files), and compares free space and
// inodes with what a full checkpoint of all ranks needs. Per host and cluster figures; the
// files it wrote are removed. Design and limits: docs/storage.md.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "base/checksum.hpp"
#include "base/file_io.hpp"
#include "base/units.hpp"
#include "probes/probe.hpp"
#include "probes/storage/storage_plan.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct StorageParams {
  std::uint64_t file_bytes = 64ull << 20;     // per rank
  std::uint64_t chunk_bytes = 4ull << 20;
  int metadata_files = 500;                   // per rank; 3 operations each
  int keep_checkpoints = 2;                   // the one being written and the last good one
  std::uint64_t checkpoint_bytes_per_rank = 0;  // 0: file_bytes
  std::uint64_t checkpoint_files_per_rank = 2;  // a shard and its share of a manifest
  double visibility_wait_s = 5;               // network filesystems publish new files late
  std::string blind_host;                     // test hook: this host looks in the wrong place
};

StorageParams params_from(const nlohmann::json& p) {
  StorageParams s;
  auto positive = [&](const char* key, double dflt) {
    const double v = p.value(key, dflt);
    if (!(v > 0)) throw std::runtime_error(std::string("storage: parameter ") + key + " must be > 0");
    return v;
  };
  // The defaults are StorageParams' own (info() declares the same).
  s.file_bytes = static_cast<std::uint64_t>(positive("file_mib", double(s.file_bytes >> 20)) * (1 << 20));
  s.chunk_bytes = std::min<std::uint64_t>(s.file_bytes, 4ull << 20);
  s.metadata_files = static_cast<int>(positive("metadata_files", s.metadata_files));
  s.keep_checkpoints = static_cast<int>(positive("keep_checkpoints", s.keep_checkpoints));
  s.checkpoint_bytes_per_rank = p.contains("checkpoint_gib_per_rank")
                                    ? static_cast<std::uint64_t>(positive("checkpoint_gib_per_rank", 1) * (1ull << 30))
                                    : s.file_bytes;
  s.checkpoint_files_per_rank =
      static_cast<std::uint64_t>(positive("checkpoint_files_per_rank", double(s.checkpoint_files_per_rank)));
  s.visibility_wait_s = p.value("visibility_wait_s", s.visibility_wait_s);
  s.blind_host = p.value("blind_host", s.blind_host);
  return s;
}

// The content of rank r's file: a deterministic stream, different per run and per rank, so
// a stale file from an earlier run or another rank's file cannot pass the checksum.
void fill_chunk(std::vector<std::uint64_t>& buf, std::uint64_t seed, std::uint64_t first_word) {
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = base::mix64(seed + first_word + i);
}

std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::string file_name(int rank) { return "ckpt-rank" + std::to_string(rank) + ".bin"; }

// Writes this rank's file with fsync; returns its checksum.
std::uint64_t write_rank_file(const std::string& path, const StorageParams& p, std::uint64_t seed) {
  base::UniqueFd fd = base::open_or_throw(path, O_WRONLY | O_CREAT | O_TRUNC);
  std::vector<std::uint64_t> buf(p.chunk_bytes / 8);
  base::Checksum sum;
  for (std::uint64_t off = 0; off < p.file_bytes; off += p.chunk_bytes) {
    const std::size_t n = static_cast<std::size_t>(std::min(p.chunk_bytes, p.file_bytes - off));
    fill_chunk(buf, seed, off / 8);
    base::write_all(fd.get(), buf.data(), n, path);
    sum.update(buf.data(), n);
  }
  base::fsync_or_throw(fd.get(), path);
  // Written and durable: drop this host's cached copy, so nothing later on this host reads
  // it from memory by accident.
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  return sum.value();
}

// Reads another rank's file, waiting up to `wait_s` for it to appear; fills io.visible/why_not.
void read_partner_file(const std::string& path, std::uint64_t expect_sum, std::uint64_t expect_bytes, const StorageParams& p,
                       storage::RankIo& io) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(p.visibility_wait_s));
  int fd = -1;
  for (;;) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || Clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (fd < 0) {
    io.why_not = "cannot open " + path + " (written by rank " + std::to_string(io.read_from) + "): " + base::errno_text(errno) +
                 " after waiting " + fmt_seconds(p.visibility_wait_s);
    return;
  }
  base::UniqueFd owned(fd);
  // On a network filesystem this drops what this host may have cached; on fake hosts (one
  // kernel) it drops the writer's pages too, which the writer already did.
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  std::vector<unsigned char> buf(p.chunk_bytes);
  base::Checksum sum;
  const auto t0 = Clock::now();
  for (;;) {
    const std::size_t got = base::read_full(fd, buf.data(), buf.size(), path);
    sum.update(buf.data(), got);
    if (got < buf.size()) break;
  }
  io.read_s = since(t0);
  if (sum.bytes() != expect_bytes) {
    io.why_not = path + " holds " + std::to_string(sum.bytes()) + " bytes, its writer (rank " + std::to_string(io.read_from) +
                 ") wrote " + std::to_string(expect_bytes);
    return;
  }
  if (sum.value() != expect_sum) {
    io.why_not = path + ": checksum " + base::to_hex(sum.value()) + " differs from the one its writer (rank " +
                 std::to_string(io.read_from) + ") computed, " + base::to_hex(expect_sum);
    return;
  }
  io.read_bytes = sum.bytes();
  io.visible = true;
}

// Creates, stats and unlinks n small files in their own directory; returns operations done.
std::uint64_t metadata_test(const std::string& dir, int n) {
  fs::create_directories(dir);
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) names.push_back(dir + "/f" + std::to_string(i));
  for (const auto& f : names) {
    int fd = ::open(f.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("metadata test: cannot create " + f + ": " + base::errno_text(errno));
    ::close(fd);
  }
  struct stat st;
  for (const auto& f : names)
    if (::stat(f.c_str(), &st) != 0) throw std::runtime_error("metadata test: cannot stat " + f + ": " + base::errno_text(errno));
  for (const auto& f : names)
    if (::unlink(f.c_str()) != 0) throw std::runtime_error("metadata test: cannot unlink " + f + ": " + base::errno_text(errno));
  ::rmdir(dir.c_str());
  return 3ull * static_cast<std::uint64_t>(n);
}

// Removes what this rank wrote however the probe ends.
struct RemoveOnExit {
  std::vector<std::string> paths;
  ~RemoveOnExit() {
    std::error_code ec;
    for (auto it = paths.rbegin(); it != paths.rend(); ++it) fs::remove_all(*it, ec);
  }
};

class StorageProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "storage";
    i.summary =
        "shared checkpoint directory: concurrent write and read-back throughput with fsync, visibility of other hosts' "
        "files, metadata rate, free space and inodes";
    i.caveat =
        "hosts that share one kernel (fake hosts, one machine) share its page cache and filesystem: there, the "
        "visibility test proves the bookkeeping, not the coherence of a network filesystem";
    using K = place::Kind;
    // emit_space's params (at HOST), and emit_host's and emit_cluster's.
    const std::vector<std::string> space_keys = {"ranks", "checkpoint_bytes_per_rank", "checkpoint_files_per_rank",
                                                 "keep_checkpoints", "dir"};
    i.metrics = {
        MetricDecl{"storage.write_bw", unit::bytes_per_second, Better::higher,
         "every rank writing a checkpoint-sized file at once, with fsync: bytes over the slowest rank's time (host, cluster)"}
            .at({K::host, K::cluster}).carries({"file_bytes", "ranks"}),
        MetricDecl{"storage.read_bw", unit::bytes_per_second, Better::higher,
         "reading back the files other hosts wrote, checksummed: bytes over the slowest rank's time (host, cluster)"}
            .at({K::host, K::cluster}).carries({"file_bytes", "ranks"}),
        MetricDecl{"storage.visible", unit::boolean, Better::higher,
         "every rank of the host read another host's file intact within visibility_wait_s"}
            .at({K::host}).carries({"reads", "problems", "wait_s"}),
        MetricDecl{"storage.metadata_rate", "op/s", Better::higher, "create, stat and unlink of small files, all ranks at once"}
            .at({K::host, K::cluster}).carries({"files_per_rank", "ranks"}),
        MetricDecl{"storage.free_bytes", unit::bytes, Better::higher, "free space in the shared directory, for unprivileged users"}
            .at({K::host}).carries(space_keys),
        MetricDecl{"storage.free_inodes", unit::count, Better::higher, "free inodes in the shared directory (absent where not counted)"}
            .at({K::host}).carries(space_keys),
        MetricDecl{"storage.free_space_ratio", unit::count, Better::higher,
         "free space over what keep_checkpoints checkpoints of every rank need (1 = just enough)"}
            .at({K::host}).carries(space_keys),
        MetricDecl{"storage.free_inodes_ratio", unit::count, Better::higher,
         "free inodes over what keep_checkpoints checkpoints of every rank need (1 = just enough)"}
            .at({K::host}).carries(space_keys),
    };
    const StorageParams d;
    i.params = {
        {"file_mib", ParamType::number, double(d.file_bytes >> 20), {}, {}, {},
         "MiB each rank writes at once (> 0); set it to a real checkpoint shard's size"},
        {"metadata_files", ParamType::integer, d.metadata_files, 1, {}, {}, "small files each rank creates, stats and unlinks"},
        {"keep_checkpoints", ParamType::integer, d.keep_checkpoints, 1, {}, {},
         "checkpoints kept at once (the one being written and the last good one), for the space ratios"},
        {"checkpoint_gib_per_rank", ParamType::number, nullptr, {}, {}, {},
         "GiB of one rank's checkpoint shard (> 0), for the space ratio; default: file_mib"},
        {"checkpoint_files_per_rank", ParamType::integer, static_cast<int>(d.checkpoint_files_per_rank), 1, {}, {},
         "files one rank's checkpoint takes (a shard and its share of a manifest), for the inode ratio"},
        {"visibility_wait_s", ParamType::number, d.visibility_wait_s, 0, {}, {},
         "how long a host waits for another host's file (and the directory) to appear"},
        {"blind_host", ParamType::string, d.blind_host, {}, {}, {},
         "test hook: this host reads from the wrong directory, so its read-back must fail"},
    };
    return i;
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    const StorageParams p = params_from(ctx.params);
    storage::RankIo io;
    io.rank = ctx.rank;
    io.host = ctx.hostname;
    RemoveOnExit cleanup;

    // Rank 0 names the directory; the others must see it appear (if it never does, the
    // directory is not shared: each host then works in its own copy, and the read-back names it).
    std::string dir;
    if (ctx.rank == 0) {
      dir = (fs::path(ctx.shared_dir) / base::unique_dir_name("storage")).string();
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) io.error = "cannot create " + dir + ": " + ec.message();
    }
    dir = ctx.comm.broadcast(dir, 0);
    if (ctx.rank == 0) cleanup.paths.push_back(dir);
    if (ctx.rank != 0) {
      const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(p.visibility_wait_s));
      while (!fs::is_directory(dir) && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::error_code ec;
      if (!fs::is_directory(dir)) fs::create_directories(dir, ec);
    }

    // Free space and inodes, before anything is written.
    if (ctx.local_rank == 0) emit_space(ctx, p, dir, out);

    // Concurrent checkpoint-sized writes.
    const std::uint64_t seed = base::mix64(std::hash<std::string>{}(dir)) ^ (static_cast<std::uint64_t>(ctx.rank) << 40);
    const std::string mine = (fs::path(dir) / file_name(ctx.rank)).string();
    std::uint64_t my_sum = 0;
    ctx.comm.barrier();
    if (io.error.empty()) {
      try {
        cleanup.paths.push_back(mine);
        const auto t0 = Clock::now();
        my_sum = write_rank_file(mine, p, seed);
        io.write_s = since(t0);
        io.write_bytes = p.file_bytes;
      } catch (const std::exception& e) {
        io.error = e.what();
      }
    }
    const auto sums = ctx.comm.allgather(base::to_hex(my_sum) + (io.write_bytes ? "" : "!"));

    // Read back a file another host wrote.
    io.read_from = storage::partner_of(ctx.rank, ctx.rank_hosts);
    ctx.comm.barrier();
    const auto& theirs = sums[static_cast<std::size_t>(io.read_from)];
    if (theirs.size() > 16) {
      io.why_not = "its writer, rank " + std::to_string(io.read_from) + ", could not write " + file_name(io.read_from);
    } else {
      std::uint64_t expect = 0;
      base::from_hex(theirs, expect);
      const bool blind = !p.blind_host.empty() && p.blind_host == ctx.hostname;
      const std::string path = (fs::path(dir) / (blind ? "blind-test-hook" : "") / file_name(io.read_from)).string();
      try {
        read_partner_file(path, expect, p.file_bytes, p, io);
      } catch (const std::exception& e) {
        io.why_not = e.what();
      }
    }
    ctx.comm.barrier();  // everyone has read before anyone removes its file
    std::error_code ec;
    fs::remove(mine, ec);

    // Metadata: every rank at once, each in a directory of its own.
    if (io.error.empty()) {
      try {
        const auto t0 = Clock::now();
        io.meta_ops = metadata_test((fs::path(dir) / ("meta-rank" + std::to_string(ctx.rank))).string(), p.metadata_files);
        io.meta_s = since(t0);
      } catch (const std::exception& e) {
        io.error = e.what();
      }
    }

    std::vector<storage::RankIo> all;
    for (const auto& s : ctx.comm.allgather(storage::to_json(io).dump()))
      all.push_back(storage::rank_io_from_json(nlohmann::json::parse(s)));
    if (ctx.local_rank == 0) emit_host(ctx, p, all, out);
    if (ctx.rank == 0) emit_cluster(p, all, out);
    ctx.comm.barrier();  // every rank is done with the directory before rank 0 removes it
    if (ctx.rank == 0) fs::remove_all(dir, ec);
    ctx.comm.barrier();
    // A directory that is not shared left each host a copy of its own: remove it too.
    if (ctx.rank != 0 && ctx.local_rank == 0) fs::remove_all(dir, ec);

    if (!io.error.empty()) return Outcome::failed(io.error);
    return Outcome::ok();
  }

 private:
  static void emit_space(const ProbeContext& ctx, const StorageParams& p, const std::string& dir, SampleSink& out) {
    struct statvfs v {};
    if (::statvfs(dir.c_str(), &v) != 0) return;  // the write below reports why the directory is unusable
    const std::uint64_t free_bytes = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
    const nlohmann::json need = {{"ranks", ctx.size}, {"checkpoint_bytes_per_rank", p.checkpoint_bytes_per_rank},
                                 {"checkpoint_files_per_rank", p.checkpoint_files_per_rank},
                                 {"keep_checkpoints", p.keep_checkpoints}, {"dir", ctx.shared_dir}};
    const std::string where = place::host(ctx.hostname);
    out.value(where, "storage.free_bytes", static_cast<double>(free_bytes), unit::bytes, need);
    out.value(where, "storage.free_space_ratio",
              storage::space_ratio(free_bytes, ctx.size, p.checkpoint_bytes_per_rank, p.keep_checkpoints), unit::count,
              need);
    // f_files == 0: the filesystem does not count inodes (btrfs, many network filesystems);
    // there is no inode limit to run into, so there is nothing to report.
    if (v.f_files > 0) {
      out.value(where, "storage.free_inodes", static_cast<double>(v.f_favail), unit::count, need);
      out.value(where, "storage.free_inodes_ratio",
                storage::inode_ratio(v.f_favail, ctx.size, p.checkpoint_files_per_rank, p.keep_checkpoints), unit::count, need);
    }
  }

  static void emit_host(const ProbeContext& ctx, const StorageParams& p, const std::vector<storage::RankIo>& all, SampleSink& out) {
    const auto t = storage::totals_of(all, ctx.hostname);
    const std::string where = place::host(ctx.hostname);
    const nlohmann::json sizes = {{"file_bytes", p.file_bytes}, {"ranks", t.ranks}};
    if (t.write_bytes > 0) out.value(where, "storage.write_bw", t.write_bw(), unit::bytes_per_second, sizes);
    // The host sees the others' files only if every one of its ranks saw its partner's.
    nlohmann::json seen = nlohmann::json::array(), problems = nlohmann::json::array();
    for (const auto& r : all) {
      if (r.host != ctx.hostname) continue;
      const auto& from = ctx.rank_hosts[static_cast<std::size_t>(r.read_from)];
      seen.push_back({{"rank", r.rank}, {"read_from_rank", r.read_from}, {"read_from_host", from}, {"visible", r.visible}});
      if (!r.visible) problems.push_back("rank " + std::to_string(r.rank) + ": " + r.why_not);
    }
    out.value(where, "storage.visible", t.visible_ranks == t.ranks ? 1.0 : 0.0, unit::boolean,
              {{"reads", seen}, {"problems", problems}, {"wait_s", p.visibility_wait_s}});
    if (t.read_bytes > 0) out.value(where, "storage.read_bw", t.read_bw(), unit::bytes_per_second, sizes);
    if (t.meta_ops > 0)
      out.value(where, "storage.metadata_rate", t.meta_rate(), "op/s", {{"files_per_rank", p.metadata_files}, {"ranks", t.ranks}});
  }

  static void emit_cluster(const StorageParams& p, const std::vector<storage::RankIo>& all, SampleSink& out) {
    const auto t = storage::totals_of(all, "");
    const nlohmann::json sizes = {{"file_bytes", p.file_bytes}, {"ranks", t.ranks}};
    if (t.write_bytes > 0) out.value(place::cluster(), "storage.write_bw", t.write_bw(), unit::bytes_per_second, sizes);
    if (t.read_bytes > 0) out.value(place::cluster(), "storage.read_bw", t.read_bw(), unit::bytes_per_second, sizes);
    if (t.meta_ops > 0)
      out.value(place::cluster(), "storage.metadata_rate", t.meta_rate(), "op/s", {{"files_per_rank", p.metadata_files}, {"ranks", t.ranks}});
  }
};

}  // namespace

std::unique_ptr<Probe> make_storage_probe() { return std::make_unique<StorageProbe>(); }

}  // namespace ga
