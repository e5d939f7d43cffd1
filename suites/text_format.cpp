// Ordering and wording shared by the judge's reasons. Everything here is deterministic and
// locale-free, because `gpuaccept judge DIR` must reproduce the live run's report byte for
// byte. Quantities print through base/quantity.hpp, the formatter the writers use too.
#include <algorithm>

#include "base/natural_order.hpp"
#include "suites/judge_parts.hpp"
#include "topology/place.hpp"

namespace ga::judging {

bool place_less(const std::string& a, const std::string& b) { return place::less(a, b); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string list_text(const std::vector<std::string>& items, std::size_t show) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < show; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > show) out += " and " + std::to_string(items.size() - show) + " more";
  return out;
}

std::string ranks_text(std::vector<RankRef> ranks) {
  std::sort(ranks.begin(), ranks.end(), [](const RankRef& a, const RankRef& b) { return a.rank < b.rank; });
  std::string ids;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1].rank == ranks[j].rank + 1) ++j;
    ids += (ids.empty() ? "" : ",") + std::to_string(ranks[i].rank);
    if (j > i) ids += (j == i + 1 ? "," : "-") + std::to_string(ranks[j].rank);
    i = j + 1;
  }
  std::vector<std::string> hosts;
  for (const auto& r : ranks)
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  std::sort(hosts.begin(), hosts.end(), place_less);
  return (ranks.size() == 1 ? "rank " : "ranks ") + ids + " (" + (hosts.size() == 1 ? "host " : "hosts ") +
         list_text(hosts) + ")";
}

}  // namespace ga::judging
