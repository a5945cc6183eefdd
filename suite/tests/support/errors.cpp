#include "suite/tests/support/errors.h"

#include <string>

#include "reference/value/json.h"

namespace serialcheck::test_support {

namespace {

std::string position(std::size_t value) {
  return value == FrameError::kNone ? "none" : std::to_string(value);
}

}  // namespace

std::optional<pickle::PickleError> decode_error(std::string_view data,
                                                const pickle::DecodeOptions& options) {
  return thrown<pickle::PickleError>([&] {
    Graph g;
    pickle::decode(data, g, options);
  });
}

::testing::AssertionResult is_pickle_error(const std::optional<pickle::PickleError>& error,
                                           pickle::ErrorKind kind,
                                           std::optional<std::size_t> offset) {
  const std::string want = std::string(pickle::error_kind_name(kind)) +
                           (offset ? " at byte " + std::to_string(*offset) : "");
  if (!error) return ::testing::AssertionFailure() << "no PickleError; expected " << want;
  if (error->kind() != kind || (offset && error->offset() != *offset)) {
    return ::testing::AssertionFailure()
           << "a PickleError " << pickle::error_kind_name(error->kind()) << " at byte "
           << error->offset() << " (" << error->what() << "); expected " << want;
  }
  return ::testing::AssertionSuccess() << error->what();
}

::testing::AssertionResult json_refused_at(std::string_view text, std::string_view where) {
  Graph g;
  try {
    from_json(text, g);
  } catch (const JsonFormError& e) {
    if (e.where() == where) return ::testing::AssertionSuccess() << e.what();
    return ::testing::AssertionFailure() << text << ": refused at '" << e.where() << "' ("
                                         << e.what() << "); expected at '" << where << "'";
  }
  return ::testing::AssertionFailure()
         << text << ": accepted; expected a refusal at '" << where << "'";
}

::testing::AssertionResult is_frame_error(const std::optional<FrameError>& error,
                                          FrameErrorKind kind, std::optional<std::size_t> offset,
                                          std::optional<std::size_t> frame) {
  std::string want(frame_error_kind_name(kind));
  if (offset) want += " at byte " + position(*offset);
  if (frame) want += " in frame " + position(*frame);
  if (!error) return ::testing::AssertionFailure() << "no FrameError; expected " << want;
  if (error->kind() != kind || (offset && error->offset() != *offset) ||
      (frame && error->frame() != *frame)) {
    return ::testing::AssertionFailure()
           << "a FrameError " << frame_error_kind_name(error->kind()) << " at byte "
           << position(error->offset()) << " in frame " << position(error->frame()) << " ("
           << error->what() << "); expected " << want;
  }
  return ::testing::AssertionSuccess() << error->what();
}

}  // namespace serialcheck::test_support
