// Test support: a PropertyEnv whose helper subjects are the ones a test
// names, so a test that runs one property on one case says which subjects
// stand beside the subject under test in one line.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "harness/props/gate_props.h"
#include "harness/subjects/subject.h"

namespace serialcheck::test_support {

// env.subject finds exactly `helpers` (name -> subject); any other name is
// "not in this test".
inline PropertyEnv env_with(std::map<std::string, Subject*> helpers) {
  PropertyEnv env;
  env.subject = [helpers = std::move(helpers)](const std::string& name,
                                               std::string* why) -> Subject* {
    if (auto it = helpers.find(name); it != helpers.end()) return it->second;
    if (why != nullptr) *why = "not in this test";
    return nullptr;
  };
  return env;
}

}  // namespace serialcheck::test_support
