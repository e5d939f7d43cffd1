#include "probes/resume/frame.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ga::resume {

void encode_frame(const Frame& f, std::uint64_t* out) {
  out[0] = kFrameMagic;
  out[1] = f.step;
  out[2] = f.worker;
  std::memcpy(&out[3], &f.local_loss, 8);
  out[4] = f.ckpt_step;
  out[5] = f.ckpt_checksum;
  out[6] = f.ckpt_bytes;
  out[7] = f.start_step;
  std::memcpy(out + kFrameHeaderWords, f.contrib.data(), f.contrib.size() * 8);
}

Frame decode_frame(const std::uint64_t* in, std::uint64_t contrib_words) {
  if (in[0] != kFrameMagic) throw std::runtime_error("resume frame: bad magic (the two sides disagree on the frame size?)");
  Frame f;
  f.step = in[1];
  f.worker = in[2];
  std::memcpy(&f.local_loss, &in[3], 8);
  f.ckpt_step = in[4];
  f.ckpt_checksum = in[5];
  f.ckpt_bytes = in[6];
  f.start_step = in[7];
  f.contrib.assign(in + kFrameHeaderWords, in + kFrameHeaderWords + contrib_words);
  return f;
}

bool recv_all(int fd, void* buf, std::size_t n) {
  auto p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == ECONNRESET) return false;
      throw std::runtime_error(std::string("resume: read from peer failed: ") + std::strerror(errno));
    }
    if (r == 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

void send_all(int fd, const void* buf, std::size_t n) {
  auto p = static_cast<const char*>(buf);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("resume: send to peer failed: ") + std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace ga::resume
