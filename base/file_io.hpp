// POSIX file helpers for every layer: an owned descriptor, whole writes and reads that survive
// short transfers and EINTR, fsync of files and directories, and files that appear whole or
// not at all (a temp file beside the target, fsync, rename, fsync of the directory). The one
// implementation behind the journal, the report writer, the storage probe and the resume job.
// Errors throw std::runtime_error naming the path and the errno text.
#pragma once
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace ga::base {

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

// flock(2) LOCK_EX on an open descriptor for the life of the object, waiting at most `wait_s`.
// held() is false when the wait ran out or the filesystem has no locks (ENOLCK, EOPNOTSUPP,
// ENOSYS: Lustre mounted without -o flock): the caller goes on unlocked, as it must when the
// lock guards a write made while a job is being torn down. Unlocked when destroyed (and by the
// kernel when the process dies holding it).
class FileLock {
 public:
  FileLock(int fd, double wait_s);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool held() const { return held_; }
 private:
  int fd_;
  bool held_ = false;
};

std::string errno_text(int err);
// open(2) with O_CLOEXEC added; "cannot open PATH: <errno text>" on failure.
UniqueFd open_or_throw(const std::string& path, int flags, int mode = 0644);
// Writes all n bytes (retrying short writes and EINTR); `path` names the file in errors.
void write_all(int fd, const void* data, std::size_t n, const std::string& path);
// Reads exactly n bytes; returns how many were there before end of file.
std::size_t read_full(int fd, void* data, std::size_t n, const std::string& path);
void fsync_or_throw(int fd, const std::string& path);
// Makes a rename or a create in `dir` durable ("" means the current directory). A filesystem
// that refuses fsync on a directory (EINVAL, some network filesystems) is accepted: the rename
// is then as durable as that filesystem makes it.
void fsync_dir(const std::string& dir);

// A file that becomes PATH whole or not at all. The bytes go to a temp file of a unique name
// beside PATH (PATH.tmp-XXXXXX, same directory so the rename cannot cross filesystems);
// commit() gives it mode 0644, fsyncs and closes it, renames it over PATH and fsyncs the
// directory. Destroyed without a commit (an error on the way), the temp file is removed and
// an existing PATH is left as it was.
//
// A large file is handed to the disk as it is written, not all at the fsync: every 32 MiB the
// window just written is sent (sync_file_range) and the one before it, written by then, is
// dropped from the page cache (posix_fadvise DONTNEED). The bytes, the fsync and the errors are
// the same; what changes is that a report of gigabytes (report.json is 1.4 GiB at 4096 hosts)
// reuses a few windows' worth of cache pages instead of taking fresh ones for all of it, and
// does not push out of the cache what the rest of the run reads (docs/design.md).
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t n);
  void commit();
  const std::string& path() const { return path_; }

  // The size of the windows handed to the disk and dropped from the cache behind the writer.
  static constexpr std::size_t kStreamWindow = std::size_t{32} << 20;

 private:
  void stream_out();  // the writeback and dropping of whole windows behind the writer

  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
  std::size_t written_ = 0, sent_ = 0;  // bytes written; bytes whose writeback has been started
};

// Writes PATH durably through an AtomicFile.
void write_file_atomic(const std::string& path, const void* data, std::size_t n);
void write_file_atomic(const std::string& path, std::string_view text);
// The same, for text produced by a writer: `fill` streams into the file through a fixed buffer,
// so a large text is never held whole in memory. An exception from `fill` or from a write
// reaches the caller as it is, and PATH is left untouched.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& fill);

std::vector<unsigned char> read_whole_file(const std::string& path);  // throws if absent
bool file_exists(const std::string& path);
// "gpuaccept-<purpose>-YYYYmmdd-HHMMSS-<pid>": a scratch directory in the shared directory,
// named apart from earlier runs (time, UTC) and from other processes (pid).
std::string unique_dir_name(const std::string& purpose);

}  // namespace ga::base
