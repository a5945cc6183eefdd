// The one error family (reference/common/error.h): every error class of the
// project is a serialcheck::Error with a stable kind name, an optional
// location and one rendering, and each class's what() reads as it always has.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "harness/corpus/promote.h"
#include "harness/report/known_failures.h"
#include "harness/subjects/subject.h"
#include "harness/subjects/subjects_file.h"
#include "reference/common/error.h"
#include "reference/device/device.h"
#include "reference/frames/errors.h"
#include "reference/frames/family.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/policy.h"
#include "reference/value/json.h"
#include "suite/cli/commands.h"

namespace serialcheck {
namespace {

using families::FamilyError;
using families::FamilyErrorKind;

TEST(ErrorRender, EachStyleWithAndWithoutLocation) {
  const Location none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(render_error(ErrorStyle::Plain, "input", "cannot read x", none), "cannot read x");
  EXPECT_EQ(render_error(ErrorStyle::Kind, "bad-header", "no key", none), "bad-header: no key");
  EXPECT_EQ(render_error(ErrorStyle::Kind, "bad-header", "no key",
                         Location{.offset = 7, .frame = 2, .key = "/type"}),
            "bad-header: no key (header /type, frame 2, byte 7)");
  EXPECT_EQ(render_error(ErrorStyle::Kind, "k", "d", Location{.offset = 0}), "k: d (byte 0)");
  EXPECT_EQ(render_error(ErrorStyle::Kind, "k", "d", Location{.frame = 0}), "k: d (frame 0)");
  EXPECT_EQ(render_error(ErrorStyle::Kind, "k", "d", Location{.key = "/a"}), "k: d (header /a)");
  EXPECT_EQ(render_error(ErrorStyle::KindAtOffset, "truncated", "eof", Location{.offset = 3}),
            "truncated at offset 3: eof");
  EXPECT_EQ(render_error(ErrorStyle::KeyFirst, "json-form", "bad", Location{.key = "/list/3"}),
            "/list/3: bad");
  EXPECT_EQ(render_error(ErrorStyle::KeyFirst, "json-form", "bad", none), "(document): bad");
  EXPECT_EQ(render_error(ErrorStyle::Device, "runtime", "boom", Location{.key = "sim:0"}),
            "device sim:0: runtime: boom");
}

TEST(ErrorRender, PickleErrorKeepsItsMessage) {
  const pickle::PickleError e(pickle::ErrorKind::Truncated, 12, "input ends inside BININT");
  EXPECT_STREQ(e.what(), "truncated at offset 12: input ends inside BININT");
  EXPECT_EQ(e.kind_name(), "truncated");
  EXPECT_EQ(e.offset(), 12u);
  EXPECT_EQ(e.detail(), "input ends inside BININT");
  const pickle::UnsupportedProtocolError u(1, 5, 4);
  EXPECT_STREQ(u.what(),
               "unsupported-protocol at offset 1: unsupported pickle protocol: 5 "
               "(this loader reads up to 4)");
  EXPECT_EQ(u.found(), 5);
  EXPECT_EQ(u.max(), 4);
}

TEST(ErrorRender, FrameErrorWithAndWithoutLocation) {
  const FrameError bare(FrameErrorKind::TrailingBytes, "3 bytes after the last frame");
  EXPECT_STREQ(bare.what(), "trailing-bytes: 3 bytes after the last frame");
  EXPECT_FALSE(bare.has_offset());
  EXPECT_FALSE(bare.has_frame());
  EXPECT_EQ(bare.offset(), FrameError::kNone);
  EXPECT_EQ(FrameError::kNone, Location::kNone);
  const FrameError both(FrameErrorKind::FrameOutOfRange, "too long", 40, 2);
  EXPECT_STREQ(both.what(), "frame-out-of-range: too long (frame 2, byte 40)");
  EXPECT_EQ(both.offset(), 40u);
  EXPECT_EQ(both.frame(), 2u);
  const FrameError offset_only(FrameErrorKind::TruncatedPrelude, "short", 8);
  EXPECT_STREQ(offset_only.what(), "truncated-prelude: short (byte 8)");
}

TEST(ErrorRender, FamilyErrorWithAndWithoutLocation) {
  const FamilyError bare(FamilyErrorKind::UnknownFamily, "no family \"x\"");
  EXPECT_STREQ(bare.what(), "unknown-family: no family \"x\"");
  EXPECT_TRUE(bare.header_key().empty());
  EXPECT_FALSE(bare.has_frame());
  EXPECT_FALSE(bare.has_offset());
  EXPECT_EQ(FamilyError::kNone, Location::kNone);
  const FamilyError all(FamilyErrorKind::Pickle, "truncated: eof", "/type-serialized", 1, 9);
  EXPECT_STREQ(all.what(), "pickle: truncated: eof (header /type-serialized, frame 1, byte 9)");
  EXPECT_EQ(all.header_key(), "/type-serialized");
  EXPECT_EQ(all.frame(), 1u);
  EXPECT_EQ(all.offset(), 9u);
  const FamilyError key_only(FamilyErrorKind::BadHeader, "not a string", "/serializer");
  EXPECT_STREQ(key_only.what(), "bad-header: not a string (header /serializer)");
  // with_family and with_protocols add facts, not words.
  FamilyError more(FamilyErrorKind::UnsupportedProtocol, "protocol 5 above 4");
  more.with_protocols(5, 4).with_family("pickle", {"pickle"});
  EXPECT_STREQ(more.what(), "unsupported-protocol: protocol 5 above 4");
  EXPECT_EQ(more.found_protocol(), 5);
}

TEST(ErrorRender, JsonFormErrorWithAndWithoutPointer) {
  const JsonFormError at("/list/3", "expected a value");
  EXPECT_STREQ(at.what(), "/list/3: expected a value");
  EXPECT_EQ(at.where(), "/list/3");
  EXPECT_EQ(at.kind_name(), "json-form");
  const JsonFormError document("", "not valid JSON");
  EXPECT_STREQ(document.what(), "(document): not valid JSON");
  EXPECT_EQ(document.where(), "");
}

TEST(ErrorRender, DeviceErrorNamesTheDevice) {
  const device::DeviceError e(device::DeviceErrorKind::OutOfRange, "sim:0", "copy past the end");
  EXPECT_STREQ(e.what(), "device sim:0: out-of-range: copy past the end");
  EXPECT_EQ(e.device(), "sim:0");
  EXPECT_EQ(e.detail(), "copy past the end");
  EXPECT_EQ(e.kind_name(), "out-of-range");
}

TEST(ErrorRender, SubjectErrorKeepsItsReportDetail) {
  const SubjectError e("testee-crash", "exit status 3", "Traceback...");
  EXPECT_STREQ(e.what(), "testee-crash: exit status 3");
  EXPECT_EQ(e.kind(), "testee-crash");
  EXPECT_EQ(e.kind_name(), "testee-crash");
  EXPECT_EQ(e.message(), "exit status 3");
  // SubjectError::detail() is the report's extra lines; the base's is the message.
  EXPECT_EQ(e.detail(), "Traceback...");
  EXPECT_EQ(static_cast<const Error&>(e).detail(), "exit status 3");
}

TEST(ErrorRender, MessageOnlyErrorsAreTheirMessage) {
  EXPECT_STREQ(pickle::AllowlistError("a.txt:3: bad entry").what(), "a.txt:3: bad entry");
  EXPECT_STREQ(PromoteError("cannot read c.json").what(), "cannot read c.json");
  EXPECT_STREQ(KnownFailuresError("line 2: too few fields").what(), "line 2: too few fields");
  EXPECT_STREQ(SubjectsFileError("s.json: not JSON").what(), "s.json: not JSON");
  EXPECT_STREQ(cli::InputError("cannot read x: No such file").what(), "cannot read x: No such file");
}

// Kind names are stable: corpus files, reports and the CLI print them.
TEST(ErrorKindNames, AreStable) {
  EXPECT_EQ(pickle::PickleError(pickle::ErrorKind::ForbiddenPersistentId, 0, "").kind_name(),
            "forbidden-persistent-id");
  EXPECT_EQ(FrameError(FrameErrorKind::DecompressedTooLarge, "").kind_name(),
            "decompressed-too-large");
  EXPECT_EQ(FamilyError(FamilyErrorKind::DisallowedFamily, "").kind_name(), "disallowed-family");
  EXPECT_EQ(device::DeviceError(device::DeviceErrorKind::UnknownDevice, "x", "").kind_name(),
            "unknown-device");
  EXPECT_EQ(pickle::AllowlistError("").kind_name(), "allowlist");
  EXPECT_EQ(PromoteError("").kind_name(), "promote");
  EXPECT_EQ(KnownFailuresError("").kind_name(), "known-failures");
  EXPECT_EQ(SubjectsFileError("").kind_name(), "subjects-file");
  EXPECT_EQ(cli::InputError("").kind_name(), "input");
  EXPECT_EQ(JsonFormError("", "").kind_name(), "json-form");
}

// Every error class is caught by one catch of the base, with what() intact.
TEST(ErrorFamily, OneCatchOfTheBaseCatchesEveryClass) {
  const std::vector<std::function<void()>> throwers = {
      [] { throw pickle::PickleError(pickle::ErrorKind::Truncated, 1, "eof"); },
      [] { throw pickle::UnsupportedProtocolError(1, 5, 4); },
      [] { throw FrameError(FrameErrorKind::TrailingBytes, "x", 3); },
      [] { throw FamilyError(FamilyErrorKind::BadFrames, "x", "/k", 0); },
      [] { throw JsonFormError("/a", "x"); },
      [] { throw pickle::AllowlistError("x"); },
      [] { throw device::DeviceError(device::DeviceErrorKind::Runtime, "sim:0", "x"); },
      [] { throw PromoteError("x"); },
      [] { throw KnownFailuresError("x"); },
      [] { throw SubjectError("k", "x"); },
      [] { throw SubjectsFileError("x"); },
      [] { throw cli::InputError("x"); },
  };
  for (std::size_t i = 0; i < throwers.size(); ++i) {
    std::string caught;
    try {
      throwers[i]();
    } catch (const Error& e) {
      caught = e.what();
      EXPECT_FALSE(e.kind_name().empty()) << i;
      EXPECT_EQ(e.what(), render_error(e.style(), e.kind_name(), e.detail(), e.location())) << i;
    } catch (...) {
      ADD_FAILURE() << "thrower " << i << " escaped the base catch";
    }
    EXPECT_FALSE(caught.empty()) << i;
  }
}

// Negative control: an exception outside the family is not caught as one.
TEST(ErrorFamily, OtherExceptionsAreNotErrors) {
  bool as_error = false;
  bool as_other = false;
  try {
    throw std::runtime_error("not ours");
  } catch (const Error&) {
    as_error = true;
  } catch (const std::exception&) {
    as_other = true;
  }
  EXPECT_FALSE(as_error);
  EXPECT_TRUE(as_other);
}

}  // namespace
}  // namespace serialcheck
