// Two pieces of independent work at once: `other` on a thread of its own, `here` on the caller's.
#pragma once
#include <algorithm>
#include <exception>
#include <thread>
#include <utility>

namespace ga::base {

// Returns when both are done, so whatever either reads or writes outlives them. An exception
// from either is thrown only after both have finished (never a thread left running on memory
// the caller is unwinding); when both throw, `other`'s is the one thrown.
//
// Why one helper: the judge at 4096 hosts is a few seconds of each of several independent steps
// on a 2-core machine (sorting, the fabric and port-counter analyses, writing and hashing
// report files), and each hand-written thread-and-join had to get the same error handling right.
// The two must share nothing they write, or must lock what they do.
template <class Other, class Here>
void both(Other&& other, Here&& here) {
  std::exception_ptr other_failed;
  std::thread t([&] {
    try {
      std::forward<Other>(other)();
    } catch (...) {
      other_failed = std::current_exception();
    }
  });
  std::exception_ptr here_failed;
  try {
    std::forward<Here>(here)();
  } catch (...) {
    here_failed = std::current_exception();
  }
  t.join();
  if (other_failed) std::rethrow_exception(other_failed);
  if (here_failed) std::rethrow_exception(here_failed);
}

// Sorts [first, last) by `less` with its two halves sorted side by side, then merged. Where
// `less` orders every element apart (ties broken, as by position), the result is std::sort's;
// where it does not, equal elements may end in another order, as with std::sort itself.
template <class It, class Less>
void sort_on_both(It first, It last, Less less) {
  const It mid = first + (last - first) / 2;
  both([&] { std::sort(first, mid, less); }, [&] { std::sort(mid, last, less); });
  std::inplace_merge(first, mid, last, less);
}

}  // namespace ga::base
