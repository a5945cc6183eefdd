// Promoting a saved case to a golden vector: the case's value is pickled by
// the cpython subject (the reference when cpython is not available), the
// pickle is decoded by the reference to the canonical JSON the golden files
// hold, and an entry in corpus/golden/MANIFEST.json's format is added with
// the files it names (pickle, JSON, out-of-band buffers).
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/props/runner.h"
#include "reference/common/error.h"

namespace serialcheck {

// A serialcheck::Error of kind "promote"; what() is the message.
class PromoteError : public Error {
 public:
  explicit PromoteError(std::string message) : Error("promote", std::move(message)) {}
};

struct PromoteResult {
  std::string name;             // the manifest entry's name
  std::string source;           // the subject whose bytes were used ("cpython" or "reference")
  std::string source_note;      // why cpython was not used, when it was not
  bool byte_identical = false;  // the reference encoder writes the same bytes
  std::vector<std::filesystem::path> files;  // written, manifest last
};

// Throws PromoteError (unreadable case, missing manifest, name already used,
// a value naming a module only the harness defines, a pickle the reference
// cannot decode...).
PromoteResult promote_case(const std::filesystem::path& case_file,
                           const std::filesystem::path& golden_dir,
                           const std::vector<SubjectFactory>& factories, double timeout_s,
                           const std::optional<std::string>& name = std::nullopt);

// The default entry name for a case file: "promoted_<subject>_<property>_<hash>",
// lower case, [a-z0-9_] only.
std::string promoted_name(const CaseRecord& record);

}  // namespace serialcheck
