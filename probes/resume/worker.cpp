#include "probes/resume/worker.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/file_io.hpp"
#include "probes/resume/checkpoint.hpp"
#include "probes/resume/engine.hpp"
#include "probes/resume/frame.hpp"

namespace ga::resume {

namespace fs = std::filesystem;

std::string losses_path(const std::string& out_dir, const std::string& attempt) {
  return (fs::path(out_dir) / ("losses-" + attempt + ".bin")).string();
}
std::string final_path(const std::string& out_dir, int worker) {
  return (fs::path(out_dir) / "final" / ("worker-" + std::to_string(worker) + ".bin")).string();
}
std::string choice_path(const std::string& out_dir, const std::string& attempt, int worker) {
  return (fs::path(out_dir) / ("choice-" + attempt + "-worker-" + std::to_string(worker) + ".json")).string();
}

std::vector<std::string> worker_argv(const WorkerArgs& a) {
  std::vector<std::string> v = {"--worker", std::to_string(a.worker), "--workers", std::to_string(a.job.workers),
                                "--steps", std::to_string(a.job.steps), "--every", std::to_string(a.job.every),
                                "--state-words", std::to_string(a.job.state_words), "--contrib-words",
                                std::to_string(a.job.contrib_words), "--seed", std::to_string(a.job.seed),
                                "--ckpt-root", a.ckpt_root, "--out", a.out_dir, "--attempt", a.attempt,
                                "--fd", std::to_string(a.fd)};
  if (a.resume) v.push_back("--resume");
  if (a.gpu) {
    v.insert(v.end(), {"--gpu", "--gpu-slot", std::to_string(a.gpu_slot)});
    if (!a.cuda_library.empty()) v.insert(v.end(), {"--cuda-library", a.cuda_library});
    if (!a.nccl_library.empty()) v.insert(v.end(), {"--nccl-library", a.nccl_library});
  }
  return v;
}

WorkerArgs parse_worker_args(const std::vector<std::string>& args) {
  WorkerArgs a;
  auto number = [](const std::string& flag, const std::string& v) -> std::uint64_t {
    std::size_t used = 0;
    std::uint64_t n = 0;
    try {
      n = std::stoull(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || v.empty()) throw std::invalid_argument(flag + " needs a non-negative integer, not \"" + v + "\"");
    return n;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    if (f == "--resume" || f == "--gpu") {
      (f == "--gpu" ? a.gpu : a.resume) = true;
      continue;
    }
    if (i + 1 >= args.size()) throw std::invalid_argument(f + " needs a value");
    const std::string& v = args[++i];
    if (f == "--worker") a.worker = static_cast<int>(number(f, v));
    else if (f == "--workers") a.job.workers = static_cast<int>(number(f, v));
    else if (f == "--steps") a.job.steps = static_cast<int>(number(f, v));
    else if (f == "--every") a.job.every = static_cast<int>(number(f, v));
    else if (f == "--state-words") a.job.state_words = number(f, v);
    else if (f == "--contrib-words") a.job.contrib_words = number(f, v);
    else if (f == "--seed") a.job.seed = number(f, v);
    else if (f == "--ckpt-root") a.ckpt_root = v;
    else if (f == "--out") a.out_dir = v;
    else if (f == "--attempt") a.attempt = v;
    else if (f == "--fd") a.fd = static_cast<int>(number(f, v));
    else if (f == "--gpu-slot") a.gpu_slot = static_cast<int>(number(f, v));
    else if (f == "--cuda-library") a.cuda_library = v;
    else if (f == "--nccl-library") a.nccl_library = v;
    else throw std::invalid_argument("unknown argument " + f);
  }
  validate(a.job);
  if (a.worker < 0 || a.worker >= a.job.workers)
    throw std::invalid_argument("--worker " + std::to_string(a.worker) + " is outside 0.." + std::to_string(a.job.workers - 1));
  if (a.ckpt_root.empty() || a.out_dir.empty()) throw std::invalid_argument("--ckpt-root and --out are required");
  return a;
}

namespace {

void write_choice(const WorkerArgs& a, const ResumeChoice& c) {
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : c.skipped) skipped.push_back({{"step", s.step}, {"why", s.why}});
  const std::string text = nlohmann::json{{"worker", a.worker}, {"step", c.step}, {"skipped", skipped}}.dump() + "\n";
  base::write_file_atomic(choice_path(a.out_dir, a.attempt, a.worker), text.data(), text.size());
}

class HostEngine final : public Engine {
 public:
  HostEngine(const JobConfig& c, int worker, State s) : c_(c), worker_(worker), s_(std::move(s)) {}
  std::uint64_t frame_words_of_contribution() const override { return c_.contrib_words; }
  Contribution contribute(int step) override { return ga::resume::contribute(c_, s_, worker_, step); }
  void apply(int step, const Reduced& r) override { ga::resume::apply(c_, s_, worker_, step, r); }
  State snapshot() override { return s_; }

 private:
  JobConfig c_;
  int worker_;
  State s_;
};

// Every worker's frame of one exchange, checked: worker w's frame is at w and of this step,
// and every worker resumed from the same checkpoint.
std::vector<Frame> exchange(const WorkerArgs& a, const Frame& out, std::uint64_t cw) {
  const JobConfig& c = a.job;
  const std::size_t fw = frame_words(cw);
  std::vector<std::uint64_t> mine(fw), all(fw * static_cast<std::size_t>(c.workers));
  encode_frame(out, mine.data());
  send_all(a.fd, mine.data(), mine.size() * 8);
  // Here the step is half done: the contribution is out, the update not yet applied.
  if (!recv_all(a.fd, all.data(), all.size() * 8)) return {};  // the job was stopped
  std::vector<Frame> frames;
  for (int w = 0; w < c.workers; ++w) {
    Frame f = decode_frame(all.data() + static_cast<std::size_t>(w) * fw, cw);
    if (f.worker != static_cast<std::uint64_t>(w) || f.step != out.step)
      throw std::runtime_error("step " + std::to_string(out.step) + ": frame " + std::to_string(w) + " is worker " + std::to_string(f.worker) +
                               " at step " + std::to_string(f.step));
    if (f.start_step != out.start_step)
      throw std::runtime_error("worker " + std::to_string(w) + " resumed from step " + std::to_string(f.start_step) + ", this one from " +
                               std::to_string(out.start_step) + ": the workers see different checkpoints");
    frames.push_back(std::move(f));
  }
  return frames;
}

}  // namespace

std::unique_ptr<Engine> make_host_engine(const JobConfig& c, int worker, State initial) {
  return std::make_unique<HostEngine>(c, worker, std::move(initial));
}

int run_worker(const WorkerArgs& a) {
  const JobConfig& c = a.job;
  fs::create_directories(a.ckpt_root);
  fs::create_directories(fs::path(final_path(a.out_dir, a.worker)).parent_path());
  int start = 0;
  State state;
  if (a.resume) {
    const ResumeChoice choice = choose_resume(a.ckpt_root, c);
    write_choice(a, choice);
    start = choice.step;
    state = load_state(a.ckpt_root, c, a.worker, start);
  } else {
    state = initial_state(c, a.worker);
  }
  std::unique_ptr<Engine> engine;
  if (a.gpu) engine = make_gpu_engine({c, a.worker, a.gpu_slot, a.cuda_library, a.nccl_library}, state);
  else engine = make_host_engine(c, a.worker, std::move(state));
  // Worker 0 keeps the loss log: (step, loss bits) records, so two runs compare byte for byte.
  base::UniqueFd losses;
  if (a.worker == 0) losses = base::open_or_throw(losses_path(a.out_dir, a.attempt), O_WRONLY | O_CREAT | O_TRUNC);

  const std::uint64_t cw = engine->frame_words_of_contribution();
  Frame out;
  out.worker = static_cast<std::uint64_t>(a.worker);
  out.start_step = static_cast<std::uint64_t>(start);
  if (engine->needs_hello()) {
    out.step = static_cast<std::uint64_t>(start);
    out.contrib = engine->hello_words();
    const auto frames = exchange(a, out, cw);
    if (frames.empty()) return kWorkerStopped;
    engine->connect(frames.front().contrib);
  }
  for (int step = start + 1; step <= c.steps; ++step) {
    Contribution part = engine->contribute(step);
    out.step = static_cast<std::uint64_t>(step);
    out.local_loss = part.local_loss;
    out.contrib = std::move(part.words);
    out.contrib.resize(cw, 0);
    const auto frames = exchange(a, out, cw);
    if (frames.empty()) {
      engine->abandon();
      return kWorkerStopped;
    }
    std::vector<Contribution> parts(static_cast<std::size_t>(c.workers));
    std::vector<ShardRecord> reported;
    for (int w = 0; w < c.workers; ++w) {
      const Frame& f = frames[static_cast<std::size_t>(w)];
      // The GPU engine's words are summed by NCCL, not carried here.
      parts[static_cast<std::size_t>(w)] = {a.gpu ? std::vector<std::uint64_t>{} : f.contrib, f.local_loss};
      if (f.ckpt_step != kNoCheckpoint && f.ckpt_step == out.ckpt_step) reported.push_back({w, f.ckpt_bytes, f.ckpt_checksum});
    }
    const Reduced r = reduce(parts);
    if (a.worker == 0) {
      // Every worker reported its shard of the same step: the checkpoint is complete.
      if (out.ckpt_step != kNoCheckpoint && static_cast<int>(reported.size()) == c.workers)
        write_manifest(a.ckpt_root, c, static_cast<int>(out.ckpt_step), reported);
      std::uint64_t rec[2] = {static_cast<std::uint64_t>(step), 0};
      std::memcpy(&rec[1], &r.loss, 8);
      base::write_all(losses.get(), rec, sizeof rec, losses_path(a.out_dir, a.attempt));
    }
    engine->apply(step, r);
    out.ckpt_step = kNoCheckpoint;
    if (step % c.every == 0 && step < c.steps) {
      const ShardRecord rec = write_shard(a.ckpt_root, c, a.worker, step, engine->snapshot());
      out.ckpt_step = static_cast<std::uint64_t>(step);
      out.ckpt_checksum = rec.checksum;
      out.ckpt_bytes = rec.bytes;
    }
  }
  const auto final_bytes = encode_shard(c, a.worker, c.steps, engine->snapshot());
  base::write_file_atomic(final_path(a.out_dir, a.worker), final_bytes.data(), final_bytes.size());
  if (losses) base::fsync_or_throw(losses.get(), losses_path(a.out_dir, a.attempt));
  return kWorkerDone;
}

int resume_worker_main(int argc, char** argv) {
  WorkerArgs a;
  try {
    a = parse_worker_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept resume-worker: %s\n", e.what());
    return kWorkerBadArgs;
  }
  try {
    return run_worker(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuaccept resume-worker %d: %s\n", a.worker, e.what());
    return kWorkerError;
  }
}

}  // namespace ga::resume
