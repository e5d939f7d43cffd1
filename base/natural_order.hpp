// The order people count in: node2 before node10, gpu:3 before gpu:10, mlx5_2 before mlx5_10.
// Digit runs compare as numbers (leading zeros ignored); names equal up to leading zeros
// still get a strict order. Hosts, places and devices are all sorted by it.
#pragma once
#include <string_view>

namespace ga {

bool natural_less(std::string_view a, std::string_view b);

}  // namespace ga
