// Test support: "fails with this kind at this offset", in the style of
// abseil's status_matchers.h. The engine is a function that says, as a
// ::testing::AssertionResult, whether an error (or a call) is the expected
// one: for a pickle error its kind and byte offset, for a frame or header
// error its kind, byte offset and frame. On top of it, gMock matchers for a
// callable:
//
//   auto call = [&] { pickle::decode(data, g); };
//   EXPECT_THAT(call, ThrowsPickleErrorAt(pickle::ErrorKind::Truncated, 5));
//   EXPECT_TRUE(is_pickle_error(decode_error("e."), pickle::ErrorKind::MissingMark, 0));
//
// A call that throws another exception type lets it through (the test then
// fails with it). Nothing else here throws.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string_view>

#include "reference/frames/errors.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/errors.h"

namespace serialcheck::test_support {

// What f() threw as an E; nullopt when it returned.
template <typename E, typename F>
std::optional<E> thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  return std::nullopt;
}

// The E that f() throws; when it throws none, a test failure and `none`.
template <typename E, typename F>
E error_of(F&& f, E none) {
  if (std::optional<E> e = thrown<E>(f)) return *e;
  ADD_FAILURE() << "the call threw no error (expected: " << none.what() << ")";
  return none;
}

// The error decoding `data` throws; nullopt when it decodes.
std::optional<pickle::PickleError> decode_error(std::string_view data,
                                                const pickle::DecodeOptions& options = {});

// `error` is a PickleError of `kind`, at byte `offset` when one is given.
::testing::AssertionResult is_pickle_error(const std::optional<pickle::PickleError>& error,
                                           pickle::ErrorKind kind,
                                           std::optional<std::size_t> offset = std::nullopt);

// `error` is a FrameError of `kind`, at byte `offset` and in frame `frame`
// when they are given (FrameError::kNone: the error has none).
::testing::AssertionResult is_frame_error(const std::optional<FrameError>& error,
                                          FrameErrorKind kind,
                                          std::optional<std::size_t> offset = std::nullopt,
                                          std::optional<std::size_t> frame = std::nullopt);

template <typename F>
::testing::AssertionResult throws_pickle_error(F&& f, pickle::ErrorKind kind,
                                               std::optional<std::size_t> offset = std::nullopt) {
  return is_pickle_error(thrown<pickle::PickleError>(f), kind, offset);
}

template <typename F>
::testing::AssertionResult throws_frame_error(F&& f, FrameErrorKind kind,
                                              std::optional<std::size_t> offset = std::nullopt,
                                              std::optional<std::size_t> frame = std::nullopt) {
  return is_frame_error(thrown<FrameError>(f), kind, offset, frame);
}

// gMock matchers for a callable (a lambda without arguments).
MATCHER_P(ThrowsPickleError, kind, "throws a PickleError of that kind") {
  ::testing::AssertionResult r = throws_pickle_error(arg, kind);
  *result_listener << r.message();
  return static_cast<bool>(r);
}

MATCHER_P2(ThrowsPickleErrorAt, kind, offset, "throws a PickleError of that kind at that byte") {
  ::testing::AssertionResult r = throws_pickle_error(arg, kind, offset);
  *result_listener << r.message();
  return static_cast<bool>(r);
}

MATCHER_P(ThrowsFrameError, kind, "throws a FrameError of that kind") {
  ::testing::AssertionResult r = throws_frame_error(arg, kind);
  *result_listener << r.message();
  return static_cast<bool>(r);
}

MATCHER_P2(ThrowsFrameErrorAt, kind, offset, "throws a FrameError of that kind at that byte") {
  ::testing::AssertionResult r = throws_frame_error(arg, kind, offset);
  *result_listener << r.message();
  return static_cast<bool>(r);
}

}  // namespace serialcheck::test_support
