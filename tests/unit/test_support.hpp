#pragma once
// Helpers shared by the unit tests.
#include <string>

#include <gtest/gtest.h>

#include "gpubench/error.hpp"

/// Runs `f`, expects a gpubench::error with the usage exit code (2), returns its message.
template <class F>
std::string usage_message(F&& f) {
  try {
    f();
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage);
    return e.what();
  }
  ADD_FAILURE() << "expected gpubench::error (usage)";
  return {};
}
