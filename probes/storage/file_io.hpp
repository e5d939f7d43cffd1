// Small POSIX file helpers for storage and resume: an owned descriptor, whole writes and
// reads that survive short transfers and EINTR, and directory fsync (a rename is durable only
// once its directory is). Errors throw std::runtime_error naming the path and errno text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ga::storage {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) { reset(); fd_ = o.release(); }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() { int f = fd_; fd_ = -1; return f; }
  void reset();
 private:
  int fd_ = -1;
};

std::string errno_text(int err);
UniqueFd open_or_throw(const std::string& path, int flags, int mode = 0644);
void write_all(int fd, const void* data, std::size_t n, const std::string& what);
// Reads exactly n bytes; returns how many were there before end of file.
std::size_t read_full(int fd, void* data, std::size_t n, const std::string& what);
void fsync_or_throw(int fd, const std::string& what);
void fsync_dir(const std::string& dir);
// Writes data to PATH durably: a temporary name beside it, fsync, rename, fsync of the directory.
void write_file_atomic(const std::string& path, const void* data, std::size_t n);
std::vector<unsigned char> read_whole_file(const std::string& path);  // throws if absent
bool file_exists(const std::string& path);
// "gpuaccept-<purpose>-YYYYmmdd-HHMMSS-<pid>": a scratch directory in the shared directory,
// named apart from earlier runs (time, UTC) and from other processes (pid).
std::string unique_dir_name(const std::string& purpose);

}  // namespace ga::storage
