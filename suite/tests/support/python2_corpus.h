// Test support for cross.py2 where no Python 2.7 is installed: the pickles
// CPython 2.7 wrote (corpus/python2/cpython-2.7.json, made by
// scripts/make-python2-corpus) served by a subject that "writes" a value by
// handing back the pickle 2.7 wrote for it, so that the property reads what
// the real 2.7 writes in every build.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/props/case.h"
#include "harness/subjects/subject.h"
#include "reference/value/json.h"
#include "suite/tests/support/files.h"

namespace serialcheck::test_support {

struct Python2Pickle {
  std::string name;  // the writer's name for the value ("latin1-str")
  TestCase c;        // the value and the protocol it was pickled at
  std::string pickle;
};

struct Python2Corpus {
  std::string python_version;  // of the 2.7 that wrote it
  std::vector<Python2Pickle> pickles;
};

// The corpus, or nullopt (with a test failure) when it cannot be read.
inline std::optional<Python2Corpus> load_python2_corpus() {
  const auto path = source_path("corpus/python2/cpython-2.7.json");
  const auto text = read_file(path);
  if (!text) {
    ADD_FAILURE() << "cannot read " << path;
    return std::nullopt;
  }
  const nlohmann::json doc = nlohmann::json::parse(*text);
  Python2Corpus out;
  out.python_version = doc.at("python_version").get<std::string>();
  for (const auto& row : doc.at("cases")) {
    Python2Pickle p;
    p.name = row.at("name").get<std::string>();
    p.c.graph = std::make_shared<Graph>();
    p.c.value = from_json(row.at("value").dump(), *p.c.graph);
    p.c.protocol = row.at("protocol").get<int>();
    const std::string hexed = row.at("pickle").get<std::string>();
    for (std::size_t i = 0; i + 1 < hexed.size(); i += 2) {
      p.pickle.push_back(static_cast<char>(std::stoi(hexed.substr(i, 2), nullptr, 16)));
    }
    out.pickles.push_back(std::move(p));
  }
  return out;
}

// Whether every bytes the value holds is within ASCII.
inline bool corpus_ascii_only(const Node* value) {
  std::vector<const Node*> todo{value};
  std::set<const Node*> seen;
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    if (n->kind == Kind::Bytes) {
      for (const char ch : n->payload()) {
        if (static_cast<unsigned char>(ch) >= 0x80) return false;
      }
    }
    for (const Node* item : n->items) todo.push_back(item);
  }
  return true;
}

// CPython 2.7's cPickle as the corpus recorded it: dumps() answers the
// pickle 2.7 wrote for an equal value (by canonical JSON) at that protocol,
// and "unsupported" for any other value; it reads nothing. It declares what
// the Python adapter under 2.7 declares.
class Python2CorpusSubject : public Subject {
 public:
  explicit Python2CorpusSubject(Python2Corpus corpus, std::string name = "cpython-2.7")
      : corpus_(std::move(corpus)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.max_protocol = 2;
    c.can_load = false;
    c.python_values = true;
    c.python_version = corpus_.python_version;
    c.default_protocol = 0;
    c.cannot_express = {"str-bytes", "nan-bits", "dict-order"};
    return c;
  }
  Message dumps(const Node* value, const DumpOptions& options) override {
    // As the Python adapter under 2.7: bytes beyond ASCII only for a reader
    // that chose how to load them.
    if (!options.reader_chooses_encoding) {
      if (!corpus_ascii_only(value)) {
        throw SubjectError(kUnsupported, "bytes beyond ASCII for the default ASCII reader");
      }
    }
    const std::string wanted = to_json(value);
    for (const Python2Pickle& p : corpus_.pickles) {
      if (p.c.protocol != options.protocol || to_json(p.c.value) != wanted) continue;
      Message m;
      m.frames.push_back(Frame::owned(p.pickle));
      m.header = {{"serializer", "pickle"},
                  {"protocol", options.protocol},
                  {"writeable", nlohmann::json::array()}};
      return m;
    }
    throw SubjectError(kUnsupported, "not a value of the Python 2 corpus at this protocol");
  }
  Node* loads(const Message&, Graph&, const LoadOptions&) override {
    throw SubjectError(kUnsupported, "the corpus only writes");
  }

 private:
  Python2Corpus corpus_;
  std::string name_;
};

}  // namespace serialcheck::test_support
