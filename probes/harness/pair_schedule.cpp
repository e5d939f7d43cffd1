#include "probes/harness/pair_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace ga::pairs {

int round_count(int n) {
  if (n < 2) return 0;
  return n % 2 == 0 ? n - 1 : n;
}

// Circle method on an even count m = n (n even) or n+1 (n odd, the extra one is the bye):
// participant m-1 stays fixed and meets r in round r; the others sit on a circle of m-1 and
// i meets j when i + j == 2r (mod m-1). Both rules are closed forms, so one lookup is O(1).
int opponent(int n, int r, int p) {
  if (n < 2 || r < 0 || r >= round_count(n) || p < 0 || p >= n)
    throw std::out_of_range("pair schedule: no participant " + std::to_string(p) + " in round " +
                            std::to_string(r) + " of a tournament of " + std::to_string(n));
  const int m = n % 2 == 0 ? n : n + 1;
  const int circle = m - 1;
  int q;
  if (p == m - 1) q = r;
  else if (p == r) q = m - 1;
  else q = ((2 * r - p) % circle + circle) % circle;
  return q >= n ? -1 : q;  // the phantom participant n (odd n) is a bye
}

std::vector<std::pair<int, int>> round_pairs(int n, int r) {
  std::vector<std::pair<int, int>> out;
  if (n < 2) return out;
  out.reserve(n / 2);
  for (int p = 0; p < n; ++p) {
    int q = opponent(n, r, p);
    if (q > p) out.emplace_back(p, q);
  }
  return out;
}

PairPlan::PairPlan(const std::vector<std::string>& rank_hosts, ScheduleOptions opt) : opt_(opt) {
  std::unordered_map<std::string, int> index;
  index.reserve(rank_hosts.size());
  host_of_rank_.resize(rank_hosts.size());
  local_of_rank_.resize(rank_hosts.size());
  for (int r = 0; r < static_cast<int>(rank_hosts.size()); ++r) {
    const auto& h = rank_hosts[r];
    if (h.empty()) throw std::invalid_argument("pair schedule: rank " + std::to_string(r) + " has an empty host name");
    auto [it, fresh] = index.try_emplace(h, static_cast<int>(hosts_.size()));
    if (fresh) {
      hosts_.push_back(h);
      ranks_of_.emplace_back();
    }
    host_of_rank_[r] = it->second;
    local_of_rank_[r] = static_cast<int>(ranks_of_[it->second].size());
    ranks_of_[it->second].push_back(r);
  }
  for (int h = 0; h < static_cast<int>(hosts_.size()); ++h) {
    max_rails_ = std::max(max_rails_, rails_of(h));
    max_locals_ = std::max(max_locals_, locals_of(h));
  }
}

int PairPlan::rails_of(int h) const {
  int k = opt_.unit == PairUnit::rail ? static_cast<int>(ranks_of_[h].size()) : 1;
  return opt_.max_rails > 0 ? std::min(k, opt_.max_rails) : k;
}

// host mode: local ranks 0<->1 only (one intra pair per host); rail mode: every rail.
int PairPlan::locals_of(int h) const {
  if (!opt_.intra_host) return 0;
  return opt_.unit == PairUnit::rail ? rails_of(h) : std::min<int>(2, static_cast<int>(ranks_of_[h].size()));
}

int PairPlan::inter_rounds() const { return round_count(static_cast<int>(hosts_.size())); }
int PairPlan::intra_rounds() const { return round_count(max_locals_); }

Round PairPlan::inter_round(int r) const {
  const int n = static_cast<int>(hosts_.size());
  if (r < 0 || r >= inter_rounds()) throw std::out_of_range("pair schedule: no inter-host round " + std::to_string(r));
  Round out;
  auto hp = round_pairs(n, r);
  out.pairs.reserve(hp.size() * max_rails_);
  for (int k = 0; k < max_rails_; ++k)
    for (auto [a, b] : hp)
      if (k < rails_of(a) && k < rails_of(b)) out.pairs.push_back({ranks_of_[a][k], ranks_of_[b][k], a, b, k, false});
  return out;
}

Round PairPlan::intra_round(int r) const {
  if (r < 0 || r >= intra_rounds()) throw std::out_of_range("pair schedule: no intra-host round " + std::to_string(r));
  Round out;
  for (int h = 0; h < static_cast<int>(hosts_.size()); ++h) {
    int k = locals_of(h);
    if (r >= round_count(k)) continue;
    for (auto [a, b] : round_pairs(k, r)) out.pairs.push_back({ranks_of_[h][a], ranks_of_[h][b], h, h, a, true});
  }
  return out;
}

std::optional<RankPair> PairPlan::inter_pair_of(int rank, int r) const {
  if (rank < 0 || rank >= static_cast<int>(host_of_rank_.size()))
    throw std::out_of_range("pair schedule: no rank " + std::to_string(rank));
  const int h = host_of_rank_[rank], k = local_of_rank_[rank];
  if (k >= rails_of(h)) return std::nullopt;
  const int o = opponent(static_cast<int>(hosts_.size()), r, h);
  if (o < 0 || k >= rails_of(o)) return std::nullopt;
  const int a = std::min(h, o), b = std::max(h, o);
  return RankPair{ranks_of_[a][k], ranks_of_[b][k], a, b, k, false};
}

std::optional<RankPair> PairPlan::intra_pair_of(int rank, int r) const {
  if (rank < 0 || rank >= static_cast<int>(host_of_rank_.size()))
    throw std::out_of_range("pair schedule: no rank " + std::to_string(rank));
  if (r < 0 || r >= intra_rounds()) throw std::out_of_range("pair schedule: no intra-host round " + std::to_string(r));
  const int h = host_of_rank_[rank], k = local_of_rank_[rank], n = locals_of(h);
  if (k >= n || r >= round_count(n)) return std::nullopt;
  const int o = opponent(n, r, k);
  if (o < 0) return std::nullopt;
  const int a = std::min(k, o), b = std::max(k, o);
  return RankPair{ranks_of_[h][a], ranks_of_[h][b], h, h, a, true};
}

// Closed form, so asking does not walk 8 M pairs: host pairs whose both ends have rail k,
// summed over k, plus the pairs inside each host.
std::size_t PairPlan::pair_count() const {
  std::size_t c = 0;
  for (int k = 0; k < max_rails_; ++k) {
    std::size_t with = 0;
    for (int h = 0; h < static_cast<int>(hosts_.size()); ++h) with += k < rails_of(h);
    c += with * (with - (with > 0)) / 2;
  }
  for (int h = 0; h < static_cast<int>(hosts_.size()); ++h) {
    std::size_t k = locals_of(h);
    c += k * (k - (k > 0)) / 2;
  }
  return c;
}

std::size_t PairSchedule::pair_count() const {
  std::size_t c = 0;
  for (auto* rounds : {&inter, &intra})
    for (auto& r : *rounds) c += r.pairs.size();
  return c;
}

PairSchedule build_pair_schedule(const std::vector<std::string>& rank_hosts, const ScheduleOptions& opt) {
  PairPlan plan(rank_hosts, opt);
  PairSchedule s;
  s.hosts = plan.hosts();
  s.inter.reserve(plan.inter_rounds());
  for (int r = 0; r < plan.inter_rounds(); ++r) s.inter.push_back(plan.inter_round(r));
  for (int r = 0; r < plan.intra_rounds(); ++r) s.intra.push_back(plan.intra_round(r));
  return s;
}

}  // namespace ga::pairs
