#include "probes/sdc/sdc_check.hpp"

#include <algorithm>
#include <map>
#include <thread>

#include "base/checksum.hpp"
#include "base/sha256.hpp"

namespace ga::sdc {

std::vector<std::uint64_t> inputs(const Workload& w) {
  std::vector<std::uint64_t> in(w.elements);
  for (std::uint64_t i = 0; i < w.elements; ++i) in[i] = base::mix64(w.seed + i);
  return in;
}

std::uint64_t expected_of(std::uint64_t x, std::uint64_t rounds) {
  for (std::uint64_t r = 0; r < rounds; ++r) x = base::mix64(x);
  return x;
}

std::vector<std::uint64_t> expected(const std::vector<std::uint64_t>& in, std::uint64_t rounds, unsigned threads) {
  std::vector<std::uint64_t> out(in.size());
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, in.size() / 4096))));
  std::vector<std::jthread> workers;
  const std::size_t per = (in.size() + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const std::size_t end = std::min(in.size(), (t + 1) * per);
      for (std::size_t i = t * per; i < end; ++i) out[i] = expected_of(in[i], rounds);
    });
  workers.clear();  // joins them, before `out` may be moved out
  return out;
}

std::optional<Difference> compare(const std::vector<std::uint64_t>& got, const std::vector<std::uint64_t>& want) {
  if (got.size() == want.size() && std::equal(got.begin(), got.end(), want.begin())) return std::nullopt;
  Difference d;
  const std::size_t n = std::min(got.size(), want.size());
  bool first = true;
  for (std::size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      if (first) d.element = i, d.got = got[i], d.want = want[i], first = false;
      ++d.count;
    }
  if (got.size() != want.size()) {  // never from the probe (it sizes both); counted, not hidden
    if (first) d.element = n;
    d.count += std::max(got.size(), want.size()) - n;
  }
  return d;
}

std::string digest(const std::vector<std::uint64_t>& words) {
  base::Sha256 h;
  h.update(words.data(), words.size() * sizeof(std::uint64_t));
  return h.hex_digest();
}

std::optional<std::string> majority(const std::vector<std::string>& of) {
  std::map<std::string, std::size_t> n;
  for (const auto& s : of) ++n[s];
  for (const auto& [s, c] : n)
    if (2 * c > of.size()) return s;
  return std::nullopt;
}

int unlike_most(const std::vector<std::string>& of) {
  std::map<std::string, std::size_t> n;
  std::size_t most = 0;
  for (const auto& s : of) most = std::max(most, ++n[s]);
  return static_cast<int>(of.size() - most);
}

}  // namespace ga::sdc
