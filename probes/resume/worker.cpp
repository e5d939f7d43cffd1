#include "probes/resume/worker.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "probes/resume/checkpoint.hpp"
#include "probes/resume/frame.hpp"
#include "probes/storage/file_io.hpp"

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
    if (f == "--resume") {
      a.resume = true;
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
  storage::write_file_atomic(choice_path(a.out_dir, a.attempt, a.worker), text.data(), text.size());
}

}  // namespace

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
  // Worker 0 keeps the loss log: (step, loss bits) records, so two runs compare byte for byte.
  storage::UniqueFd losses;
  if (a.worker == 0) losses = storage::open_or_throw(losses_path(a.out_dir, a.attempt), O_WRONLY | O_CREAT | O_TRUNC);

  const std::size_t fw = frame_words(c.contrib_words);
  std::vector<std::uint64_t> mine(fw), all(fw * static_cast<std::size_t>(c.workers));
  Frame out;
  out.worker = static_cast<std::uint64_t>(a.worker);
  out.start_step = static_cast<std::uint64_t>(start);
  for (int step = start + 1; step <= c.steps; ++step) {
    Contribution part = contribute(c, state, a.worker, step);
    out.step = static_cast<std::uint64_t>(step);
    out.local_loss = part.local_loss;
    out.contrib = std::move(part.words);
    encode_frame(out, mine.data());
    send_all(a.fd, mine.data(), mine.size() * 8);
    // Here the step is half done: the contribution is out, the update not yet applied.
    if (!recv_all(a.fd, all.data(), all.size() * 8)) return kWorkerStopped;  // the job was stopped

    std::vector<Contribution> parts(static_cast<std::size_t>(c.workers));
    std::vector<ShardRecord> reported;
    for (int w = 0; w < c.workers; ++w) {
      const Frame f = decode_frame(all.data() + static_cast<std::size_t>(w) * fw, c.contrib_words);
      if (f.worker != static_cast<std::uint64_t>(w) || f.step != static_cast<std::uint64_t>(step))
        throw std::runtime_error("step " + std::to_string(step) + ": frame " + std::to_string(w) + " is worker " + std::to_string(f.worker) +
                                 " at step " + std::to_string(f.step));
      if (f.start_step != out.start_step)
        throw std::runtime_error("worker " + std::to_string(w) + " resumed from step " + std::to_string(f.start_step) + ", this one from " +
                                 std::to_string(out.start_step) + ": the workers see different checkpoints");
      parts[static_cast<std::size_t>(w)] = {f.contrib, f.local_loss};
      if (f.ckpt_step != kNoCheckpoint && f.ckpt_step == out.ckpt_step) reported.push_back({w, f.ckpt_bytes, f.ckpt_checksum});
    }
    const Reduced r = reduce(parts);
    if (a.worker == 0) {
      // Every worker reported its shard of the same step: the checkpoint is complete.
      if (out.ckpt_step != kNoCheckpoint && static_cast<int>(reported.size()) == c.workers)
        write_manifest(a.ckpt_root, c, static_cast<int>(out.ckpt_step), reported);
      std::uint64_t rec[2] = {static_cast<std::uint64_t>(step), 0};
      std::memcpy(&rec[1], &r.loss, 8);
      storage::write_all(losses.get(), rec, sizeof rec, losses_path(a.out_dir, a.attempt));
    }
    apply(c, state, a.worker, step, r);
    out.ckpt_step = kNoCheckpoint;
    if (step % c.every == 0 && step < c.steps) {
      const ShardRecord rec = write_shard(a.ckpt_root, c, a.worker, step, state);
      out.ckpt_step = static_cast<std::uint64_t>(step);
      out.ckpt_checksum = rec.checksum;
      out.ckpt_bytes = rec.bytes;
    }
  }
  const auto final_bytes = encode_shard(c, a.worker, c.steps, state);
  storage::write_file_atomic(final_path(a.out_dir, a.worker), final_bytes.data(), final_bytes.size());
  if (losses) storage::fsync_or_throw(losses.get(), losses_path(a.out_dir, a.attempt));
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
