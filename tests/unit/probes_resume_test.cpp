// resume: the deterministic job, the checkpoint and manifest formats, torn and corrupted
// checkpoints and the fallback, the byte comparisons, the restart mapping, the worker's
// protocol (driven from a thread), and the worker process (spawned for real).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "base/file_io.hpp"
#include "probes/resume/checkpoint.hpp"
#include "probes/resume/compare.hpp"
#include "probes/resume/damage.hpp"
#include "probes/resume/engine.hpp"
#include "probes/resume/frame.hpp"
#include "probes/resume/relay.hpp"
#include "probes/resume/worker.hpp"
#include "probes/resume/worker_process.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace ga::resume;

namespace {

JobConfig small(int workers = 3) {
  JobConfig c;
  c.workers = workers;
  c.steps = 40;
  c.every = 10;
  c.state_words = 64;
  c.contrib_words = 8;
  return c;
}

std::vector<State> fresh(const JobConfig& c) {
  std::vector<State> s;
  for (int w = 0; w < c.workers; ++w) s.push_back(initial_state(c, w));
  return s;
}

// Checkpoints at the given steps of an in-memory run, each with its manifest.
void write_checkpoints(const std::string& root, const JobConfig& c, const std::vector<int>& at) {
  auto states = fresh(c);
  int done = 0;
  for (int s : at) {
    run_in_memory(c, states, done, s, nullptr);
    done = s;
    std::vector<ShardRecord> recs;
    for (int w = 0; w < c.workers; ++w) recs.push_back(write_shard(root, c, w, s, states[static_cast<std::size_t>(w)]));
    write_manifest(root, c, s, recs);
  }
}

std::vector<unsigned char> loss_log(const std::vector<double>& losses, int first) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    std::uint64_t rec[2] = {static_cast<std::uint64_t>(first) + i, 0};
    std::memcpy(&rec[1], &losses[i], 8);
    const auto* p = reinterpret_cast<const unsigned char*>(rec);
    out.insert(out.end(), p, p + 16);
  }
  return out;
}

}  // namespace

TEST(ResumeJob, RunsAreBitIdenticalAndWorkersDiffer) {
  const auto c = small();
  auto a = fresh(c), b = fresh(c);
  std::vector<double> la, lb;
  run_in_memory(c, a, 0, c.steps, &la);
  run_in_memory(c, b, 0, c.steps, &lb);
  EXPECT_EQ(a, b);
  ASSERT_EQ(la.size(), static_cast<std::size_t>(c.steps));
  EXPECT_EQ(0, std::memcmp(la.data(), lb.data(), la.size() * 8));
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(la[0], la[1]);  // the loss moves from step to step
}

TEST(ResumeJob, ResumingFromACheckpointIsBitIdentical) {
  const auto c = small();
  auto ref = fresh(c);
  std::vector<double> lref;
  run_in_memory(c, ref, 0, c.steps, &lref);

  auto states = fresh(c);
  run_in_memory(c, states, 0, 20, nullptr);
  std::vector<std::vector<unsigned char>> shards;
  for (int w = 0; w < c.workers; ++w) shards.push_back(encode_shard(c, w, 20, states[static_cast<std::size_t>(w)]));
  std::vector<State> resumed;
  for (int w = 0; w < c.workers; ++w) {
    auto r = decode_shard(shards[static_cast<std::size_t>(w)], c, w, 20);
    ASSERT_TRUE(r.ok) << r.why;
    resumed.push_back(r.state);
  }
  std::vector<double> after;
  run_in_memory(c, resumed, 20, c.steps, &after);
  EXPECT_EQ(resumed, ref);
  const auto full = loss_log(lref, 1);
  EXPECT_EQ(loss_log(after, 21), std::vector<unsigned char>(full.begin() + 20 * 16, full.end()));
}

TEST(ResumeJob, AWrongResumeIsCaughtByTheComparison) {
  const auto c = small();
  auto ref = fresh(c);
  run_in_memory(c, ref, 0, c.steps, nullptr);
  // Workers handed each other's state (a mapping bug), or the state of the step before.
  auto swapped = fresh(c);
  run_in_memory(c, swapped, 0, 20, nullptr);
  std::swap(swapped[0], swapped[1]);
  run_in_memory(c, swapped, 20, c.steps, nullptr);
  EXPECT_NE(swapped, ref);
  auto stale = fresh(c);
  run_in_memory(c, stale, 0, 19, nullptr);
  run_in_memory(c, stale, 20, c.steps, nullptr);
  EXPECT_NE(stale, ref);
}

TEST(ResumeJob, BadConfigIsNamed) {
  auto c = small();
  c.every = 0;
  try {
    validate(c);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("every"), std::string::npos);
  }
}

TEST(ResumeCheckpoint, ShardRoundTripAndEveryDamageIsCaught) {
  const auto c = small();
  const auto s = initial_state(c, 1);
  auto b = encode_shard(c, 1, 10, s);
  auto r = decode_shard(b, c, 1, 10);
  ASSERT_TRUE(r.ok) << r.why;
  EXPECT_EQ(r.state, s);
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] ^= 0x10;
    EXPECT_FALSE(decode_shard(b, c, 1, 10).ok) << "flipped byte " << i;
    b[i] ^= 0x10;
  }
  auto torn = b;
  torn.resize(b.size() / 2);
  const auto t = decode_shard(torn, c, 1, 10);
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.why.find("torn or truncated"), std::string::npos) << t.why;
  EXPECT_FALSE(decode_shard(b, c, 2, 10).ok);   // another worker's shard
  EXPECT_FALSE(decode_shard(b, c, 1, 20).ok);   // another step's
}

TEST(ResumeCheckpoint, ManifestRoundTripAndDamage) {
  const auto c = small(2);
  const std::vector<ShardRecord> recs = {{0, 100, 0x1234}, {1, 100, 0x5678}};
  const auto text = encode_manifest(c, 10, recs);
  std::string why;
  auto m = decode_manifest(text, c, 10, &why);
  ASSERT_TRUE(m) << why;
  ASSERT_EQ(m->shards.size(), 2u);
  EXPECT_EQ(m->shards[1].checksum, 0x5678u);
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto bad = text;
    bad[i] = bad[i] == 'x' ? 'y' : 'x';
    EXPECT_FALSE(decode_manifest(bad, c, 10, &why)) << "changed char " << i;
  }
  EXPECT_FALSE(decode_manifest(text.substr(0, text.size() - 5), c, 10, &why));
  EXPECT_NE(why.find("torn"), std::string::npos) << why;
  EXPECT_FALSE(decode_manifest(text, c, 20, &why));  // says another step
  EXPECT_FALSE(decode_manifest(encode_manifest(c, 10, {recs[0]}), c, 10, &why));  // a shard missing
}

TEST(ResumeCheckpoint, NewestCompleteIsChosen) {
  ScratchDir d;
  const auto c = small();
  write_checkpoints(d.str(), c, {10, 20, 30});
  const auto ch = choose_resume(d.str(), c);
  EXPECT_EQ(ch.step, 30);
  EXPECT_TRUE(ch.skipped.empty());
  auto states = fresh(c);
  run_in_memory(c, states, 0, 30, nullptr);
  EXPECT_EQ(load_state(d.str(), c, 2, 30), states[2]);
}

TEST(ResumeCheckpoint, NoManifestMeansIncompleteAndFallsBack) {
  ScratchDir d;
  const auto c = small();
  write_checkpoints(d.str(), c, {10, 20});
  fs::remove(manifest_path(d.str(), 20));
  const auto ch = choose_resume(d.str(), c);
  EXPECT_EQ(ch.step, 10);
  ASSERT_EQ(ch.skipped.size(), 1u);
  EXPECT_EQ(ch.skipped[0].step, 20);
  EXPECT_NE(ch.skipped[0].why.find("no manifest"), std::string::npos) << ch.skipped[0].why;
}

TEST(ResumeCheckpoint, TruncatedThenCorruptedFallBackTwoWithReasons) {
  ScratchDir d;
  const auto c = small();
  write_checkpoints(d.str(), c, {10, 20, 30});
  const auto dmg = damage_checkpoints(d.str(), c, "both");
  ASSERT_EQ(dmg.steps, (std::vector<int>{30, 20}));
  const auto ch = choose_resume(d.str(), c);
  EXPECT_EQ(ch.step, 10);
  ASSERT_EQ(ch.skipped.size(), 2u);
  EXPECT_NE(ch.skipped[0].why.find("torn or truncated"), std::string::npos) << ch.skipped[0].why;
  EXPECT_NE(ch.skipped[1].why.find("corrupted"), std::string::npos) << ch.skipped[1].why;
  EXPECT_THROW(load_state(d.str(), c, 0, 30), std::runtime_error);
}

TEST(ResumeCheckpoint, AShardSwappedForAnIntactOneOfAnotherRunIsCaught) {
  ScratchDir a, b;
  auto c = small();
  write_checkpoints(a.str(), c, {10});
  c.seed = 99;  // another run: valid shards, different contents
  write_checkpoints(b.str(), c, {10});
  fs::copy_file(shard_path(b.str(), 10, 1), shard_path(a.str(), 10, 1), fs::copy_options::overwrite_existing);
  const auto v = verify_checkpoint(a.str(), c, 10);
  EXPECT_FALSE(v.complete);
  EXPECT_NE(v.why.find("not the one the manifest lists"), std::string::npos) << v.why;
}

TEST(ResumeCheckpoint, NothingUsableStartsFromTheBeginning) {
  ScratchDir d;
  const auto c = small();
  EXPECT_EQ(choose_resume(d.str(), c).step, 0);
  write_checkpoints(d.str(), c, {10});
  damage_checkpoints(d.str(), c, "flip");
  const auto ch = choose_resume(d.str(), c);
  EXPECT_EQ(ch.step, 0);
  EXPECT_EQ(ch.skipped.size(), 1u);
  EXPECT_EQ(load_state(d.str(), c, 1, 0), initial_state(c, 1));
  EXPECT_THROW(damage_checkpoints(d.str(), c, "truncate"), std::runtime_error);  // none complete left
  EXPECT_THROW(damage_checkpoints(d.str(), c, "melt"), std::invalid_argument);
}

TEST(ResumeCompare, LossLogsByteForByte) {
  const std::vector<double> l = {0.5, 0.25, 0.125, 0.0625};
  const auto ref = loss_log(l, 1);
  auto tail = loss_log({0.125, 0.0625}, 3);
  auto cmp = compare_losses(ref, tail, 3, 4);
  EXPECT_TRUE(cmp.identical) << cmp.why;
  EXPECT_EQ(cmp.steps_compared, 2);
  double off = std::nextafter(0.125, 1.0);
  auto wrong = loss_log({off, 0.0625}, 3);
  cmp = compare_losses(ref, wrong, 3, 4);
  EXPECT_FALSE(cmp.identical);
  EXPECT_EQ(cmp.first_difference, 3);
  cmp = compare_losses(ref, loss_log({0.125}, 3), 3, 4);
  EXPECT_FALSE(cmp.identical);
  EXPECT_EQ(cmp.first_difference, 4);
  cmp = compare_losses(ref, loss_log({0.125, 0.0625}, 3), 2, 3);  // steps shifted by one
  EXPECT_FALSE(cmp.identical);
}

TEST(ResumeCompare, FilesByteForByte) {
  ScratchDir d;
  const std::string a = (d.p / "a").string(), b = (d.p / "b").string();
  ga::base::write_file_atomic(a, "abcd", 4);
  ga::base::write_file_atomic(b, "abcd", 4);
  std::string why;
  EXPECT_TRUE(same_file_bytes(a, b, &why));
  ga::base::write_file_atomic(b, "abXd", 4);
  EXPECT_FALSE(same_file_bytes(a, b, &why));
  EXPECT_NE(why.find("byte 2"), std::string::npos) << why;
  EXPECT_FALSE(same_file_bytes(a, (d.p / "absent").string(), &why));
}

TEST(ResumeMapping, ShiftMovesEveryWorkerToAnotherHostWhenItCan) {
  auto s = shift_for_restart({"a", "a", "b", "b"});
  EXPECT_EQ(s.shift, 2);
  EXPECT_TRUE(s.all_hosts_changed);
  s = shift_for_restart({"a", "b", "c"});
  EXPECT_EQ(s.shift, 1);
  EXPECT_TRUE(s.all_hosts_changed);
  s = shift_for_restart({"a", "a", "a"});
  EXPECT_EQ(s.shift, 1);
  EXPECT_FALSE(s.all_hosts_changed);
  s = shift_for_restart({"a", "a", "a", "b"});  // no shift moves all three of a's workers off a
  EXPECT_FALSE(s.all_hosts_changed);
  EXPECT_EQ(shift_for_restart({"a"}).shift, 0);
}

TEST(ResumeWorker, ArgumentsRoundTripAndBadOnesAreNamed) {
  WorkerArgs a;
  a.job = small(4);
  a.worker = 3;
  a.ckpt_root = "/x/ckpt";
  a.out_dir = "/x";
  a.attempt = "restart";
  a.resume = true;
  const auto back = parse_worker_args(worker_argv(a));
  EXPECT_EQ(back.worker, 3);
  EXPECT_EQ(back.job.workers, 4);
  EXPECT_EQ(back.job.state_words, a.job.state_words);
  EXPECT_TRUE(back.resume);
  EXPECT_EQ(worker_argv(back), worker_argv(a));
  EXPECT_FALSE(back.gpu);
  a.gpu = true;
  a.gpu_slot = 5;
  a.nccl_library = "/opt/nccl/lib/libnccl.so.2";
  const auto gpu = parse_worker_args(worker_argv(a));
  EXPECT_TRUE(gpu.gpu);
  EXPECT_EQ(gpu.gpu_slot, 5);
  EXPECT_EQ(gpu.nccl_library, a.nccl_library);
  EXPECT_EQ(gpu.cuda_library, "");
  auto bad = worker_argv(a);
  bad[1] = "4";  // --worker 4 of 4
  EXPECT_THROW(parse_worker_args(bad), std::invalid_argument);
  EXPECT_THROW(parse_worker_args({"--steps", "ten"}), std::invalid_argument);
  EXPECT_THROW(parse_worker_args({"--bogus", "1"}), std::invalid_argument);
}

TEST(ResumeFrame, RoundTripAndBadMagic) {
  Frame f;
  f.step = 7;
  f.worker = 2;
  f.local_loss = 0.3;
  f.ckpt_step = 5;
  f.ckpt_checksum = 0xabc;
  f.ckpt_bytes = 99;
  f.start_step = 4;
  f.contrib = {1, 2, 3};
  std::vector<std::uint64_t> w(frame_words(3));
  encode_frame(f, w.data());
  const auto g = decode_frame(w.data(), 3);
  EXPECT_EQ(g.step, 7u);
  EXPECT_EQ(g.local_loss, 0.3);
  EXPECT_EQ(g.contrib, f.contrib);
  EXPECT_EQ(g.start_step, 4u);
  w[0] ^= 1;
  EXPECT_THROW(decode_frame(w.data(), 3), std::runtime_error);
}

namespace {
// Plays the gpuaccept rank for a one-worker job in this process: echoes each frame back,
// and hangs up after `stop_after` steps (0: never).
int drive_worker(const WorkerArgs& a, int stop_after, std::vector<Frame>* seen) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  WorkerArgs mine = a;
  mine.fd = sv[1];
  int rc = -1;
  std::thread t([&] { rc = run_worker(mine); ::shutdown(sv[1], SHUT_RDWR); });
  const std::uint64_t cw = frame_contrib_words(a.job, a.gpu);
  std::vector<std::uint64_t> buf(frame_words(cw));
  int steps = 0;
  while (recv_all(sv[0], buf.data(), buf.size() * 8)) {
    seen->push_back(decode_frame(buf.data(), cw));
    if (stop_after > 0 && ++steps == stop_after) break;
    send_all(sv[0], buf.data(), buf.size() * 8);
  }
  ::shutdown(sv[0], SHUT_RDWR);
  t.join();
  ::close(sv[0]);
  ::close(sv[1]);
  return rc;
}

// A one-worker job in DIR/ckpt and DIR/OUT, the uninterrupted attempt.
WorkerArgs one_worker(const fs::path& dir, const std::string& out) {
  WorkerArgs a;
  a.job = small(1);
  a.worker = 0;
  a.ckpt_root = (dir / "ckpt").string();
  a.out_dir = (dir / out).string();
  a.attempt = "baseline";
  return a;
}

// The restarted run `b` ended as the uninterrupted `a`: final state and the loss of every step
// after the resume point, byte for byte.
void expect_same_ending(const WorkerArgs& a, const WorkerArgs& b, int resumed_from) {
  std::string why;
  EXPECT_TRUE(same_file_bytes(final_path(a.out_dir, 0), final_path(b.out_dir, 0), &why)) << why;
  const auto ref = ga::base::read_whole_file(losses_path(a.out_dir, "baseline"));
  const auto after = ga::base::read_whole_file(losses_path(b.out_dir, "restart"));
  const auto cmp = compare_losses(ref, after, resumed_from + 1, a.job.steps);
  EXPECT_TRUE(cmp.identical) << cmp.why;
  EXPECT_EQ(cmp.steps_compared, a.job.steps - resumed_from);
}
}  // namespace

TEST(ResumeWorker, AStoppedWorkerResumesFromItsCheckpointsBitForBit) {
  ScratchDir d;
  const WorkerArgs a = one_worker(d.p, "ref");
  std::vector<Frame> seen;
  ASSERT_EQ(drive_worker(a, 0, &seen), kWorkerDone);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(a.job.steps));
  EXPECT_EQ(seen[10].step, 11u);
  EXPECT_EQ(seen[10].ckpt_step, 10u);  // the shard of step 10 is reported with step 11

  // The same job, stopped in step 25 (after the checkpoint of 20 was reported), then resumed.
  WorkerArgs b = a;
  b.ckpt_root = (d.p / "ckpt2").string();
  b.out_dir = (d.p / "run").string();
  b.attempt = "first";
  seen.clear();
  EXPECT_EQ(drive_worker(b, 25, &seen), kWorkerStopped);
  b.attempt = "restart";
  b.resume = true;
  seen.clear();
  ASSERT_EQ(drive_worker(b, 0, &seen), kWorkerDone);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().step, 21u);
  EXPECT_EQ(seen.front().start_step, 20u);
  expect_same_ending(a, b, 20);
}

TEST(ResumeWorkerProcess, SigkillIsSeenByWaitpidAndTheSignalMaskIsNotInherited) {
  ScratchDir d;
  const std::string log = (d.p / "log").string();
  {
    WorkerProcess p("/bin/sh", {"-c", "sleep 30"}, log);
    p.signal(SIGKILL);
    const int st = p.wait();
    EXPECT_TRUE(WIFSIGNALED(st));
    EXPECT_EQ(describe_wait_status(st), "killed by SIGKILL");
  }
  // The gpuaccept rank blocks SIGTERM for its signal thread; a worker must still die of it.
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  {
    WorkerProcess p("/bin/sh", {"-c", "kill -TERM $$; sleep 5"}, log);
    EXPECT_EQ(describe_wait_status(p.wait()), "killed by SIGTERM");
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  {
    WorkerProcess p("/bin/sh", {"-c", "echo to-the-log; exit 3"}, log);
    EXPECT_EQ(describe_wait_status(p.wait()), "exited with code 3");
  }
  const auto text = ga::base::read_whole_file(log);
  EXPECT_NE(std::string(text.begin(), text.end()).find("to-the-log"), std::string::npos);
  EXPECT_THROW(WorkerProcess("/nonexistent/gpuaccept", {}, log), std::runtime_error);
}

// ---------------------------------------------------------------- the job in GPU memory
// The fake libcuda interprets the very PTX gpuaccept ships (tests/fakes/fake_ptx.cpp), and
// the fake NCCL reduces for real, so these tests check the kernels' arithmetic and the
// engine's calls without a GPU.
namespace {
GpuEngineOptions fake_gpu(const JobConfig& c, int worker) {
  GpuEngineOptions o;
  o.job = c;
  o.worker = worker;
  o.cuda_library = GA_FAKE_CUDA_OK;
  o.nccl_library = GA_FAKE_NCCL;
  return o;
}
}  // namespace

TEST(ResumeGpuEngine, KernelsComputeTheHostJobBitForBit) {
  for (const auto& [words, m] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{4096, 64}, {1000, 7}, {300, 300}}) {
    JobConfig c = small(1);
    c.state_words = words;
    c.contrib_words = m;
    State host = initial_state(c, 0);
    auto gpu = make_gpu_engine(fake_gpu(c, 0), host);
    ASSERT_TRUE(gpu->needs_hello());
    gpu->connect(gpu->hello_words());  // one worker: its own NCCL id
    for (int step = 1; step <= 5; ++step) {
      const Contribution want = contribute(c, host, 0, step);
      const Contribution got = gpu->contribute(step);
      EXPECT_EQ(std::memcmp(&got.local_loss, &want.local_loss, 8), 0) << "step " << step << ": " << got.local_loss << " vs " << want.local_loss;
      const Reduced r = reduce({want});
      apply(c, host, 0, step, r);
      gpu->apply(step, reduce({got}));
      ASSERT_EQ(gpu->snapshot(), host) << "words " << words << " m " << m << " step " << step;
    }
  }
}

TEST(ResumeGpuEngine, AMissingLibraryIsNamed) {
  JobConfig c = small(1);
  auto o = fake_gpu(c, 0);
  o.nccl_library = "/nonexistent/libnccl.so.2";
  try {
    make_gpu_engine(o, initial_state(c, 0));
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL cannot be loaded"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libnccl.so.2"), std::string::npos) << e.what();
  }
}

TEST(ResumeGpuEngine, AStoppedGpuWorkerResumesBitForBitAndMatchesTheHostRun) {
  ScratchDir d;
  const WorkerArgs a = one_worker(d.p, "host");
  std::vector<Frame> seen;
  ASSERT_EQ(drive_worker(a, 0, &seen), kWorkerDone);  // the host engine: the reference

  WorkerArgs g = a;
  g.gpu = true;
  g.cuda_library = GA_FAKE_CUDA_OK;
  g.nccl_library = GA_FAKE_NCCL;
  g.ckpt_root = (d.p / "gckpt").string();
  g.out_dir = (d.p / "gpu").string();
  g.attempt = "first";
  seen.clear();
  EXPECT_EQ(drive_worker(g, 26, &seen), kWorkerStopped);  // hello + 25 steps, then hung up
  ASSERT_EQ(seen.size(), 26u);
  EXPECT_EQ(seen.front().step, 0u);  // the hello frame carries the NCCL id
  g.attempt = "restart";
  g.resume = true;
  seen.clear();
  ASSERT_EQ(drive_worker(g, 0, &seen), kWorkerDone);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().step, 20u);  // hello at the resume point
  EXPECT_EQ(seen.front().start_step, 20u);
  EXPECT_EQ(seen.at(1).step, 21u);
  expect_same_ending(a, g, 20);  // the GPU run ends in the host run's bits
}
