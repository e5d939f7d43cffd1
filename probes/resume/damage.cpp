#include "probes/resume/damage.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "base/file_io.hpp"
#include "probes/resume/checkpoint.hpp"

namespace ga::resume {

namespace fs = std::filesystem;

namespace {

std::vector<int> complete_steps(const std::string& root, const JobConfig& c) {
  std::vector<int> out;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("step-", 0) != 0 || name.size() != 13) continue;
    const int s = std::stoi(name.substr(5));
    if (verify_checkpoint(root, c, s).complete) out.push_back(s);
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

std::string truncate_shard(const std::string& root, int step) {
  const std::string p = shard_path(root, step, 0);
  const auto size = fs::file_size(p);
  if (::truncate(p.c_str(), static_cast<off_t>(size / 2)) != 0)
    throw std::runtime_error("cannot truncate " + p + ": " + base::errno_text(errno));
  return "truncated " + p + " from " + std::to_string(size) + " to " + std::to_string(size / 2) + " bytes";
}

std::string flip_byte(const std::string& root, const JobConfig& c, int step) {
  const std::string p = shard_path(root, step, c.workers - 1);
  const auto size = fs::file_size(p);
  const off_t at = static_cast<off_t>(size / 2);
  base::UniqueFd fd = base::open_or_throw(p, O_RDWR);
  unsigned char b = 0;
  if (::pread(fd.get(), &b, 1, at) != 1) throw std::runtime_error("cannot read " + p);
  b ^= 0x01;
  if (::pwrite(fd.get(), &b, 1, at) != 1) throw std::runtime_error("cannot write " + p);
  base::fsync_or_throw(fd.get(), p);
  return "flipped one bit of byte " + std::to_string(at) + " of " + p;
}

}  // namespace

Damage damage_checkpoints(const std::string& root, const JobConfig& c, const std::string& kind) {
  if (kind != "truncate" && kind != "flip" && kind != "both")
    throw std::invalid_argument("resume: damage must be none, truncate, flip or both, not \"" + kind + "\"");
  const auto steps = complete_steps(root, c);
  const std::size_t need = kind == "both" ? 2 : 1;
  if (steps.size() < need)
    throw std::runtime_error("resume: damage=" + kind + " needs " + std::to_string(need) + " complete checkpoints in " + root + ", found " +
                             std::to_string(steps.size()));
  Damage d;
  if (kind == "truncate" || kind == "both") {
    d.done.push_back(truncate_shard(root, steps[0]));
    d.steps.push_back(steps[0]);
  }
  if (kind == "flip") {
    d.done.push_back(flip_byte(root, c, steps[0]));
    d.steps.push_back(steps[0]);
  }
  if (kind == "both") {
    d.done.push_back(flip_byte(root, c, steps[1]));
    d.steps.push_back(steps[1]);
  }
  return d;
}

}  // namespace ga::resume
