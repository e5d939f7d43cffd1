// Items grouped by a name they carry, made in one pass: the judge's metrics by metric name (each
// criterion reads only its own), the plots of report.html by the few metrics each draws.
#pragma once
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ga::base {

// name -> the items of that name, each list in the items' order.
template <class T>
using ByName = std::map<std::string, std::vector<const T*>, std::less<>>;

// Why a pass that remembers the last name: the judge leaves its metrics sorted by name (4 M of
// them under ~150 names at 4096 hosts), so consecutive items mostly share their name, and one
// comparison with the previous item replaces a map lookup of ~8 string comparisons per item.
// Unsorted items give the same groups, only with more lookups.
// With `keep`, only the names it accepts are grouped (asked once per run of a name): a reader
// of a few names holds pointers to those alone, not to all 4 M metrics.
template <class T, class NameOf, class Keep>
ByName<T> group_by_name(const std::vector<T>& items, NameOf name_of, Keep keep) {
  ByName<T> out;
  const std::string* last = nullptr;
  std::vector<const T*>* group = nullptr;
  for (const T& item : items) {
    const std::string& name = name_of(item);
    if (!last || name != *last) group = keep(std::string_view(name)) ? &out[name] : nullptr, last = &name;
    if (group) group->push_back(&item);
  }
  return out;
}

template <class T, class NameOf>
ByName<T> group_by_name(const std::vector<T>& items, NameOf name_of) {
  return group_by_name(items, name_of, [](std::string_view) { return true; });
}

// The items of any of `names`, in the items' order (one vector, so the addresses' order), as a
// scan of all of them keeping those names would give.
template <class T>
std::vector<const T*> items_named(const ByName<T>& by, std::initializer_list<std::string_view> names) {
  std::vector<const T*> out;
  for (std::string_view n : names)
    if (auto it = by.find(n); it != by.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  if (names.size() > 1) std::sort(out.begin(), out.end(), std::less<const T*>());
  return out;
}

// The same for every name starting with `prefix`.
template <class T>
std::vector<const T*> items_with_prefix(const ByName<T>& by, std::string_view prefix) {
  std::vector<const T*> out;
  for (auto it = by.lower_bound(prefix); it != by.end() && std::string_view(it->first).starts_with(prefix); ++it)
    out.insert(out.end(), it->second.begin(), it->second.end());
  std::sort(out.begin(), out.end(), std::less<const T*>());
  return out;
}

}  // namespace ga::base
