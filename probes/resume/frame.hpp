// What a resume worker and the gpuaccept rank that runs it say to each other each step,
// over a socket pair. The worker sends one frame (its contribution); the rank relays every
// worker's frame, in worker order, back to each worker, which reduces them itself.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ga::resume {

inline constexpr std::uint64_t kFrameMagic = 0x314d524657524147ULL;  // "GARWFRM1"
inline constexpr std::uint64_t kNoCheckpoint = ~std::uint64_t{0};
inline constexpr std::size_t kFrameHeaderWords = 8;

struct Frame {
  std::uint64_t step = 0;
  std::uint64_t worker = 0;
  double local_loss = 0;
  // The shard this worker finished after the previous step (kNoCheckpoint if none), so that
  // worker 0 can write the manifest once every worker has reported the same step.
  std::uint64_t ckpt_step = kNoCheckpoint, ckpt_checksum = 0, ckpt_bytes = 0;
  std::uint64_t start_step = 0;        // the checkpoint this process resumed from (0: fresh)
  std::vector<std::uint64_t> contrib;
};

inline std::size_t frame_words(std::uint64_t contrib_words) { return kFrameHeaderWords + contrib_words; }
void encode_frame(const Frame&, std::uint64_t* out);  // frame_words(contrib.size()) words
// Throws std::runtime_error on a bad magic.
Frame decode_frame(const std::uint64_t* in, std::uint64_t contrib_words);

// Whole-buffer socket I/O. recv: false on end of file (the peer is gone); send never raises
// SIGPIPE. Both throw on other errors.
bool recv_all(int fd, void* buf, std::size_t n);
void send_all(int fd, const void* buf, std::size_t n);

}  // namespace ga::resume
