#pragma once

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace serialcheck::gen {

template <typename T>
rc::Gen<T> weightedChoice(std::vector<std::pair<int, rc::Gen<T>>> alternatives) {
  auto alts = std::make_shared<std::vector<std::pair<int, rc::Gen<T>>>>();
  int total = 0;
  for (auto& [weight, g] : alternatives) {
    if (weight <= 0) continue;
    total += weight;
    alts->emplace_back(total, std::move(g));  // cumulative upper bound
  }
  if (total == 0) throw std::invalid_argument("weightedChoice: no alternative has weight > 0");
  // The index is drawn at a fixed size so that small RapidCheck sizes still
  // reach every alternative; it shrinks towards 0, the first alternative.
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange(0, total)), [alts](int r) {
    auto it = std::upper_bound(alts->begin(), alts->end(), r,
                               [](int x, const auto& alt) { return x < alt.first; });
    return it->second;
  });
}

template <typename T>
rc::Gen<std::vector<T>> itemsOf(rc::Gen<T> item, int max_items) {
  return rc::gen::withSize([item, max_items](int size) {
    const int bound = std::max(0, (max_items * std::clamp(size, 0, 50) + 49) / 50);
    return rc::gen::resize(bound, rc::gen::container<std::vector<T>>(rc::gen::resize(size, item)));
  });
}

}  // namespace serialcheck::gen
