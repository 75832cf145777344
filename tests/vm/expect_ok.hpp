// GoogleTest helpers for baton::Result / Status: unwrap a value or
// fail the test with the error's own description (call + errno).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "util/result.hpp"

namespace baton::testing {

// Unwraps or aborts the test binary: for helpers that cannot return early.
template <typename R>
auto unwrap_or_die(R&& result, const char* expr, const char* file, int line) {
  if (!result.ok()) {
    ADD_FAILURE_AT(file, line) << expr << " failed: " << result.error().describe();
    std::abort();
  }
  return std::move(std::forward<R>(result).value());
}

}  // namespace baton::testing

// `auto x = BATON_ASSERT_OK(call());` gives the value, or fails and returns
// from the current (void) test function with the error, like ASSERT_*.
// A GNU statement expression: gcc and clang both have them.
#define BATON_ASSERT_OK(expr)                                                         \
  ({                                                                                  \
    auto baton_result_ = (expr);                                                      \
    if (!baton_result_.ok())                                                          \
      GTEST_FATAL_FAILURE_(#expr) << " failed: " << baton_result_.error().describe(); \
    std::move(baton_result_).value();                                                 \
  })
#define BATON_EXPECT_OK_OR_DIE(expr) \
  ::baton::testing::unwrap_or_die((expr), #expr, __FILE__, __LINE__)
#define ASSERT_OK(expr)                                                                          \
  do {                                                                                           \
    auto baton_status_ = (expr);                                                                 \
    ASSERT_TRUE(baton_status_.ok()) << #expr << " failed: " << baton_status_.error().describe(); \
  } while (0)
