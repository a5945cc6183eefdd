// The malformed streams kept as files (harness/gen/stream_files.h): every
// *.pickle of corpus/malformed and of the fuzz targets' finds is read, named
// by its directory and file, noted from its MANIFEST.tsv line, and given the
// protocol it declares; a directory a user adds is read after them.
#include "harness/gen/stream_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace serialcheck::gen {
namespace {

const std::filesystem::path kCorpus = std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "corpus";

std::set<std::string> pickles_in(const std::filesystem::path& dir, const std::string& prefix) {
  std::set<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".pickle")
      out.insert(prefix + entry.path().filename().string());
  }
  return out;
}

TEST(DeclaredProtocol, ProtoOrZero) {
  EXPECT_EQ(declared_protocol(std::string("\x80\x02N.", 4)), 2);
  EXPECT_EQ(declared_protocol(std::string("\x80\x05N.", 4)), 5);
  EXPECT_EQ(declared_protocol(std::string("\x80\x09N.", 4)), 5);  // past 5: read at 5
  EXPECT_EQ(declared_protocol("N."), 0);
  EXPECT_EQ(declared_protocol("\x80"), 0);  // PROTO cut short declares nothing
  EXPECT_EQ(declared_protocol(""), 0);
}

// The project's: every stream of corpus/malformed and the fuzz finds, each
// once, with the protocol it declares and its manifest's note.
TEST(StreamFiles, TheCorpusAndTheFuzzFinds) {
  std::set<std::string> want = pickles_in(kCorpus / "malformed", "malformed/");
  const std::set<std::string> fuzz = pickles_in(kCorpus / "failing" / "fuzz", "fuzz/");
  want.insert(fuzz.begin(), fuzz.end());
  ASSERT_GT(want.size(), 100u);
  std::set<std::string> got;
  bool noted = false;
  for (const StreamFile& f : stream_files()) {
    EXPECT_TRUE(got.insert(f.name).second) << f.name << " twice";
    EXPECT_FALSE(f.bytes.empty() && f.name != "malformed/truncated-empty.pickle") << f.name;
    EXPECT_EQ(f.protocol, declared_protocol(f.bytes)) << f.name;
    if (f.name == "malformed/bad-dict-odd.pickle") {
      // The manifest's words, with the byte where it names one.
      EXPECT_EQ(f.what, "DICT with an odd number of items (byte 2)");
      noted = true;
    }
  }
  EXPECT_EQ(got, want);
  EXPECT_TRUE(noted);
  EXPECT_EQ(stream_dirs().size(), 2u);  // no directory added in this process
}

// A user's directory: its *.pickle files only, in name order, a file too
// large to be a stream left out; a path that is not a directory refused.
TEST(StreamFiles, AnotherDirectory) {
  const std::filesystem::path mine = std::filesystem::temp_directory_path() /
                                     ("serialcheck-streams-" + std::to_string(::getpid()));
  std::filesystem::create_directories(mine);
  {
    std::ofstream(mine / "odd-dict.pickle", std::ios::binary) << std::string(
        "(K\x01"
        "d.",
        5);
    std::ofstream(mine / "a-proto-3.pickle", std::ios::binary) << std::string("\x80\x03N.", 4);
    std::ofstream(mine / "notes.txt") << "not a stream\n";
    std::ofstream(mine / "huge.pickle", std::ios::binary)
        << std::string(static_cast<std::size_t>(kLargestStreamFile) + 1, 'N');
    std::ofstream(mine / "MANIFEST.tsv") << "# name\twhat\nodd-dict\tDICT with one item\n";
  }
  EXPECT_THROW(add_stream_dir(mine / "missing"), std::invalid_argument);
  const std::vector<StreamFile> files = read_stream_files({mine, mine / "missing"});
  std::filesystem::remove_all(mine);
  ASSERT_EQ(files.size(), 2u);
  const std::string dir = mine.filename().string();
  EXPECT_EQ(files[0].name, dir + "/a-proto-3.pickle");
  EXPECT_EQ(files[0].protocol, 3);
  EXPECT_EQ(files[0].what, "");
  EXPECT_EQ(files[1].name, dir + "/odd-dict.pickle");
  EXPECT_EQ(files[1].bytes, std::string("(K\x01"
                                        "d.",
                                        5));
  EXPECT_EQ(files[1].protocol, 0);
  EXPECT_EQ(files[1].what, "DICT with one item");
}

}  // namespace
}  // namespace serialcheck::gen
