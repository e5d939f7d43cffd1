#include "suites/pass_fold.hpp"

#include <algorithm>
#include <numeric>

#include "suites/fabric_analysis.hpp"
#include "topology/place.hpp"

namespace ga::judging {

namespace {

// Is `m` a worse margin than `worst` (absent margins are never worse than a present one)?
bool worse(const std::optional<double>& m, const std::optional<double>& worst) { return m && (!worst || *m < *worst); }

}  // namespace

bool PassFolder::kept(const Verdict& v) const {
  if (keep_.empty()) return false;
  for (const auto& h : place::hosts_of(v.place))
    if (keep_.count(h)) return true;
  return false;
}

void PassFolder::count(const std::string& host, std::size_t fold, const std::optional<double>& m) {
  HostCount& c = hosts_[fold][host];
  ++c.places;
  if (worse(m, c.worst)) c.worst = m;
}

void PassFolder::take(std::vector<Verdict>& verdicts, bool early) {
  std::size_t kept_n = 0;
  // The verdicts of a batch come by criterion and place: the last (criterion, kind)'s fold is
  // mostly the next one's too, so the map is searched once per run of them.
  const std::string* last_criterion = nullptr;
  place::Kind last_kind{};
  std::size_t last_fold = 0;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    Verdict& v = verdicts[i];
    if (v.status != VerdictStatus::pass || (early && explains_passes(v.metric)) || kept(v)) {
      if (kept_n != i) verdicts[kept_n] = std::move(v);
      ++kept_n;
      continue;
    }
    const Place p = Place::parse(v.place);
    if (!last_criterion || *last_criterion != v.criterion || last_kind != p.kind) {
      auto [it, fresh] = at_.try_emplace({v.criterion, place::to_string(p.kind)}, folds_.size());
      if (fresh) {
        PassingFold f;
        f.criterion = v.criterion;
        f.kind = it->first.second;
        f.severity = v.severity;
        folds_.push_back(std::move(f));
        hosts_.emplace_back();
      }
      last_fold = it->second;
      last_criterion = &folds_[last_fold].criterion, last_kind = p.kind;
    }
    PassingFold& f = folds_[last_fold];
    const std::optional<double> m = margin(v);
    for (const auto& h : place::hosts_of(p)) count(h, last_fold, m);
    ++folded_;
    if (++f.places == 1 || worse(m, f.worst_margin)) {
      f.worst_margin = m;
      f.worst = std::move(v);
    }
  }
  verdicts.erase(verdicts.begin() + static_cast<std::ptrdiff_t>(kept_n), verdicts.end());
}

void PassFolder::finish(Judgement& j, const std::map<std::string, std::size_t>& order) {
  for (std::size_t k = 0; k < folds_.size(); ++k) {
    auto& hosts = folds_[k].hosts;
    for (auto& [h, c] : hosts_[k]) hosts.push_back({h, c.places, c.worst});
    std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) { return place::less(a.host, b.host); });
  }
  std::vector<std::size_t> idx(folds_.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  auto rank = [&](std::size_t k) {
    const auto it = order.find(folds_[k].criterion);
    return it == order.end() ? order.size() : it->second;
  };
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  j.passing.clear();
  for (std::size_t k : idx) j.passing.push_back(std::move(folds_[k]));
  folds_.clear(), hosts_.clear(), at_.clear();
  j.folded = true;
}

}  // namespace ga::judging
