// resume: does a job that is killed mid-step resume bit for bit from shared storage, on other
// hosts? A deterministic training-like job (job.hpp) runs as one worker process per rank,
// started by the rank itself and not part of the MPI job (docs/resume.md says why), three
// times: uninterrupted; killed with SIGKILL mid-step; restarted with every worker on another
// host, from the newest complete checkpoint. The final states and the loss log after the
// resume point must equal the uninterrupted run's byte for byte. Param `damage` (a test hook)
// breaks the newest checkpoints before the restart, to show the fallback.
// `resume-gpu` is the same probe with the job's state in GPU memory, its kernels loaded from
// PTX and the reduction done by NCCL among the workers (engine.hpp); its metrics are
// resume-gpu.*. Both also check the final states against the job computed in this process.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "probes/vendor/gpu_libraries.hpp"
#include "probes/devices/gpu_presence.hpp"
#include "probes/vendor/nccl_api.hpp"
#include "probes/probe.hpp"
#include "probes/resume/engine.hpp"
#include "probes/resume/checkpoint.hpp"
#include "probes/resume/compare.hpp"
#include "probes/resume/damage.hpp"
#include "probes/resume/relay.hpp"
#include "probes/resume/worker.hpp"
#include "base/file_io.hpp"
#include "topology/place.hpp"
#include "base/units.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;
using namespace ga::resume;

struct ResumeParams {
  JobConfig job;
  int kill_step = 0;
  int kill_worker = 0;
  std::string damage = "none";
  bool keep_files = false;
  std::string worker_exe;
  double frame_timeout_s = 60;
  bool gpu = false;
  gpu::LibraryPaths libraries;          // gpu: what the workers load (a named one is passed on)
  // The in-process reference is computed when workers x words x steps stays below this: at
  // 7.6 ns per word-step measured here, about 2 s at the limit (200 workers of the default
  // job), 40 ms for 4 workers.
  double reference_limit = 2.5e8;
};

ResumeParams params_from(const ProbeContext& ctx, bool gpu) {
  const auto& p = ctx.params;
  ResumeParams r;
  r.gpu = gpu;
  if (gpu) r.libraries = gpu::library_paths(p);
  r.reference_limit = p.value("reference_limit", r.reference_limit);
  r.job.workers = ctx.size;
  // The defaults are JobConfig's and ResumeParams' own (info() declares the same).
  r.job.steps = p.value("steps", r.job.steps);
  r.job.every = p.value("every", r.job.every);
  r.job.state_words = p.value("state_kib", static_cast<int>(r.job.state_words / 128)) * 128;
  r.job.contrib_words = p.value("contrib_words", r.job.contrib_words);
  r.job.contrib_words = std::min(r.job.contrib_words, r.job.state_words);
  validate(r.job);
  // By default past the middle, and not on the step right after a checkpoint, where the
  // manifest of that checkpoint would not be written yet (a case the damage hook covers).
  int dflt = r.job.steps * 11 / 20;
  if (dflt % r.job.every == 1) ++dflt;
  r.kill_step = p.value("kill_step", dflt);
  if (r.kill_step < 2 || r.kill_step >= r.job.steps)
    throw std::invalid_argument("resume: kill_step must be 2.." + std::to_string(r.job.steps - 1) + ", not " + std::to_string(r.kill_step));
  r.kill_worker = p.value("kill_worker", ctx.size - 1);
  if (r.kill_worker < 0 || r.kill_worker >= ctx.size)
    throw std::invalid_argument("resume: kill_worker must be 0.." + std::to_string(ctx.size - 1));
  r.damage = p.value("damage", r.damage);
  if (r.damage != "none" && r.damage != "truncate" && r.damage != "flip" && r.damage != "both")
    throw std::invalid_argument("resume: damage must be none, truncate, flip or both, not \"" + r.damage + "\"");
  r.keep_files = p.value("keep_files", r.keep_files);
  r.frame_timeout_s = p.value("frame_timeout_s", r.frame_timeout_s);
  // The worker is this very binary; /proc/self/exe survives a relative argv[0] and a changed
  // working directory. Tests may name another build of it.
  r.worker_exe = p.value("worker_exe", std::string());
  if (r.worker_exe.empty()) r.worker_exe = fs::read_symlink("/proc/self/exe").string();
  return r;
}

// One attempt of the job, collective: this rank starts its worker and relays for it.
struct Attempt {
  std::string name;                    // baseline, first, restart
  std::string out_dir, ckpt_root;
  bool resume = false;
  int kill_step = 0;                   // on this rank, 0 = none
};

struct RankReport {
  int rank = 0, worker = 0;
  long pid = 0;
  std::string host, end, why, status;
  int wait_status = -1, step = 0, start_step = 0;
  double wall_s = 0;
};

nlohmann::json to_json(const RankReport& r) {
  return {{"rank", r.rank}, {"worker", r.worker}, {"pid", r.pid}, {"host", r.host}, {"end", r.end}, {"why", r.why},
          {"status", r.status}, {"wait_status", r.wait_status}, {"step", r.step}, {"start_step", r.start_step}, {"wall_s", r.wall_s}};
}
RankReport report_from_json(const nlohmann::json& j) {
  RankReport r;
  r.rank = j.at("rank");
  r.worker = j.at("worker");
  r.pid = j.at("pid");
  r.host = j.at("host");
  r.end = j.at("end");
  r.why = j.at("why");
  r.status = j.at("status");
  r.wait_status = j.at("wait_status");
  r.step = j.at("step");
  r.start_step = j.at("start_step");
  r.wall_s = j.at("wall_s");
  return r;
}

std::vector<RankReport> run_attempt(ProbeContext& ctx, const ResumeParams& p, const Attempt& a, int worker) {
  WorkerArgs args;
  args.job = p.job;
  args.worker = worker;
  args.ckpt_root = a.ckpt_root;
  args.out_dir = a.out_dir;
  args.attempt = a.name;
  args.resume = a.resume;
  args.gpu = p.gpu;
  args.gpu_slot = ctx.local_rank;
  // A library named by param or environment goes to the worker by name; defaults stay defaults.
  if (p.libraries.cuda.size() == 1) args.cuda_library = p.libraries.cuda.front();
  if (p.libraries.nccl.size() == 1) args.nccl_library = p.libraries.nccl.front();
  std::vector<std::string> argv = {kWorkerCommand};
  for (auto& s : worker_argv(args)) argv.push_back(std::move(s));
  const std::string log = (fs::path(a.out_dir) / ("worker-" + std::to_string(worker) + "-" + a.name + ".log")).string();

  std::unique_ptr<WorkerProcess> proc;
  std::string not_started;
  try {
    fs::create_directories(a.out_dir);
    proc = std::make_unique<WorkerProcess>(p.worker_exe, argv, log);
  } catch (const std::exception& e) {
    not_started = e.what();
  }
  const double timeout = std::max(1.0, std::min(p.frame_timeout_s, ctx.seconds_left() - 5));
  const RelayResult res = relay(ctx.comm, proc.get(), p.job, frame_contrib_words(p.job, p.gpu), a.kill_step, timeout, not_started);

  RankReport me;
  me.rank = ctx.rank;
  me.worker = worker;
  me.pid = proc ? static_cast<long>(proc->pid()) : 0;
  me.host = ctx.hostname;
  me.end = to_string(res.end);
  me.why = res.why;
  me.wait_status = res.wait_status;
  me.status = res.wait_status >= 0 ? describe_wait_status(res.wait_status) : "not started";
  me.step = res.step;
  me.start_step = res.start_step;
  me.wall_s = res.wall_s;
  if (res.end == RelayEnd::failed) {
    // The worker's own words are in its log; the last line says what went wrong.
    try {
      const auto bytes = base::read_whole_file(log);
      std::string text(bytes.begin(), bytes.end());
      while (!text.empty() && text.back() == '\n') text.pop_back();
      const auto nl = text.rfind('\n');
      if (!text.empty()) me.why += "; worker log: " + (nl == std::string::npos ? text : text.substr(nl + 1));
    } catch (const std::exception&) {
    }
  }
  std::vector<RankReport> all;
  for (const auto& s : ctx.comm.allgather(to_json(me).dump())) all.push_back(report_from_json(nlohmann::json::parse(s)));
  return all;
}

// Which ranks' workers broke (not finished, not the intended kill, not stopped because of it).
std::string failures(const std::vector<RankReport>& all, const std::string& attempt) {
  std::string out;
  for (const auto& r : all)
    if (r.end == "failed")
      out += (out.empty() ? "" : "; ") + attempt + " run: worker " + std::to_string(r.worker) + " on rank " + std::to_string(r.rank) +
             " (" + r.host + "): " + r.why;
  return out;
}

// The metric names of one variant: resume.* (host memory) or resume-gpu.* (GPU memory).
struct Metrics {
  std::string prefix;
  std::string operator()(const char* name) const { return prefix + name; }
};

// Whether this rank can run the GPU job: an NVIDIA GPU that CUDA opens, and NCCL. The same
// decision table as the gpu and nccl probes (gpu_presence.hpp).
std::optional<Outcome> gpu_blocker(const ProbeContext& ctx, const ResumeParams& p) {
  gpu::AccessOptions opt;
  opt.cuda_visible_devices_set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
  const auto access = gpu::open_gpus(gpu::nvidia_gpus_on_bus(ctx.host, ctx.sysfs_root), p.libraries, opt);
  if (access.stop) return *access.stop;
  if (access.gpus.empty()) return Outcome::failed("NVIDIA GPUs present but CUDA opens none of them: " + access.failure);
  // NCCL refuses two ranks of one communicator on one GPU: one worker per GPU, or none.
  if (ctx.local_size > static_cast<int>(access.gpus.size()))
    return Outcome::skipped(std::to_string(ctx.local_size) + " ranks on this host share " + std::to_string(access.gpus.size()) +
                            " GPU(s); the GPU job needs one GPU per rank (launch at most one rank per GPU)");
  const gpu::Nccl nccl(p.libraries.nccl);
  if (!nccl.loaded()) return Outcome::missing_library("NVIDIA GPUs present but NCCL cannot be loaded: " + nccl.error());
  return std::nullopt;
}

class ResumeProbe final : public Probe {
 public:
  explicit ResumeProbe(bool gpu) : gpu_(gpu), m_{gpu ? "resume-gpu." : "resume."} {}

  // The worker processes this probe starts run `gpuaccept resume-worker ...`.
  std::vector<HelperCommand> helper_commands() const override { return {{kWorkerCommand, &resume_worker_main}}; }

  ProbeInfo info() const override {
    ProbeInfo i;
    if (gpu_) {
      i.name = "resume-gpu";
      i.summary =
          "the resume job with its state in GPU memory (kernels from PTX, reduction with NCCL): killed mid-step with "
          "SIGKILL, resumed on other hosts, bit-identical to an uninterrupted run and to the host reference";
      i.needs = {true, false, false};
      i.caveat = "skipped without NVIDIA GPUs; needs NCCL; one GPU per worker, chosen by the rank's place on its host";
    } else {
      i.name = "resume";
      i.summary =
          "a deterministic job killed mid-step with SIGKILL resumes on other hosts from the newest complete checkpoint in "
          "the shared directory, bit-identical to an uninterrupted run";
      i.caveat = "the job's state lives in host memory; resume-gpu runs it in GPU memory with NCCL";
    }
    // Every sample goes to place cluster, from rank 0.
    using K = place::Kind;
    // The params judge_and_emit gives each: the job's shape, then what each figure adds.
    auto job = [](std::vector<std::string> more) {
      std::vector<std::string> k = {"workers", "steps", "every", "state_bytes"};
      k.insert(k.end(), more.begin(), more.end());
      return k;
    };
    const std::vector<std::string> kill_keys = {"worker", "rank", "host", "pid", "step", "wait_status"};
    i.metrics = {
        MetricDecl{m_("identical"), unit::boolean, Better::higher,
         "every worker's final state after the kill and the restart equals the uninterrupted run's, byte for byte"}
            .at({K::cluster}).carries(job({"differing", "kept_files"})),
        MetricDecl{m_("loss_identical"), unit::boolean, Better::higher,
         "the loss log equals the uninterrupted run's before the kill and after the resume point"}
            .at({K::cluster}).carries(job({"after_resume", "before_kill", "kept_files"})),
        MetricDecl{m_("matches_reference"), unit::boolean, Better::higher,
         "the uninterrupted run's final states equal the job computed in one process (absent for a job too big)"}
            .at({K::cluster}).carries(job({"differing_workers", "kept_files"})),
        MetricDecl{m_("kill_step"), unit::count, Better::none, "the step the killed worker was in when SIGKILL hit it"}
            .at({K::cluster}).carries(kill_keys),
        MetricDecl{m_("resumed_from_step"), unit::count, Better::none, "the step of the checkpoint the restart resumed from"}
            .at({K::cluster}).carries({"skipped", "damage"}),
        MetricDecl{m_("fallback"), unit::boolean, Better::none, "the restart skipped newer checkpoints that were torn or damaged"}
            .at({K::cluster}).carries({"skipped", "damage"}),
        MetricDecl{m_("killed_host"), unit::text, Better::none, "the host of the killed worker"}
            .at({K::cluster}).carries(kill_keys),
        MetricDecl{m_("kill_signal"), unit::text, Better::none, "how the killed worker ended, as waitpid saw it (\"SIGKILL\" expected)"}
            .at({K::cluster}).carries(kill_keys),
        MetricDecl{m_("moved_to_other_host"), unit::boolean, Better::higher,
         "every worker restarted on another host than before (with 2+ hosts only)"}
            .at({K::cluster}).carries({"shift", "moves"}),
        MetricDecl{m_("wall_uninterrupted"), unit::seconds, Better::lower, "wall time of the uninterrupted run, slowest worker"}
            .at({K::cluster}).carries(job({})),
        MetricDecl{m_("wall_interrupted"), unit::seconds, Better::lower, "wall time of the run up to the kill, slowest worker"}
            .at({K::cluster}).carries(job({})),
        MetricDecl{m_("wall_restart"), unit::seconds, Better::lower, "wall time of the restarted run, slowest worker"}
            .at({K::cluster}).carries(job({"moves", "shift"})),
    };
    const ResumeParams d;
    i.params = {
        {"steps", ParamType::integer, d.job.steps, 2, {}, {}, "steps of the job"},
        {"every", ParamType::integer, d.job.every, 1, {}, {}, "a checkpoint after every this many steps"},
        {"state_kib", ParamType::integer, static_cast<int>(d.job.state_words / 128), 1, double(1 << 20), {},
         "KiB of state per worker (one checkpoint shard)"},
        {"contrib_words", ParamType::integer, static_cast<int>(d.job.contrib_words), 1, {}, {},
         "64-bit words each worker contributes to the reduction per step (at most the state's words)"},
        {"kill_step", ParamType::integer, nullptr, 2, {}, {},
         "the step the victim is killed in (2..steps-1); default just past the middle, not right after a checkpoint"},
        {"kill_worker", ParamType::integer, nullptr, 0, {}, {}, "the worker (rank) killed; default the last"},
        {"damage", ParamType::string, d.damage, {}, {}, {"none", "truncate", "flip", "both"},
         "test hook: break the newest checkpoints before the restart, to show the fallback"},
        {"keep_files", ParamType::boolean, d.keep_files, {}, {}, {},
         "keep the job's directory in the shared directory even when every check passed"},
        {"frame_timeout_s", ParamType::number, d.frame_timeout_s, 0, {}, {},
         "longest wait for a worker's next message before it is declared hung"},
        {"worker_exe", ParamType::string, nullptr, {}, {}, {},
         "the program run as worker (\"resume-worker\" command); default this very binary"},
        {"reference_limit", ParamType::number, d.reference_limit, 0, {}, {},
         "largest workers x state words x steps for which the job is also computed in this process"},
    };
    if (gpu_) {
      i.params.push_back({"cuda_library", ParamType::string, nullptr, {}, {}, {},
                          "path of libcuda the workers load; default $GPUACCEPT_CUDA_LIBRARY, then libcuda.so.1"});
      i.params.push_back({"nccl_library", ParamType::string, nullptr, {}, {}, {},
                          "path of libnccl the workers load; default $GPUACCEPT_NCCL_LIBRARY, then libnccl.so.2"});
    }
    return i;
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    const ResumeParams p = params_from(ctx, gpu_);
    if (gpu_) {
      // Collective: every rank must be able to run its worker, or none starts.
      const auto mine = gpu_blocker(ctx, p);
      const auto why = ctx.comm.allgather(mine ? ctx.hostname + ": " + mine->reason : std::string());
      if (mine) return *mine;
      for (std::size_t r = 0; r < why.size(); ++r)
        if (!why[r].empty()) return Outcome::skipped("rank " + std::to_string(r) + " cannot run the GPU job (" + why[r] + ")");
    }
    std::string base;
    if (ctx.rank == 0) {
      base = (fs::path(ctx.shared_dir) / base::unique_dir_name(gpu_ ? "resume-gpu" : "resume")).string();
      fs::create_directories(base);
    }
    base = ctx.comm.broadcast(base, 0);
    const std::string baseline_dir = (fs::path(base) / "baseline").string(), resumed_dir = (fs::path(base) / "resumed").string();

    // 1. Uninterrupted: rank r plays worker r.
    Attempt a0{"baseline", baseline_dir, (fs::path(baseline_dir) / "ckpt").string(), false, 0};
    const auto r0 = run_attempt(ctx, p, a0, ctx.rank);
    if (auto f = failures(r0, "uninterrupted"); !f.empty()) return blame(ctx, r0, f);

    // 2. The same job, its victim killed with SIGKILL mid-step.
    Attempt a1{"first", resumed_dir, (fs::path(resumed_dir) / "ckpt").string(), false, ctx.rank == p.kill_worker ? p.kill_step : 0};
    const auto r1 = run_attempt(ctx, p, a1, ctx.rank);
    if (auto f = failures(r1, "interrupted"); !f.empty()) return blame(ctx, r1, f);
    const RankReport& victim = r1[static_cast<std::size_t>(p.kill_worker)];

    // 3. Test hook: break the newest checkpoints the way storage breaks them.
    std::string damage_msg;
    if (ctx.rank == 0 && p.damage != "none") {
      try {
        const auto d = damage_checkpoints(a1.ckpt_root, p.job, p.damage);
        for (const auto& line : d.done) damage_msg += (damage_msg.empty() ? "" : "; ") + line;
      } catch (const std::exception& e) {
        damage_msg = std::string("error: ") + e.what();
      }
    }
    damage_msg = ctx.comm.broadcast(damage_msg, 0);
    if (damage_msg.rfind("error: ", 0) == 0) return ctx.rank == 0 ? Outcome::failed(damage_msg.substr(7)) : Outcome::ok();

    // 4. Restart, every worker on another rank (another host when there is one).
    const Shift shift = shift_for_restart(ctx.rank_hosts);
    const int my_worker = ((ctx.rank - shift.shift) % ctx.size + ctx.size) % ctx.size;
    Attempt a2{"restart", resumed_dir, a1.ckpt_root, true, 0};
    const auto r2 = run_attempt(ctx, p, a2, my_worker);
    if (auto f = failures(r2, "restart"); !f.empty()) return blame(ctx, r2, f);

    if (ctx.rank == 0) {
      const bool identical = judge_and_emit(ctx, p, m_, r0, r1, r2, victim, shift, damage_msg, base, out);
      std::error_code ec;
      if (identical && !p.keep_files) fs::remove_all(base, ec);
    }
    ctx.comm.barrier();
    return Outcome::ok();
  }

 private:
  // A worker broke (not the planned kill): the probe fails on the rank whose worker it was.
  static Outcome blame(const ProbeContext& ctx, const std::vector<RankReport>& all, const std::string& what) {
    for (const auto& r : all)
      if (r.rank == ctx.rank && r.end == "failed") return Outcome::failed(what);
    return Outcome::ok("the job could not run: " + what);
  }

  static bool judge_and_emit(const ProbeContext& ctx, const ResumeParams& p, const Metrics& m, const std::vector<RankReport>& r0,
                             const std::vector<RankReport>& r1, const std::vector<RankReport>& r2, const RankReport& victim,
                             const Shift& shift, const std::string& damage_msg, const std::string& base, SampleSink& out) {
    const std::string baseline_dir = (fs::path(base) / "baseline").string(), resumed_dir = (fs::path(base) / "resumed").string();
    const int resumed_from = r2.front().start_step;

    // Final states, byte for byte, every worker.
    bool identical = true;
    nlohmann::json differ = nlohmann::json::array();
    for (int w = 0; w < p.job.workers; ++w) {
      std::string why;
      if (!same_file_bytes(final_path(baseline_dir, w), final_path(resumed_dir, w), &why)) {
        identical = false;
        differ.push_back({{"worker", w}, {"why", why}});
      }
    }
    const nlohmann::json job = {{"workers", p.job.workers}, {"steps", p.job.steps}, {"every", p.job.every},
                                {"state_bytes", p.job.state_words * 8}};
    nlohmann::json ip = job;
    ip["differing"] = differ;
    if (!identical) ip["kept_files"] = base;
    out.value(place::cluster(), m("identical"), identical ? 1.0 : 0.0, unit::boolean, ip);

    // The baseline against the job computed here, in one process: proves the distributed run
    // (and, for resume-gpu, the kernels and NCCL's sums) computed the job itself, not merely
    // something repeatable.
    bool reference_ok = true;
    const double cost = static_cast<double>(p.job.workers) * static_cast<double>(p.job.state_words) * p.job.steps;
    if (cost <= p.reference_limit) {
      std::vector<State> states;
      for (int w = 0; w < p.job.workers; ++w) states.push_back(initial_state(p.job, w));
      run_in_memory(p.job, states, 0, p.job.steps, nullptr);
      nlohmann::json differ_ref = nlohmann::json::array();
      for (int w = 0; w < p.job.workers; ++w) {
        const auto want = encode_shard(p.job, w, p.job.steps, states[static_cast<std::size_t>(w)]);
        std::vector<unsigned char> got;
        try {
          got = base::read_whole_file(final_path(baseline_dir, w));
        } catch (const std::exception&) {
        }
        if (got != want) differ_ref.push_back(w);
      }
      reference_ok = differ_ref.empty();
      nlohmann::json rp = job;
      rp["differing_workers"] = differ_ref;
      if (!reference_ok) rp["kept_files"] = base;
      out.value(place::cluster(), m("matches_reference"), reference_ok ? 1.0 : 0.0, unit::boolean, rp);
    }

    // Loss logs: after the resume point against the uninterrupted run, and before the kill too.
    std::vector<unsigned char> ref, before, after;
    try {
      ref = base::read_whole_file(losses_path(baseline_dir, "baseline"));
      before = base::read_whole_file(losses_path(resumed_dir, "first"));
      after = base::read_whole_file(losses_path(resumed_dir, "restart"));
    } catch (const std::exception&) {
    }
    const auto c_after = compare_losses(ref, after, resumed_from + 1, p.job.steps);
    const auto c_before = compare_losses(ref, before, 1, victim.step - 1);
    nlohmann::json lp = job;
    lp["after_resume"] = {{"steps", std::to_string(resumed_from + 1) + ".." + std::to_string(p.job.steps)},
                          {"identical", c_after.identical}, {"compared", c_after.steps_compared}, {"why", c_after.why}};
    lp["before_kill"] = {{"steps", "1.." + std::to_string(victim.step - 1)}, {"identical", c_before.identical},
                         {"compared", c_before.steps_compared}, {"why", c_before.why}};
    const bool loss_same = c_after.identical && c_before.identical;
    if (!loss_same) lp["kept_files"] = base;
    out.value(place::cluster(), m("loss_identical"), loss_same ? 1.0 : 0.0, unit::boolean, lp);

    // The kill, as waitpid saw it.
    const int sig = victim.wait_status >= 0 && WIFSIGNALED(victim.wait_status) ? WTERMSIG(victim.wait_status) : 0;
    const nlohmann::json kp = {{"worker", victim.worker}, {"rank", victim.rank}, {"host", victim.host}, {"pid", victim.pid},
                               {"step", victim.step}, {"wait_status", victim.status}};
    out.value(place::cluster(), m("kill_step"), victim.step, unit::count, kp);
    out.text(place::cluster(), m("killed_host"), victim.host, kp);
    out.text(place::cluster(), m("kill_signal"), sig ? signal_abbrev(sig) : victim.status, kp);

    // Where the restart began, and what it had to skip to get there.
    nlohmann::json choice;
    try {
      const auto bytes = base::read_whole_file(choice_path(resumed_dir, "restart", 0));
      choice = nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
    } catch (const std::exception&) {
      choice = {{"skipped", nlohmann::json::array()}};
    }
    const bool fallback = !choice["skipped"].empty();
    nlohmann::json rp = {{"skipped", choice["skipped"]}, {"damage", damage_msg.empty() ? "none" : damage_msg}};
    out.value(place::cluster(), m("resumed_from_step"), resumed_from, unit::count, rp);
    out.value(place::cluster(), m("fallback"), fallback ? 1.0 : 0.0, unit::boolean, rp);

    // The shifted mapping: who played each worker before and after.
    nlohmann::json moves = nlohmann::json::array();
    for (const auto& r : r2) {
      const auto& before_r = r1[static_cast<std::size_t>(r.worker)];
      moves.push_back({{"worker", r.worker}, {"before", before_r.host + " rank " + std::to_string(before_r.rank)},
                       {"after", r.host + " rank " + std::to_string(r.rank)}});
    }
    if (ctx.host_count >= 2)
      out.value(place::cluster(), m("moved_to_other_host"), shift.all_hosts_changed ? 1.0 : 0.0, unit::boolean,
                {{"shift", shift.shift}, {"moves", moves}});

    auto slowest = [](const std::vector<RankReport>& v) {
      double m = 0;
      for (const auto& r : v) m = std::max(m, r.wall_s);
      return m;
    };
    out.value(place::cluster(), m("wall_uninterrupted"), slowest(r0), unit::seconds, job);
    out.value(place::cluster(), m("wall_interrupted"), slowest(r1), unit::seconds, job);
    nlohmann::json wp = job;
    wp["moves"] = moves;
    wp["shift"] = shift.shift;
    out.value(place::cluster(), m("wall_restart"), slowest(r2), unit::seconds, wp);
    return identical && loss_same && reference_ok;
  }

  bool gpu_;
  Metrics m_;
};

}  // namespace

std::unique_ptr<Probe> make_resume_probe() { return std::make_unique<ResumeProbe>(false); }
std::unique_ptr<Probe> make_resume_gpu_probe() { return std::make_unique<ResumeProbe>(true); }

}  // namespace ga
