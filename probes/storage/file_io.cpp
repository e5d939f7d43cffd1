#include "probes/storage/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

namespace ga::storage {

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string errno_text(int err) { return std::strerror(err); }

UniqueFd open_or_throw(const std::string& path, int flags, int mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + errno_text(errno));
  return UniqueFd(fd);
}

void write_all(int fd, const void* data, std::size_t n, const std::string& what) {
  auto p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write " + what + ": " + errno_text(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

std::size_t read_full(int fd, void* data, std::size_t n, const std::string& what) {
  auto p = static_cast<char*>(data);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot read " + what + ": " + errno_text(errno));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

void fsync_or_throw(int fd, const std::string& what) {
  if (::fsync(fd) != 0) throw std::runtime_error("fsync of " + what + " failed: " + errno_text(errno));
}

void fsync_dir(const std::string& dir) {
  UniqueFd d = open_or_throw(dir, O_RDONLY | O_DIRECTORY);
  // Some network filesystems refuse fsync on a directory (EINVAL); the rename is then as
  // durable as that filesystem makes it, which is all a job could get there too.
  if (::fsync(d.get()) != 0 && errno != EINVAL) throw std::runtime_error("fsync of directory " + dir + " failed: " + errno_text(errno));
}

void write_file_atomic(const std::string& path, const void* data, std::size_t n) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    UniqueFd fd = open_or_throw(tmp, O_WRONLY | O_CREAT | O_TRUNC);
    write_all(fd.get(), data, n, tmp);
    fsync_or_throw(fd.get(), tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + errno_text(err));
  }
  fsync_dir(fs::path(path).parent_path().string());
}

std::vector<unsigned char> read_whole_file(const std::string& path) {
  UniqueFd fd = open_or_throw(path, O_RDONLY);
  std::vector<unsigned char> out;
  unsigned char buf[1 << 16];
  for (;;) {
    std::size_t got = read_full(fd.get(), buf, sizeof buf, path);
    out.insert(out.end(), buf, buf + got);
    if (got < sizeof buf) break;
  }
  return out;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string unique_dir_name(const std::string& purpose) {
  char buf[64];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return "gpuaccept-" + purpose + "-" + buf + "-" + std::to_string(::getpid());
}

}  // namespace ga::storage
