// Tests of the frame layer: distributed's pack_frames layout, msgpack
// headers, per-frame lz4/zstd compression and packed messages; interop with
// dask.distributed both ways (through frames_interop.py run by Debian's
// Python), and RapidCheck properties for round trips and hostile input.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "reference/common/utf8.h"
#include "reference/device/device.h"
#include "reference/frames/compression.h"
#include "reference/frames/errors.h"
#include "reference/frames/header.h"
#include "reference/frames/header_json.h"
#include "reference/frames/packed.h"
#include "reference/frames/wire.h"
#include "suite/tests/support/bytes.h"
#include "suite/tests/support/errors.h"
#include "suite/tests/support/files.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test_support::le64;

std::vector<std::string> views(const std::vector<Frame>& frames) {
  std::vector<std::string> out;
  for (const Frame& f : frames) out.emplace_back(f.view());
  return out;
}

std::vector<Frame> owned_frames(const std::vector<std::string>& payloads) {
  std::vector<Frame> out;
  for (const auto& p : payloads) out.push_back(Frame::owned(p));
  return out;
}

template <typename F>
FrameError frame_error_of(F&& f) {
  return test_support::error_of(f, FrameError(FrameErrorKind::CompressionFailed, "none thrown"));
}

std::string bytes_of(std::initializer_list<std::uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

json bin(std::initializer_list<std::uint8_t> bytes) {
  return json::binary(std::vector<std::uint8_t>(bytes));
}

// ---- packed layout ---------------------------------------------------------

TEST(PackedFrames, LayoutIsCountLengthsPayloadsLittleEndian) {
  const std::string packed = pack_frames(owned_frames({"ab", "", "xyz"}));
  EXPECT_EQ(packed, le64(3) + le64(2) + le64(0) + le64(3) + "abxyz");
  EXPECT_EQ(packed_size(owned_frames({"ab", "", "xyz"})), packed.size());
  EXPECT_EQ(pack_frames({}), le64(0));
}

TEST(PackedFrames, PackIntoNeedsExactlyTheSize) {
  auto frames = owned_frames({"abc"});
  std::vector<std::uint8_t> out(packed_size(frames) + 1);
  EXPECT_THROW(pack_frames_into(frames, out), std::invalid_argument);
  pack_frames_into(frames, std::span(out).first(out.size() - 1));
  EXPECT_EQ(std::string(out.begin(), out.end() - 1), pack_frames(frames));
}

TEST(PackedFrames, UnpackIsZeroCopyAndReadonly) {
  const std::string packed = pack_frames(owned_frames({"hello", "", "w"}));
  auto frames = unpack_frames(byte_span(packed));
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(views(frames), (std::vector<std::string>{"hello", "", "w"}));
  const auto* base = reinterpret_cast<const std::uint8_t*>(packed.data());
  EXPECT_EQ(frames[0].data, base + 32);
  EXPECT_EQ(frames[2].data, base + 37);
  for (const Frame& f : frames) {
    EXPECT_TRUE(f.borrowed());
    EXPECT_TRUE(f.readonly);
  }
}

TEST(PackedFrames, UnpackWithAnOwnerSharesIt) {
  auto holder = std::make_shared<const std::string>(pack_frames(owned_frames({"abc", "de"})));
  auto frames = unpack_frames(byte_span(*holder), {}, holder);
  std::weak_ptr<const std::string> weak = holder;
  holder.reset();
  ASSERT_FALSE(weak.expired()) << "frames keep the input alive";
  EXPECT_FALSE(frames[0].borrowed());
  EXPECT_EQ(views(frames), (std::vector<std::string>{"abc", "de"}));
}

TEST(PackedFrames, TruncatedPrelude) {
  for (std::size_t n = 0; n < 8; ++n) {
    FrameError e = frame_error_of([&] { unpack_frames(byte_span(std::string(n, '\0'))); });
    EXPECT_EQ(e.kind(), FrameErrorKind::TruncatedPrelude) << n;
    EXPECT_EQ(e.offset(), 0u);
  }
}

TEST(PackedFrames, CountIsBoundedByTheInputBeforeAllocating) {
  // 2^64-1 frames claimed by 16 bytes: refused without reserving anything.
  FrameError e = frame_error_of([] { unpack_frames(byte_span(le64(~0ull) + le64(0))); });
  EXPECT_EQ(e.kind(), FrameErrorKind::TooManyFrames);
  EXPECT_EQ(e.offset(), 0u);
  // Two frames need 16 bytes of lengths; 8 are there.
  e = frame_error_of([] { unpack_frames(byte_span(le64(2) + le64(0))); });
  EXPECT_EQ(e.kind(), FrameErrorKind::TooManyFrames);
  // A caller's limit.
  UnpackLimits limits;
  limits.max_frames = 1;
  e = frame_error_of([&] {
    unpack_frames(byte_span(pack_frames(owned_frames({"a", "b"}))), limits);
  });
  EXPECT_EQ(e.kind(), FrameErrorKind::TooManyFrames);
}

TEST(PackedFrames, LengthsRunningPastTheEndNameTheFrame) {
  std::string packed = le64(2) + le64(1) + le64(5) + "a" + "bcd";
  FrameError e = frame_error_of([&] { unpack_frames(byte_span(packed)); });
  EXPECT_EQ(e.kind(), FrameErrorKind::FrameOutOfRange);
  EXPECT_EQ(e.frame(), 1u);
  EXPECT_EQ(e.offset(), 16u) << "the offset of the bad length";
  // A length that would overflow a sum of offsets.
  packed = le64(2) + le64(1) + le64(~0ull) + "a";
  e = frame_error_of([&] { unpack_frames(byte_span(packed)); });
  EXPECT_EQ(e.kind(), FrameErrorKind::FrameOutOfRange);
  EXPECT_EQ(e.frame(), 1u);
  EXPECT_NE(std::string(e.what()).find("frame 1"), std::string::npos) << e.what();
}

TEST(PackedFrames, TrailingBytesAreRefusedUnlessAllowed) {
  const std::string packed = pack_frames(owned_frames({"ab"})) + "zz";
  FrameError e = frame_error_of([&] { unpack_frames(byte_span(packed)); });
  EXPECT_EQ(e.kind(), FrameErrorKind::TrailingBytes);
  EXPECT_EQ(e.offset(), packed.size() - 2);
  UnpackLimits lax;
  lax.allow_trailing_bytes = true;
  EXPECT_EQ(views(unpack_frames(byte_span(packed), lax)), std::vector<std::string>{"ab"});
}

// ---- headers -----------------------------------------------------------------

TEST(Header, EncodesLikePythonMsgpackWithBinType) {
  // msgpack.dumps({"a": b"\x01\x02", "s": "x", "t": (None, True)}, use_bin_type=True)
  json h = {{"a", bin({1, 2})}, {"s", "x"}, {"t", json::array({nullptr, true})}};
  EXPECT_EQ(encode_header(h), std::string("\x83\xa1"
                                          "a\xc4\x02\x01\x02\xa1s\xa1x\xa1t\x92\xc0\xc3",
                                          16));
  EXPECT_EQ(encode_header(json::object()), "\x80");
  // Integers take their shortest form; negatives are signed.
  EXPECT_EQ(encode_header(json(-1)), "\xff");
  EXPECT_EQ(encode_header(json(200)), "\xcc\xc8");
  EXPECT_EQ(encode_header(json(-200)), std::string("\xd1\xff\x38", 3));
}

TEST(Header, DecodesEveryTypeDistributedWrites) {
  // {"b": b"", "f": 1.5 (float 64), "n": None, "u": 2**64-1, "i": -2**63, "e": ext(5, b"\x01")}
  const std::string bytes =
      bytes_of({0x86, 0xa1, 'b',  0xc4, 0x00,                                   //
                0xa1, 'f',  0xcb, 0x3f, 0xf8, 0,    0,    0,    0,    0,    0,  //
                0xa1, 'n',  0xc0,                                               //
                0xa1, 'u',  0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0xff,                                                           //
                0xa1, 'i',  0xd3, 0x80, 0,    0,    0,    0,    0,    0,    0,  //
                0xa1, 'e',  0xd4, 0x05, 0x01});
  json h = decode_header(byte_span(bytes));
  EXPECT_TRUE(h["b"].is_binary());
  EXPECT_TRUE(h["b"].get_binary().empty());
  EXPECT_EQ(h["f"], 1.5);
  EXPECT_TRUE(h["n"].is_null());
  EXPECT_EQ(h["u"].get<std::uint64_t>(), ~0ull);
  EXPECT_EQ(h["i"].get<std::int64_t>(), INT64_MIN);
  ASSERT_TRUE(h["e"].is_binary());
  EXPECT_EQ(h["e"].get_binary().subtype(), 5u);
  EXPECT_EQ(decode_header(byte_span(encode_header(h))), h) << "ext survives a round trip";
}

TEST(Header, DuplicateKeysKeepTheLastValueLikeADict) {
  const std::string bytes = "\x82\xa1k\x01\xa1k\x02";
  EXPECT_EQ(decode_header(byte_span(bytes)), json({{"k", 2}}));
}

TEST(Header, MalformedInputIsATypedErrorWithAnOffset) {
  struct Case {
    std::string bytes;
    std::size_t offset;
  };
  for (const Case& c : std::vector<Case>{
           {"", 0},               // nothing
           {"\x82\xa1k\x01", 4},  // map of 2 with 1 entry
           {"\xa5"
            "ab",
            3},                               // str of 5 with 2 bytes
           {"\xc1", 0},                       // the one unused msgpack byte
           {std::string("\x81\x01\x02"), 1},  // an int map key (nlohmann needs strings)
       }) {
    FrameError e = frame_error_of([&] { decode_header(byte_span(c.bytes)); });
    EXPECT_EQ(e.kind(), FrameErrorKind::HeaderMalformed) << testing::PrintToString(c.bytes);
    EXPECT_EQ(e.offset(), c.offset) << e.what();
  }
  FrameError e = frame_error_of([] { decode_header(byte_span(std::string("\xc0\xc0"))); });
  EXPECT_EQ(e.kind(), FrameErrorKind::HeaderMalformed) << "trailing data, as Python's ExtraData";
}

TEST(Header, StringsMustBeUtf8AsPythonRawFalseRequires) {
  for (const std::string& s : {std::string("\xff"), std::string("\xc0\x80"),  // overlong
                               std::string("\xed\xa0\x80"),                   // surrogate
                               std::string("\xf4\x90\x80\x80"),               // > U+10FFFF
                               std::string("\xe2\x82")}) {                    // cut short
    const std::string value = std::string("\x81\xa1k") + static_cast<char>(0xa0 + s.size()) + s;
    FrameError e = frame_error_of([&] { decode_header(byte_span(value)); });
    EXPECT_EQ(e.kind(), FrameErrorKind::HeaderMalformed);
    EXPECT_NE(e.detail().find("UTF-8"), std::string::npos) << e.detail();
    const std::string key = std::string("\x81") + static_cast<char>(0xa0 + s.size()) + s + "\xc0";
    EXPECT_EQ(frame_error_of([&] { decode_header(byte_span(key)); }).kind(),
              FrameErrorKind::HeaderMalformed);
    EXPECT_EQ(frame_error_of([&] {
                encode_header(json{{"k", s}});
              }).kind(),
              FrameErrorKind::HeaderMalformed);
  }
  EXPECT_EQ(decode_header(byte_span(std::string("\xa4\xf0\x9d\x84\x9e"))), "\xf0\x9d\x84\x9e");
}

TEST(Header, DepthIsBoundedLikePythonMsgpack) {
  // Python's msgpack reads 1024 nested arrays and refuses 1025.
  auto nested = [](std::size_t depth) { return std::string(depth, '\x91') + "\xc0"; };
  EXPECT_NO_THROW(decode_header(byte_span(nested(1024))));
  FrameError e = frame_error_of([&] { decode_header(byte_span(nested(1025))); });
  EXPECT_EQ(e.kind(), FrameErrorKind::HeaderLimit);
  // Far deeper input stops at the limit: no stack exhaustion.
  EXPECT_EQ(frame_error_of([&] { decode_header(byte_span(nested(1 << 20))); }).kind(),
            FrameErrorKind::HeaderLimit);
  HeaderLimits shallow;
  shallow.max_depth = 2;
  EXPECT_NO_THROW(decode_header(byte_span(nested(2)), shallow));
  EXPECT_EQ(frame_error_of([&] { decode_header(byte_span(nested(3)), shallow); }).kind(),
            FrameErrorKind::HeaderLimit);
  json deep = nullptr;
  for (int i = 0; i < 3; ++i) deep = json::array({deep});
  EXPECT_EQ(frame_error_of([&] { encode_header(deep, shallow); }).kind(),
            FrameErrorKind::HeaderLimit);
}

TEST(Header, SizeIsBounded) {
  HeaderLimits small;
  small.max_bytes = 4;
  EXPECT_EQ(frame_error_of([&] {
              decode_header(byte_span(std::string("\xa4"
                                                  "abcd")),
                            small);
            }).kind(),
            FrameErrorKind::HeaderLimit);
  EXPECT_EQ(frame_error_of([&] { encode_header(json("abcd"), small); }).kind(),
            FrameErrorKind::HeaderLimit);
  // Declared lengths far beyond the input fail on the input's end.
  EXPECT_EQ(
      frame_error_of([] { decode_header(byte_span(std::string("\xdd\xff\xff\xff\xff"))); }).kind(),
      FrameErrorKind::HeaderMalformed);
  EXPECT_EQ(
      frame_error_of([] { decode_header(byte_span(std::string("\xc6\xff\xff\xff\xff"))); }).kind(),
      FrameErrorKind::HeaderMalformed);
}

// ---- compression -------------------------------------------------------------

std::string compressible(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>("abcabcabd"[i % 9]);
  return s;
}

std::string incompressible(std::size_t n) {
  std::string s(n, '\0');
  std::uint64_t x = 88172645463325252ull;
  for (auto& c : s) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  return s;
}

TEST(Compression, NamesAndHeaderEntries) {
  EXPECT_EQ(compression_header_entry(Compression::None), json(nullptr));
  EXPECT_EQ(compression_header_entry(Compression::Lz4), json("lz4"));
  EXPECT_EQ(compression_header_entry(Compression::Zstd), json("zstd"));
  EXPECT_EQ(parse_compression("zstd"), Compression::Zstd);
  EXPECT_EQ(parse_compression("snappy"), std::nullopt);
  EXPECT_EQ(compression_from_header_entry(json(nullptr), 1), Compression::None);
  EXPECT_EQ(compression_from_header_entry(json(false), 1), Compression::None);
  EXPECT_EQ(compression_from_header_entry(json("lz4"), 1), Compression::Lz4);
  FrameError e = frame_error_of([] { compression_from_header_entry(json("snappy"), 4); });
  EXPECT_EQ(e.kind(), FrameErrorKind::UnsupportedCompression);
  EXPECT_EQ(e.frame(), 4u);
  EXPECT_EQ(frame_error_of([] { compression_from_header_entry(json(3), 1); }).kind(),
            FrameErrorKind::HeaderSchema);
  EXPECT_EQ(frame_error_of([] { compression_from_header_entry(json(true), 1); }).kind(),
            FrameErrorKind::HeaderSchema);
}

TEST(Compression, Lz4IsASizePrefixedBlock) {
  const std::string data = compressible(50000);
  const std::string c = compress_frame(Compression::Lz4, byte_span(data));
  EXPECT_EQ(c.substr(0, 4), le64(50000).substr(0, 4));
  EXPECT_LT(c.size(), data.size() / 10);
  EXPECT_EQ(declared_size(Compression::Lz4, byte_span(c)), 50000u);
  EXPECT_EQ(decompress_frame(Compression::Lz4, byte_span(c), 50000), data);
  EXPECT_EQ(decompress_frame(Compression::Lz4, byte_span(compress_frame(Compression::Lz4, {})), 0),
            "");
}

TEST(Compression, ZstdRecordsItsContentSize) {
  const std::string data = compressible(50000);
  const std::string c = compress_frame(Compression::Zstd, byte_span(data));
  EXPECT_EQ(ZSTD_getFrameContentSize(c.data(), c.size()), 50000u);
  EXPECT_EQ(decompress_frame(Compression::Zstd, byte_span(c), 50000), data);
}

TEST(Compression, DeclaredSizesAreCheckedBeforeAllocating) {
  // An lz4 frame of 5 bytes declaring 2 GiB - 1.
  const std::string lz4 = std::string("\xff\xff\xff\x7f\x00", 5);
  FrameError e =
      frame_error_of([&] { decompress_frame(Compression::Lz4, byte_span(lz4), 1 << 20, 3); });
  EXPECT_EQ(e.kind(), FrameErrorKind::DecompressedTooLarge);
  EXPECT_EQ(e.frame(), 3u);
  const std::string data = compressible(5000);
  const std::string z = compress_frame(Compression::Zstd, byte_span(data));
  EXPECT_EQ(frame_error_of([&] { decompress_frame(Compression::Zstd, byte_span(z), 4999); }).kind(),
            FrameErrorKind::DecompressedTooLarge);
}

TEST(Compression, CorruptFramesAreTypedErrors) {
  const std::string data = compressible(5000);
  std::string lz4 = compress_frame(Compression::Lz4, byte_span(data));
  auto kind = [](Compression codec, const std::string& bytes) {
    return frame_error_of([&] { decompress_frame(codec, byte_span(bytes), 1 << 20, 1); }).kind();
  };
  EXPECT_EQ(kind(Compression::Lz4, "abc"), FrameErrorKind::CorruptCompressed) << "no prefix";
  EXPECT_EQ(kind(Compression::Lz4, std::string("\x00\x00\x00\x80", 4)),
            FrameErrorKind::CorruptCompressed)
      << "negative as python-lz4's signed int";
  std::string wrong_size = lz4;
  wrong_size[0] = static_cast<char>(wrong_size[0] + 1);
  EXPECT_EQ(kind(Compression::Lz4, wrong_size), FrameErrorKind::CorruptCompressed);
  EXPECT_EQ(kind(Compression::Lz4, lz4.substr(0, lz4.size() - 3)),
            FrameErrorKind::CorruptCompressed);
  EXPECT_EQ(kind(Compression::Lz4, std::string("\x05\0\0\0\xff\xff\xff", 7)),
            FrameErrorKind::CorruptCompressed);

  const std::string z = compress_frame(Compression::Zstd, byte_span(data));
  EXPECT_EQ(kind(Compression::Zstd, "not zstd"), FrameErrorKind::CorruptCompressed);
  EXPECT_EQ(kind(Compression::Zstd, z + "x"), FrameErrorKind::CorruptCompressed)
      << "trailing bytes";
  EXPECT_EQ(kind(Compression::Zstd, z.substr(0, z.size() - 1)), FrameErrorKind::CorruptCompressed);
  // A zstd frame without its content size (zstandard cannot read it either).
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  std::string unsized(ZSTD_compressBound(data.size()), '\0');
  unsized.resize(ZSTD_compress2(cctx, unsized.data(), unsized.size(), data.data(), data.size()));
  ZSTD_freeCCtx(cctx);
  EXPECT_EQ(kind(Compression::Zstd, unsized), FrameErrorKind::CorruptCompressed);
}

TEST(Compression, MaybeCompressFollowsDistributedsThresholds) {
  CompressionOptions o;
  o.codec = Compression::Lz4;
  EXPECT_EQ(maybe_compress(byte_span(compressible(9999)), o), std::nullopt) << "below min_size";
  EXPECT_NE(maybe_compress(byte_span(compressible(10000)), o), std::nullopt);
  EXPECT_EQ(maybe_compress(byte_span(incompressible(20000)), o), std::nullopt)
      << "not worth it (ratio above 0.9)";
  o.max_size = 15000;
  EXPECT_EQ(maybe_compress(byte_span(compressible(20000)), o), std::nullopt) << "above max_size";
  o.codec = Compression::None;
  EXPECT_EQ(maybe_compress(byte_span(compressible(12000)), o), std::nullopt);
}

// ---- messages ------------------------------------------------------------------

TEST(PackedMessage, HeaderGetsCompressionAndCount) {
  Message m;
  m.header = {{"serializer", "pickle"}, {"compression", "stale"}};
  m.frames = owned_frames({"abc", compressible(20000)});
  PackOptions o;
  o.compression.codec = Compression::Zstd;
  const std::string packed = pack_message(m, o);
  auto frames = unpack_frames(byte_span(packed));
  ASSERT_EQ(frames.size(), 3u);
  json h = decode_header(frames[0].bytes());
  EXPECT_EQ(h["compression"], json::array({nullptr, "zstd"}));
  EXPECT_EQ(h["count"], 2);
  EXPECT_EQ(h["serializer"], "pickle");
  EXPECT_EQ(frames[1].view(), "abc");
  EXPECT_LT(frames[2].size, 1000u);

  Message back = unpack_message(byte_span(packed));
  EXPECT_EQ(back.header, h) << "the header comes back as packed";
  EXPECT_EQ(views(back.frames), views(m.frames));
  EXPECT_TRUE(back.frames[0].borrowed()) << "uncompressed frames point into the input";
  EXPECT_EQ(back.frames[0].data, frames[1].data);
  EXPECT_FALSE(back.frames[1].borrowed()) << "decompressed frames are owned";
}

TEST(PackedMessage, DeviceFramesAreNeverPacked) {
  auto dev = device::SimulatedDevice::create();
  Message m;
  m.frames = owned_frames({"a"});
  m.frames.push_back(Frame::device_view(dev->upload(byte_span(compressible(20000)))));
  PackOptions o;
  o.compression.codec = Compression::Lz4;
  FrameError e = frame_error_of([&] { pack_message(m, o); });
  EXPECT_EQ(e.kind(), FrameErrorKind::DeviceFrame);
  EXPECT_EQ(e.frame(), 2u) << "Message::frames[1] is packed frame 2";
  EXPECT_EQ(dev->counters().device_to_host, 0u);
}

std::string message_with_header(const json& header, const std::vector<std::string>& frames) {
  std::vector<Frame> packed{Frame::owned(encode_header(header))};
  for (const auto& f : frames) packed.push_back(Frame::owned(f));
  return pack_frames(packed);
}

TEST(PackedMessage, SchemaErrors) {
  auto kind_of = [](const std::string& bytes) {
    return frame_error_of([&] { unpack_message(byte_span(bytes)); }).kind();
  };
  EXPECT_EQ(kind_of(pack_frames({})), FrameErrorKind::HeaderSchema) << "no header frame";
  EXPECT_EQ(kind_of(message_with_header(json::array(), {})), FrameErrorKind::HeaderSchema);
  EXPECT_EQ(kind_of(pack_frames(owned_frames({""}))), FrameErrorKind::HeaderSchema)
      << "an empty header has no compression list (distributed: KeyError)";
  EXPECT_EQ(kind_of(message_with_header({{"count", 1}}, {"a"})), FrameErrorKind::HeaderSchema);
  EXPECT_EQ(kind_of(message_with_header({{"compression", json::array()}}, {"a"})),
            FrameErrorKind::HeaderSchema)
      << "distributed would silently drop the frame";
  EXPECT_EQ(kind_of(message_with_header({{"compression", "lz4"}}, {"a"})),
            FrameErrorKind::HeaderSchema);
  EXPECT_EQ(kind_of(message_with_header({{"compression", {nullptr}}, {"count", 2}}, {"a"})),
            FrameErrorKind::HeaderSchema);
  EXPECT_EQ(kind_of(message_with_header({{"compression", {nullptr}}, {"count", "1"}}, {"a"})),
            FrameErrorKind::HeaderSchema);
  const std::string two = message_with_header({{"compression", {nullptr, false}}}, {"a", "b"});
  Message ok = unpack_message(byte_span(two));
  EXPECT_EQ(views(ok.frames), (std::vector<std::string>{"a", "b"})) << "count is optional";
}

TEST(PackedMessage, CompressionErrorsNameTheFrame) {
  FrameError e = frame_error_of([] {
    unpack_message(
        byte_span(message_with_header({{"compression", {nullptr, "snappy"}}}, {"a", "b"})));
  });
  EXPECT_EQ(e.kind(), FrameErrorKind::UnsupportedCompression);
  EXPECT_EQ(e.frame(), 2u);
  e = frame_error_of([] {
    unpack_message(byte_span(message_with_header({{"compression", {"lz4"}}}, {"xy"})));
  });
  EXPECT_EQ(e.kind(), FrameErrorKind::CorruptCompressed);
  EXPECT_EQ(e.frame(), 1u);
}

TEST(PackedMessage, DecompressedTotalIsBoundedBeforeDecompressing) {
  const std::string c = compress_frame(Compression::Lz4, byte_span(compressible(600)));
  const std::string bytes = message_with_header({{"compression", {"lz4", "lz4"}}}, {c, c});
  UnpackOptions o;
  o.max_decompressed_bytes = 1000;
  FrameError e = frame_error_of([&] { unpack_message(byte_span(bytes), o); });
  EXPECT_EQ(e.kind(), FrameErrorKind::DecompressedTooLarge);
  EXPECT_EQ(e.frame(), 2u);
  o.max_decompressed_bytes = 1200;
  EXPECT_EQ(unpack_message(byte_span(bytes), o).frames.size(), 2u);
}

TEST(PackedMessage, HeaderErrorsGiveOffsetsInTheWholeInput) {
  const std::string bytes = pack_frames(owned_frames({"\x82\xa1k\x01", "x"}));
  FrameError e = frame_error_of([&] { unpack_message(byte_span(bytes)); });
  EXPECT_EQ(e.kind(), FrameErrorKind::HeaderMalformed);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.offset(), 24u + 4u) << e.what();
}

// ---- properties ------------------------------------------------------------------

rc::Gen<std::string> gen_payload() {
  return rc::gen::oneOf(rc::gen::arbitrary<std::string>(),
                        rc::gen::map(rc::gen::pair(rc::gen::inRange<std::size_t>(0, 30000),
                                                   rc::gen::inRange<int>(1, 5)),
                                     [](std::pair<std::size_t, int> p) {
                                       std::string s(p.first, 'a');
                                       for (std::size_t i = 0; i < s.size(); ++i)
                                         s[i] = static_cast<char>('a' + (i % p.second));
                                       return s;
                                     }));
}

rc::Gen<json> gen_header(int depth) {
  auto scalar = rc::gen::oneOf(
      rc::gen::just(json(nullptr)),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return json(b); }),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t v) { return json(v); }),
      rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t v) { return json(v); }),
      rc::gen::map(rc::gen::arbitrary<double>(),
                   [](double v) { return std::isnan(v) ? json(0.5) : json(v); }),
      rc::gen::map(
          rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()),
          [](std::vector<std::uint8_t> v) { return json::binary(std::move(v)); }),
      rc::gen::map(
          rc::gen::container<std::vector<char32_t>>(rc::gen::oneOf(
              rc::gen::inRange<char32_t>(0, 0xD800), rc::gen::inRange<char32_t>(0xE000, 0x110000))),
          [](const std::vector<char32_t>& cps) {
            return json(utf8_from_code_points(std::u32string(cps.begin(), cps.end())));
          }));
  if (depth <= 0) return scalar;
  auto child = rc::gen::lazy([depth] { return gen_header(depth - 1); });
  return rc::gen::oneOf(
      scalar,
      rc::gen::map(rc::gen::container<std::vector<json>>(rc::gen::resize(8, child)),
                   [](std::vector<json> v) { return json(std::move(v)); }),
      rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, json>>>(
                       rc::gen::resize(8, rc::gen::pair(rc::gen::string<std::string>(), child))),
                   [](const std::vector<std::pair<std::string, json>>& kv) {
                     json o = json::object();
                     for (const auto& [k, v] : kv) {
                       // Keys as bytes would not be UTF-8: keep the ASCII letters.
                       std::string key;
                       for (char c : k)
                         if (c >= 'a' && c <= 'z') key += c;
                       o[key] = v;
                     }
                     return o;
                   }));
}

// A valid packed input with one of: nothing, a changed byte, a cut, an append.
rc::Gen<std::string> gen_mutated(const std::string& valid) {
  const std::size_t n = valid.size();
  return rc::gen::oneOf(rc::gen::just(valid),
                        rc::gen::map(rc::gen::pair(rc::gen::inRange<std::size_t>(0, n),
                                                   rc::gen::arbitrary<std::uint8_t>()),
                                     [valid](std::pair<std::size_t, std::uint8_t> p) {
                                       std::string s = valid;
                                       s[p.first] = static_cast<char>(p.second);
                                       return s;
                                     }),
                        rc::gen::map(rc::gen::inRange<std::size_t>(0, n),
                                     [valid](std::size_t k) { return valid.substr(0, k); }),
                        rc::gen::map(rc::gen::string<std::string>(),
                                     [valid](const std::string& tail) { return valid + tail; }));
}

RC_GTEST_PROP(FramesProps, PackUnpackRoundTrip, (const std::vector<std::string>& payloads)) {
  const std::string packed = pack_frames(owned_frames(payloads));
  RC_ASSERT(packed.size() == packed_size(owned_frames(payloads)));
  RC_ASSERT(views(unpack_frames(byte_span(packed))) == payloads);
}

RC_GTEST_PROP(FramesProps, UnpackGivesFramesOrAFrameError, ()) {
  const auto payloads = *rc::gen::container<std::vector<std::string>>(
      rc::gen::resize(8, rc::gen::arbitrary<std::string>()));
  const std::string input = *rc::gen::oneOf(rc::gen::arbitrary<std::string>(),
                                            gen_mutated(pack_frames(owned_frames(payloads))));
  try {
    auto frames = unpack_frames(byte_span(input));
    // Whatever unpacks, packs back to the same bytes.
    RC_ASSERT(pack_frames(frames) == input);
  } catch (const FrameError& e) {
    RC_ASSERT(std::string(e.what()).size() > 0);
  }
}

RC_GTEST_PROP(FramesProps, HeaderRoundTrips, ()) {
  const json h = *gen_header(3);
  RC_ASSERT(decode_header(byte_span(encode_header(h))) == h);
}

RC_GTEST_PROP(FramesProps, DecodeHeaderGivesATreeOrAFrameError, ()) {
  const json h = *gen_header(3);
  const std::string input =
      *rc::gen::oneOf(rc::gen::arbitrary<std::string>(), gen_mutated(encode_header(h)));
  try {
    json back = decode_header(byte_span(input));
    RC_ASSERT(decode_header(byte_span(encode_header(back))) == back);
  } catch (const FrameError&) {
  }
}

RC_GTEST_PROP(FramesProps, MessagesRoundTripWithEveryCodec, ()) {
  const auto payloads =
      *rc::gen::container<std::vector<std::string>>(rc::gen::resize(6, gen_payload()));
  PackOptions o;
  o.compression.codec = *rc::gen::element(Compression::None, Compression::Lz4, Compression::Zstd);
  o.compression.min_size = *rc::gen::inRange<std::size_t>(0, 20000);
  Message m;
  m.header = {{"serializer", "pickle"}, {"writeable", json::array({true})}};
  m.frames = owned_frames(payloads);
  const std::string packed = pack_message(m, o);  // uncompressed frames point into it
  Message back = unpack_message(byte_span(packed));
  RC_ASSERT(views(back.frames) == payloads);
  RC_ASSERT(back.header["count"] == payloads.size());
  RC_ASSERT(back.header["serializer"] == "pickle");
}

RC_GTEST_PROP(FramesProps, UnpackMessageGivesAMessageOrAFrameError, ()) {
  const auto payloads =
      *rc::gen::container<std::vector<std::string>>(rc::gen::resize(4, gen_payload()));
  PackOptions o;
  o.compression.codec = *rc::gen::element(Compression::Lz4, Compression::Zstd);
  o.compression.min_size = 0;
  Message m;
  m.frames = owned_frames(payloads);
  const std::string input = *gen_mutated(pack_message(m, o));
  UnpackOptions limits;
  limits.max_decompressed_bytes = 1 << 20;
  try {
    Message back = unpack_message(byte_span(input), limits);
    std::size_t total = 0;
    for (const Frame& f : back.frames) total += f.size;
    RC_ASSERT(total <= input.size() + limits.max_decompressed_bytes);
  } catch (const FrameError&) {
  }
}

// ---- interop with dask.distributed -------------------------------------------------

const char* python_executable() {
#ifdef SERIALCHECK_PYTHON_EXECUTABLE
  return SERIALCHECK_PYTHON_EXECUTABLE;
#else
  return "/usr/bin/python3";
#endif
}

// The file's bytes; "" when it cannot be read.
std::string read_file(const fs::path& p) {
  return test_support::read_file(p).value_or("");
}

using test_support::write_file;

// Runs frames_interop.py; returns its exit status and sets `output`.
int run_interop(const std::string& verb, const fs::path& dir, std::string& output) {
  const std::string script = std::string(SERIALCHECK_SOURCE_DIR) + "/suite/tests/frames_interop.py";
  const std::string cmd = std::string("'") + python_executable() + "' '" + script + "' " + verb +
                          " '" + dir.string() + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  return pclose(p);
}

// Runs `produce` once per test in a fresh directory; skips (with the reason)
// where Debian's Python or distributed is missing.
class DistributedInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(python_executable())) {
      GTEST_SKIP() << python_executable() << " not found: interop with distributed needs it";
    }
    dir_ = fs::temp_directory_path() /
           fmt::format("serialcheck-frames-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::string out;
    const int rc = run_interop("produce", dir_, out);
    if (rc != 0 && (out.find("ModuleNotFoundError") != std::string::npos ||
                    out.find("ImportError") != std::string::npos)) {
      GTEST_SKIP() << "distributed, msgpack or numpy missing: " << out;
    }
    ASSERT_EQ(rc, 0) << out;
    manifest_ = json::parse(read_file(dir_ / "manifest.json"));
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  bool python_has(const std::string& codec) const {
    for (const auto& c : manifest_["codecs"]) {
      if (c == codec) return true;
    }
    return false;
  }
  fs::path dir_;
  json manifest_;
};

TEST_F(DistributedInterop, UnpacksDistributedsPackFrames) {
  const std::string bytes = read_file(dir_ / "packed.bin");
  auto frames = unpack_frames(byte_span(bytes));
  json got = json::array();
  for (const Frame& f : frames) got.push_back(json::binary({f.data, f.data + f.size}));
  EXPECT_EQ(header_to_text_json(got), manifest_["packed"]);
}

TEST_F(DistributedInterop, DecodesDistributedsMsgpackHeader) {
  const std::string bytes = read_file(dir_ / "header.msgpack");
  json h = decode_header(byte_span(bytes));
  EXPECT_EQ(h, header_from_text_json(manifest_["header"]));
  EXPECT_TRUE(h["type-serialized"].is_binary());
  EXPECT_EQ(h["writeable"], json::array({true, false})) << "tuples are arrays";
  EXPECT_EQ(h["big"].get<std::uint64_t>(), ~0ull);
  EXPECT_EQ(h["unicode"], "h\xc3\xa9llo \xe2\x98\x83 \xf0\x9d\x84\x9e");
  // Re-encoded, it decodes to the same tree (the bytes differ only in key
  // order and float width).
  EXPECT_EQ(decode_header(byte_span(encode_header(h))), h);
}

TEST_F(DistributedInterop, UnpacksDistributedsSerializeBytes) {
  std::size_t compressed = 0;
  for (auto it = manifest_["cases"].begin(); it != manifest_["cases"].end(); ++it) {
    SCOPED_TRACE(it.key());
    const std::string bytes = read_file(dir_ / (it.key() + ".bin"));
    Message m = unpack_message(byte_span(bytes));
    EXPECT_EQ(m.header, header_from_text_json(it.value()["header"]));
    const std::string want = read_file(dir_ / (it.key() + ".frames"));
    EXPECT_EQ(views(m.frames), views(unpack_frames(byte_span(want))));
    for (const auto& c : m.header["compression"]) compressed += c.is_string() ? 1 : 0;
  }
  EXPECT_GE(compressed, 2u)
      << "distributed compressed no frame: the decompression path went untested";
  const json nd =
      decode_header(unpack_frames(byte_span(read_file(dir_ / "ndarray.lz4.bin")))[0].bytes());
  EXPECT_EQ(nd["compression"], json::array({"lz4"}));
  EXPECT_EQ(nd["serializer"], "dask");
}

TEST_F(DistributedInterop, PythonHasBothCodecs) {
  for (const char* codec : {"lz4", "zstd"}) {
    if (!python_has(codec)) {
      GTEST_SKIP() << "distributed cannot use " << codec
                   << " here (python3-lz4 / python3-zstandard missing): its interop is untested";
    }
  }
  SUCCEED();
}

TEST_F(DistributedInterop, DistributedLoadsWhatTheReferencePacks) {
  std::vector<std::string> codecs{"none"};
  for (const char* c : {"lz4", "zstd"}) {
    if (python_has(c)) codecs.emplace_back(c);
  }
  // Messages distributed serialized, re-packed by the reference.
  for (const char* name : {"ndarray", "bytes", "dict", "small"}) {
    const std::string bytes = read_file(dir_ / fmt::format("{}.none.bin", name));
    Message m = unpack_message(byte_span(bytes));
    for (const auto& codec : codecs) {
      PackOptions o;
      o.compression.codec = *parse_compression(codec);
      write_file(dir_ / fmt::format("ref.{}.{}.bin", name, codec), pack_message(m, o));
    }
  }
  write_file(dir_ / "ref-packed.bin", pack_frames(owned_frames({"", "abc", [] {
                                                                  std::string s;
                                                                  for (int r = 0; r < 3; ++r)
                                                                    for (int i = 0; i < 256; ++i)
                                                                      s += static_cast<char>(i);
                                                                  return s;
                                                                }()})));
  const json sample = {
      {"serializer", "dask"},
      {"type-serialized", bin({0x80, 0x04, 0x95})},
      {"lengths", {1, 2, 3}},
      {"neg", -7},
      {"u64", ~0ull},
      {"i64-min", INT64_MIN},
      {"float", 0.1},
      {"float32-exact", 1.5},
      {"nested", {{"a", {json::array(), json::object()}}, {"b", nullptr}}},
      {"bools", {true, false}},
      {"unicode", "snow \xe2\x98\x83 \xf0\x9d\x84\x9e"},
      {"empty-bin", bin({})},
      {"long", std::string(70000, 'q')},
  };
  write_file(dir_ / "ref-header.msgpack", encode_header(sample));
  write_file(dir_ / "ref-header.json", header_to_text_json(sample).dump());
  const std::string payload = compressible(100000);
  write_file(dir_ / "payload.bin", payload);
  for (const auto& codec : codecs) {
    if (codec == "none") continue;
    write_file(dir_ / ("ref-compressed." + codec),
               compress_frame(*parse_compression(codec), byte_span(payload)));
  }

  std::string out;
  ASSERT_EQ(run_interop("consume", dir_, out), 0) << out;
  const json results = json::parse(read_file(dir_ / "results.json"));
  std::size_t checked = 0;
  for (auto it = results.begin(); it != results.end(); ++it) {
    EXPECT_TRUE(it.value()["ok"].get<bool>()) << it.key() << ": " << it.value().dump();
    ++checked;
  }
  EXPECT_EQ(checked, 4 * codecs.size() + 2 + (codecs.size() - 1)) << results.dump();
  for (const auto& codec : codecs) {
    const json& r = results[fmt::format("ref.ndarray.{}.bin", codec)];
    EXPECT_EQ(r["count"], 1);
    EXPECT_EQ(r["compression"], json::array({codec == "none" ? json(nullptr) : json(codec)}));
  }
  if (python_has("lz4")) {
    EXPECT_TRUE(results["ref-compressed.lz4"]["identical"].get<bool>())
        << "the reference's lz4 frame differs from lz4.block.compress";
  }
  if (python_has("zstd")) {
    // Only recorded: zstd output may differ between library versions.
    RecordProperty("zstd_identical_to_zstandard",
                   results["ref-compressed.zstd"]["identical"].dump());
  }
}

}  // namespace
}  // namespace serialcheck
