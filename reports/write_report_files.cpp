// Writes report.json, report.md, report.html and report.junit.xml so that a reader (or a
// crash) never sees half a file: each goes to a temp file in the same directory, is fsync'd, then renamed over the final
// name, and the directory is fsync'd so the rename itself survives a power loss.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "reports/report.hpp"

namespace ga {
namespace {

std::runtime_error os_error(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

void write_all(int fd, const char* data, std::size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw os_error("cannot write", path);
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

// A temp file that becomes `final_path` on commit() and is removed if never committed.
class AtomicFile {
 public:
  explicit AtomicFile(std::string final_path) : final_(std::move(final_path)), tmp_(final_ + ".tmp-XXXXXX") {
    fd_ = ::mkstemp(tmp_.data());
    if (fd_ < 0) throw os_error("cannot create", tmp_);
  }
  ~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const char* data, std::size_t n) { write_all(fd_, data, n, tmp_); }

  void commit() {
    // mkstemp makes 0600; a report is for sharing, so give it the usual 0644.
    if (::fchmod(fd_, 0644) != 0) throw os_error("cannot chmod", tmp_);
    if (::fsync(fd_) != 0) throw os_error("cannot fsync", tmp_);
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw os_error("cannot close", tmp_);
    if (::rename(tmp_.c_str(), final_.c_str()) != 0) throw os_error("cannot rename to " + final_ + ":", tmp_);
    committed_ = true;
  }

 private:
  std::string final_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Streams into an AtomicFile through a fixed buffer, so the JSON text of a large run is never
// held whole in memory.
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

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) throw os_error("cannot open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw os_error("cannot fsync directory", dir);
}

}  // namespace

void write_report_files(const Report& r, const std::string& dir) {
  std::filesystem::create_directories(dir);
  {
    AtomicFile f(dir + "/report.json");
    AtomicFileBuf buf(f);
    std::ostream out(&buf);
    // A write error inside the buffer throws from sync(); let it reach the caller as it is.
    out.exceptions(std::ios::badbit);
    write_report_json(r, out);
    out.flush();
    f.commit();
  }
  auto write_whole = [&](const char* name, const std::string& text) {
    AtomicFile f(dir + "/" + name);
    f.write(text.data(), text.size());
    f.commit();
  };
  write_whole("report.md", report_to_markdown(r));
  write_whole("report.html", report_to_html(r));
  write_whole("report.junit.xml", report_to_junit(r));
  fsync_dir(dir);
}

}  // namespace ga
