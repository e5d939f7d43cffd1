#include "base/file_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <ctime>
#include <thread>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <streambuf>

namespace ga::base {

namespace {

std::runtime_error os_error(const std::string& what, const std::string& path, int err) {
  return std::runtime_error(what + " " + path + ": " + errno_text(err));
}

// Streams into an AtomicFile through a fixed buffer.
class AtomicFileBuf : public std::streambuf {
 public:
  explicit AtomicFileBuf(AtomicFile& f) : file_(f) { setp(buf_, buf_ + sizeof buf_); }
  int sync() override {
    file_.write(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buf_, buf_ + sizeof buf_);
    return 0;
  }
  int_type overflow(int_type c) override {
    sync();
    if (c != traits_type::eof()) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

 private:
  AtomicFile& file_;
  char buf_[1 << 16];
};

}  // namespace

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string errno_text(int err) { return std::strerror(err); }

UniqueFd open_or_throw(const std::string& path, int flags, int mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) throw os_error("cannot open", path, errno);
  return UniqueFd(fd);
}

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  auto p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw os_error("cannot write", path, errno);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

std::size_t read_full(int fd, void* data, std::size_t n, const std::string& path) {
  auto p = static_cast<char*>(data);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw os_error("cannot read", path, errno);
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

void fsync_or_throw(int fd, const std::string& path) {
  if (::fsync(fd) != 0) throw os_error("cannot fsync", path, errno);
}

FileLock::FileLock(int fd, double wait_s) : fd_(fd) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  for (;;) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
      held_ = true;
      return;
    }
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= until) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

FileLock::~FileLock() {
  if (held_) ::flock(fd_, LOCK_UN);
}

void fsync_dir(const std::string& dir) {
  const std::string d = dir.empty() ? std::string(".") : dir;
  UniqueFd fd = open_or_throw(d, O_RDONLY | O_DIRECTORY);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) throw os_error("cannot fsync directory", d, errno);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp-XXXXXX") {
  fd_ = ::mkostemp(tmp_.data(), O_CLOEXEC);
  if (fd_ < 0) throw os_error("cannot create", tmp_, errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

void AtomicFile::write(const void* data, std::size_t n) {
  write_all(fd_, data, n, tmp_);
  written_ += n;
  stream_out();
}

// Only hints to the kernel: what they return is ignored (a filesystem without writeback
// ranges says EINVAL or ESPIPE), because commit()'s fsync is what makes the bytes durable and
// reports any write error. Why they pay here: in the virtual machines this was measured on,
// a page the guest had never used costs a trap to the hypervisor on first write, and a 1.4
// GiB file written through fresh cache pages took 2.7-3.1 s (1.9-2.2 s of it the kernel's
// copy); written this way, 1.0 s (0.2 s) (docs/performance.md#report_scale-at-4096-hosts).
void AtomicFile::stream_out() {
  while (written_ - sent_ >= kStreamWindow) {
    (void)::sync_file_range(fd_, static_cast<off_t>(sent_), kStreamWindow, SYNC_FILE_RANGE_WRITE);
    if (sent_ >= kStreamWindow) {
      // The window before: its writeback has had a window's time; wait for the rest of it so
      // that its pages are clean, then drop them (DONTNEED leaves dirty pages where they are).
      const auto before = static_cast<off_t>(sent_ - kStreamWindow);
      (void)::sync_file_range(fd_, before, kStreamWindow,
                              SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
      (void)::posix_fadvise(fd_, before, kStreamWindow, POSIX_FADV_DONTNEED);
    }
    sent_ += kStreamWindow;
  }
}

void AtomicFile::commit() {
  // mkstemp makes 0600; what these files hold (reports, checkpoints) is for sharing.
  if (::fchmod(fd_, 0644) != 0) throw os_error("cannot chmod", tmp_, errno);
  fsync_or_throw(fd_, tmp_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw os_error("cannot close", tmp_, errno);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) throw os_error("cannot rename " + tmp_ + " to", path_, errno);
  committed_ = true;
  fsync_dir(std::filesystem::path(path_).parent_path().string());
}

void write_file_atomic(const std::string& path, const void* data, std::size_t n) {
  AtomicFile f(path);
  f.write(data, n);
  f.commit();
}

void write_file_atomic(const std::string& path, std::string_view text) {
  write_file_atomic(path, text.data(), text.size());
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  AtomicFile f(path);
  {
    AtomicFileBuf buf(f);
    std::ostream out(&buf);
    // A write error inside the buffer throws from sync(); it reaches the caller as it is.
    out.exceptions(std::ios::badbit);
    fill(out);
    out.flush();
  }
  f.commit();
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

}  // namespace ga::base
