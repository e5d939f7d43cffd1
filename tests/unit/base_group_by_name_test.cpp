// base::group_by_name gives the groups a plain scan gives, in the items' order, whether the
// items come sorted by name (the judge's metrics: one run per name) or not; items_named and
// items_with_prefix give what a scan keeping those names gives, in the items' order.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/group_by_name.hpp"

namespace ga {
namespace {

struct Item {
  std::string name;
  int id;
};

const std::string& name_of(const Item& i) { return i.name; }

// What each function should return, by scanning.
std::vector<int> scan(const std::vector<Item>& items, const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const auto& i : items)
    for (const auto& n : names)
      if (i.name == n) out.push_back(i.id);
  return out;
}

std::vector<int> ids(const std::vector<const Item*>& v) {
  std::vector<int> out;
  for (const Item* i : v) out.push_back(i->id);
  return out;
}

TEST(GroupByName, UnsortedItemsGroupAsAScanDoes) {
  // Runs of one name, broken and resumed: "b" appears in three runs.
  const std::vector<Item> items = {{"b", 0}, {"b", 1}, {"a", 2}, {"b", 3}, {"c.x", 4},
                                   {"c.y", 5}, {"a", 6}, {"b", 7}, {"c.x", 8}, {"d", 9}};
  const auto by = base::group_by_name(items, name_of);
  ASSERT_EQ(by.size(), 5u);
  for (const std::string n : {"a", "b", "c.x", "c.y", "d"}) EXPECT_EQ(ids(by.at(n)), scan(items, {n})) << n;
  for (const auto& [n, group] : by)
    for (const Item* i : group) EXPECT_EQ(i->name, n);

  EXPECT_EQ(ids(base::items_named(by, {"b"})), scan(items, {"b"}));
  EXPECT_EQ(ids(base::items_named(by, {"d", "a", "b"})), scan(items, {"a", "b", "d"}));  // the items' order, not the names'
  EXPECT_EQ(ids(base::items_named(by, {"nothing", "a"})), scan(items, {"a"}));
  EXPECT_TRUE(base::items_named(by, {"nothing"}).empty());
  EXPECT_EQ(ids(base::items_with_prefix(by, "c.")), scan(items, {"c.x", "c.y"}));
  EXPECT_EQ(ids(base::items_with_prefix(by, "")), scan(items, {"a", "b", "c.x", "c.y", "d"}));
  EXPECT_TRUE(base::items_with_prefix(by, "e").empty());
}

TEST(GroupByName, SortedItemsAndEmpty) {
  std::vector<Item> items;
  for (int i = 0; i < 1000; ++i) items.push_back({i < 400 ? "m.first" : i < 401 ? "m.one" : "m.second", i});
  const auto by = base::group_by_name(items, name_of);
  ASSERT_EQ(by.size(), 3u);
  EXPECT_EQ(by.at("m.first").size(), 400u);
  EXPECT_EQ(ids(by.at("m.one")), std::vector<int>{400});
  EXPECT_EQ(ids(by.at("m.second")), scan(items, {"m.second"}));
  EXPECT_TRUE(base::group_by_name(std::vector<Item>{}, name_of).empty());
}

}  // namespace
}  // namespace ga
