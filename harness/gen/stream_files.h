// Malformed pickle streams kept as files, for loads.rejects-malformed
// (docs/conformance.md) beside the streams it makes from each case: the
// hand-made ones of corpus/malformed (scripts/make-malformed), what the fuzz
// targets have found (corpus/failing/fuzz, scripts/fuzz), and any directory
// a user adds (`serialcheck run --malformed-streams DIR`).
//
// Each file goes to the cases of one protocol, the one the stream declares
// (its PROTO, else 0), so a case alone still says which streams it tried and
// a saved case replays exactly, whatever its value shrinks to.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace serialcheck::gen {

struct StreamFile {
  std::string name;  // "<directory's name>/<file's name>": "malformed/bad-dict-odd.pickle"
  std::string what;  // the directory's MANIFEST.tsv line for it, in words; may be empty
  int protocol = 0;  // declared: PROTO's argument (5 at most), 0 without one
  std::string bytes;
};

// Files larger than this are left out (a malformed stream is small; a large
// file in a directory is not one of them).
inline constexpr std::uintmax_t kLargestStreamFile = std::uintmax_t{1} << 20;

// The directories read: the project's two (corpus/malformed and
// corpus/failing/fuzz of the source tree serialcheck was built from), then
// those added. A directory that does not exist adds nothing.
std::vector<std::filesystem::path> stream_dirs();
// Adds a directory; call before the first stream_files() (a process reads
// the files once). Throws std::invalid_argument if it is not a directory.
void add_stream_dir(const std::filesystem::path& dir);
// Every `*.pickle` file of those directories, in order of directory, then
// name. Read once per process; a file that cannot be read is left out.
const std::vector<StreamFile>& stream_files();
// The same of any directories, read now.
std::vector<StreamFile> read_stream_files(const std::vector<std::filesystem::path>& dirs);

// The protocol a stream declares: PROTO's argument as its first
// instruction (at most 5), else 0.
int declared_protocol(const std::string& bytes);

}  // namespace serialcheck::gen
