// Test support: "fails with this kind at this offset", in the style of
// abseil's status_matchers.h (and, for canonical JSON, "refused at this
// element"). The engine is a function that says, as a
// ::testing::AssertionResult, whether an error (or a call) is the expected
// one: for a pickle error its kind and byte offset, for a frame or header
// error its kind, byte offset and frame. On top of it, gMock matchers for a
// callable:
//
//   auto call = [&] { pickle::decode(data, g); };
//   EXPECT_THAT(call, ThrowsPickleError(pickle::ErrorKind::Truncated, 5));
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

// Reading `text` as canonical JSON (from_json) fails with a JsonFormError
// whose JSON pointer is `where`.
::testing::AssertionResult json_refused_at(std::string_view text, std::string_view where);

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

// What a call is expected to throw, for the matcher below.
struct PickleErrorIs {
  pickle::ErrorKind kind;
  std::optional<std::size_t> offset;
};
struct FrameErrorIs {
  FrameErrorKind kind;
  std::optional<std::size_t> offset;
  std::optional<std::size_t> frame;
};

template <typename F>
::testing::AssertionResult throws(F&& f, const PickleErrorIs& want) {
  return throws_pickle_error(f, want.kind, want.offset);
}
template <typename F>
::testing::AssertionResult throws(F&& f, const FrameErrorIs& want) {
  return throws_frame_error(f, want.kind, want.offset, want.frame);
}

// The gMock matcher for a callable (a lambda without arguments).
MATCHER_P(Throws, want, "throws the expected error") {
  ::testing::AssertionResult r = throws(arg, want);
  *result_listener << r.message();
  return static_cast<bool>(r);
}

inline auto ThrowsPickleError(pickle::ErrorKind kind,
                              std::optional<std::size_t> offset = std::nullopt) {
  return Throws(PickleErrorIs{kind, offset});
}

inline auto ThrowsFrameError(FrameErrorKind kind, std::optional<std::size_t> offset = std::nullopt,
                             std::optional<std::size_t> frame = std::nullopt) {
  return Throws(FrameErrorIs{kind, offset, frame});
}

}  // namespace serialcheck::test_support
