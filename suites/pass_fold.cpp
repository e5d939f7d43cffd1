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

bool PassFolder::kept(const std::string& place) const {
  if (keep_.empty()) return false;
  for (const auto& h : place::hosts_of(place))
    if (keep_.count(h)) return true;
  return false;
}

bool PassFolder::folds(const std::string& metric, const std::string& place, bool early) const {
  return !(early && explains_passes(metric)) && !kept(place);
}

std::size_t PassFolder::fold_of(const std::string& criterion, const std::string& kind, Severity severity) {
  auto [it, fresh] = at_.try_emplace({criterion, kind}, folds_.size());
  if (fresh) {
    PassingFold f;
    f.criterion = criterion;
    f.kind = kind;
    f.severity = severity;
    folds_.push_back(std::move(f));
    hosts_.emplace_back();
  }
  return it->second;
}

void PassFolder::take(std::vector<Verdict>& verdicts, bool early, std::size_t from,
                      const std::function<void(Verdict&)>& remake) {
  std::size_t kept_n = from;
  // The verdicts of a batch come by criterion and place: the last (criterion, kind)'s fold is
  // mostly the next one's too, so the map is searched once per run of them; and so is a host's
  // count (a host's places come together).
  const std::string* last_criterion = nullptr;
  place::Kind last_kind{};
  std::size_t fold = 0;
  const std::string* last_host = nullptr;
  HostCount* host_count = nullptr;
  for (std::size_t i = from; i < verdicts.size(); ++i) {
    Verdict& v = verdicts[i];
    if (v.status != VerdictStatus::pass || !folds(v.metric, v.place, early)) {
      if (kept_n != i) verdicts[kept_n] = std::move(v);
      ++kept_n;
      continue;
    }
    const Place p = Place::parse(v.place);
    if (!last_criterion || *last_criterion != v.criterion || last_kind != p.kind) {
      fold = fold_of(v.criterion, place::to_string(p.kind), v.severity);
      last_criterion = &folds_[fold].criterion, last_kind = p.kind;
      last_host = nullptr;
    }
    PassingFold& f = folds_[fold];
    const std::optional<double> m = margin(v);
    auto count = [&](const std::string& host) {
      if (!last_host || *last_host != host) {
        auto it = hosts_[fold].try_emplace(host).first;
        last_host = &it->first, host_count = &it->second;
      }
      ++host_count->places;
      if (worse(m, host_count->worst)) host_count->worst = m;
    };
    if (p.kind == place::Kind::pair) {
      for (const auto& h : place::hosts_of(p)) count(h);
    } else if (const std::string h = place::host_of(p); !h.empty()) {
      count(h);
    }
    ++folded_;
    if (++f.places == 1 || worse(m, f.worst_margin)) {
      if (v.reason.empty() && remake) remake(v);
      f.worst_margin = m;
      f.worst = std::move(v);
    }
  }
  verdicts.erase(verdicts.begin() + static_cast<std::ptrdiff_t>(kept_n), verdicts.end());
}

void PassFolder::merge(PassFolder&& other) {
  for (std::size_t k = 0; k < other.folds_.size(); ++k) {
    PassingFold& o = other.folds_[k];
    const std::size_t at = fold_of(o.criterion, o.kind, o.severity);
    PassingFold& f = folds_[at];
    if (f.places == 0 || worse(o.worst_margin, f.worst_margin)) {
      f.worst_margin = o.worst_margin;
      f.worst = std::move(o.worst);
    }
    f.places += o.places;
    for (auto& [h, c] : other.hosts_[k]) {
      HostCount& mine = hosts_[at][h];
      mine.places += c.places;
      if (worse(c.worst, mine.worst)) mine.worst = c.worst;
    }
  }
  folded_ += other.folded_;
  other.folds_.clear(), other.hosts_.clear(), other.at_.clear(), other.folded_ = 0;
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
