#include "suite/cli/subjects.h"

#include "harness/subjects/reference_subject.h"

#ifdef SERIALCHECK_HAVE_PYTHON
#include "harness/subjects/python_subjects.h"
#endif

namespace serialcheck::cli {

std::vector<SubjectFactory> subject_factories() {
  std::vector<SubjectFactory> factories;
  factories.push_back({"reference", [] { return std::make_unique<ReferenceSubject>(); }});
#ifdef SERIALCHECK_HAVE_PYTHON
  // Making the subject objects starts no interpreter (they start it lazily),
  // so asking their names here keeps this process free of Python.
  for (const auto& subject : make_python_subjects()) {
    std::string name = subject->name();
    factories.push_back({name, [name]() -> std::unique_ptr<Subject> {
                           for (auto& s : make_python_subjects()) {
                             if (s->name() == name) return std::move(s);
                           }
                           return nullptr;
                         }});
  }
#endif
  return factories;
}

std::vector<std::string> subject_names(const std::vector<SubjectFactory>& factories) {
  std::vector<std::string> names;
  for (const auto& f : factories) names.push_back(f.name);
  return names;
}

}  // namespace serialcheck::cli
