// The encoder's globals (Modules/_pickle.c: save_global, save_type): a
// global written by name, GLOBAL below protocol 4 (with Python 2 names below
// 3, as fix_imports does, and a nested name as getattr(<parent>, '<name>')),
// STACK_GLOBAL from 4 on, and the str objects STACK_GLOBAL writes, which are
// interned or new depending on where the global comes from (origin_of).
// Globals are memoized by (module, qualname), interned strs by value.
//
// Fails with PickleError (Unpicklable) for a name pickle cannot write: empty,
// local ('<locals>'), not ASCII at protocols other than 3, or with a newline.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/pickle/compat.h"
#include "reference/pickle/internal/encoder_memo.h"
#include "reference/pickle/internal/encoder_state.h"
#include "reference/pickle/internal/encoder_tasks.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/text.h"
#include "reference/pickle/writer.h"

namespace serialcheck::pickle::encoder_internal {
namespace {

// Where a global comes from decides which str objects STACK_GLOBAL writes,
// hence what the memo shares:
//  - Python classes and functions: module name and qualname are interned;
//  - C types: the module name is interned (type.__module__ interns it), the
//    qualname is a new str each time;
//  - C functions: the module name is the module's own __name__ object, which
//    for a C module is not the interned str (so builtins.len and builtins.dict
//    write 'builtins' twice), and the name is a new str each time;
//  - C heap types (made from a type spec, as operator.itemgetter is): each
//    type holds its own module name and qualname, neither interned, so two
//    such types of one module write the module name twice.
// The model holds names only, so C origins come from this table of common
// cases (CPython 3.11); everything else is taken to be defined in Python.
enum class Origin { kPython, kCType, kCFunction, kHeapCType };

// The functions of builtins (CPython 3.11); its other names are C types or
// singletons (Ellipsis...), which behave alike here.
constexpr std::string_view kBuiltinFunctions =
    "__build_class__ __import__ abs aiter all anext any ascii bin breakpoint callable chr "
    "compile delattr dir divmod eval exec format getattr globals hasattr hash hex id input "
    "isinstance issubclass iter len locals max min next oct ord pow print repr round setattr "
    "sorted sum vars ";

struct CType {
  std::string_view module, qualname;
};
constexpr CType kCTypes[] = {
    {"datetime", "date"},           {"datetime", "datetime"}, {"datetime", "time"},
    {"datetime", "timedelta"},      {"datetime", "tzinfo"},   {"datetime", "timezone"},
    {"collections", "OrderedDict"}, {"collections", "deque"}, {"collections", "defaultdict"},
    {"decimal", "Decimal"},         {"decimal", "Context"},
};
constexpr CType kHeapCTypes[] = {
    {"operator", "itemgetter"}, {"operator", "attrgetter"}, {"operator", "methodcaller"},
    {"functools", "partial"},   {"array", "array"},
};

Origin origin_of(std::string_view module, std::string_view qualname) {
  if (module == "builtins") {
    // A whole space-separated word of the list.
    for (std::size_t at = kBuiltinFunctions.find(qualname); at != std::string_view::npos;
         at = kBuiltinFunctions.find(qualname, at + 1)) {
      std::size_t end = at + qualname.size();
      if ((at == 0 || kBuiltinFunctions[at - 1] == ' ') &&
          (end == kBuiltinFunctions.size() || kBuiltinFunctions[end] == ' ')) {
        return Origin::kCFunction;
      }
    }
    return Origin::kCType;
  }
  for (const CType& t : kCTypes) {
    if (t.module == module && t.qualname == qualname) return Origin::kCType;
  }
  for (const CType& t : kHeapCTypes) {
    if (t.module == module && t.qualname == qualname) return Origin::kHeapCType;
  }
  return Origin::kPython;
}

}  // namespace

void Encoder::save_global(std::string_view module, std::string_view qualname) {
  boundary();
  emit_global(module, qualname);
}

// save_global (and save_type) for the object module.qualname, after
// save()'s frame boundary.
void Encoder::emit_global(std::string_view module, std::string_view qualname) {
  const GlobalName key{module, qualname};
  if (MemoId id = global_memo_.find(key); id != kNoMemo) {
    memo_get(id);
    return;
  }
  if (module.empty() || qualname.empty()) fail("a global needs a module and a name");
  for (std::size_t start = 0;;) {
    std::size_t dot = qualname.find('.', start);
    std::string_view part = qualname.substr(
        start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty()) fail("empty component in global name '" + std::string(qualname) + "'");
    if (part == "<locals>") {
      fail("Can't pickle local object '" + std::string(qualname) + "'");
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (module == "types" &&
      (qualname == "NoneType" || qualname == "EllipsisType" || qualname == "NotImplementedType")) {
    // save_type: these three types reduce to type(None), type(...), ...
    save_global("builtins", "type");
    boundary();
    if (proto_ < 2) put(op(Op::MARK));
    boundary();
    if (qualname == "NoneType") {
      put(op(Op::NONE));
    } else {
      save_global("builtins", qualname == "EllipsisType" ? "Ellipsis" : "NotImplemented");
    }
    fresh_tuple_end(1);
    put(op(Op::REDUCE));
    global_memo_.add(key, memo_put_op());
    return;
  }
  if (proto_ >= 4) {
    switch (origin_of(module, qualname)) {
      case Origin::kPython:
        save_interned(module);
        save_interned(qualname);
        break;
      case Origin::kCType:
        save_interned(module);
        save_synthetic_str(qualname);
        break;
      case Origin::kCFunction:
        save_module_name_object(module);
        save_synthetic_str(qualname);
        break;
      case Origin::kHeapCType:
        save_synthetic_str(module);
        save_synthetic_str(qualname);
        break;
    }
    put(op(Op::STACK_GLOBAL));
    global_memo_.add(key, memo_put_op());
    return;
  }
  std::size_t dot = qualname.rfind('.');
  if (dot == std::string_view::npos) {
    global_text(module, qualname);
    global_memo_.add(key, memo_put_op());
    return;
  }
  // A method of a C type (object.__new__, datetime.datetime.now) is a
  // builtin method: its own __reduce__ gives the getattr call, which every
  // version writes as 3.11 does. Only names save_global writes (classes and
  // functions defined in Python) take 3.13's form.
  if (options_.target.nested_names_unmemoized() &&
      origin_of(module, qualname.substr(0, qualname.find('.'))) == Origin::kPython) {
    save_nested_unmemoized(module, qualname);
    global_memo_.add(key, memo_put_op());
    return;
  }
  // A nested name below protocol 4 is getattr(<parent>, '<last part>'),
  // the parent saved the same way. Unrolled, so that a long dotted name
  // does not recurse: first the opening of every level down to a parent
  // that is memoized or not dotted, then the closing of each level upwards.
  std::vector<std::size_t> open_levels;  // lengths of the dotted prefixes opened
  std::string_view current = qualname;
  for (;;) {
    enter();
    open_levels.push_back(current.size());
    save_global("builtins", "getattr");
    boundary();  // the argument tuple
    if (proto_ < 2) put(op(Op::MARK));
    std::string_view parent = current.substr(0, current.rfind('.'));
    if (global_memo_.find(GlobalName{module, parent}) != kNoMemo ||
        parent.find('.') == std::string_view::npos) {
      save_global(module, parent);
      break;
    }
    boundary();  // save(parent), which continues with the next level
    current = parent;
  }
  for (auto level = open_levels.rbegin(); level != open_levels.rend(); ++level) {
    std::string_view name = qualname.substr(0, *level);
    save_synthetic_str(last_component(name));
    fresh_tuple_end(2);
    put(op(Op::REDUCE));
    --depth_;
    global_memo_.add(GlobalName{module, name}, memo_put_op());
  }
}

// A nested name below protocol 4 as CPython 3.13 and later write it:
// getattr(getattr(module.a, 'b'), 'c') from the parts of the name, with
// every getattr saved first, the first part a GLOBAL of its own, and
// neither the parents nor the argument tuples memoized (the caller
// memoizes the result). No frames below protocol 4, so no boundary().
void Encoder::save_nested_unmemoized(std::string_view module, std::string_view qualname) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t dot = qualname.find('.', start);
    parts.push_back(qualname.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (std::size_t i = 1; i < parts.size(); ++i) {
    enter();
    save_global("builtins", "getattr");
    if (proto_ < 2) put(op(Op::MARK));
  }
  global_text(module, parts[0]);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    save_synthetic_str(parts[i]);
    put(proto_ >= 2 ? op(Op::TUPLE2) : op(Op::TUPLE));
    put(op(Op::REDUCE));
    --depth_;
  }
}

// GLOBAL 'module\nname\n', with Python 2 names below protocol 3.
void Encoder::global_text(std::string_view module, std::string_view name) {
  std::string mapped_module, mapped_name;
  if (proto_ < 3 && options_.fix_imports) {
    QualifiedName mapped = py3_to_py2(std::string(module), std::string(name));
    mapped_module = std::move(mapped.first);
    mapped_name = std::move(mapped.second);
    module = mapped_module;
    name = mapped_name;
  }
  if (proto_ != 3) {
    if (!is_ascii(module)) {
      fail("can't pickle module identifier '" + std::string(module) + "' using pickle protocol " +
           std::to_string(proto_));
    }
    if (!is_ascii(name)) {
      fail("can't pickle global identifier '" + std::string(name) + "' using pickle protocol " +
           std::to_string(proto_));
    }
  }
  if (module.find('\n') != std::string_view::npos || name.find('\n') != std::string_view::npos) {
    fail("a global name with a newline cannot be written with GLOBAL");
  }
  put(op(Op::GLOBAL));
  write(module);
  put('\n');
  write(name);
  put('\n');
}

// save() of a str the C pickler makes on the fly (codecs.encode's text, a
// dotted name's last part): a singleton when one latin-1 character.
void Encoder::save_synthetic_str(std::string_view utf8) {
  boundary();
  int slot = latin1_singleton_slot(utf8);
  if (slot >= 0) {
    MemoId& idx = char_memo(slot);
    if (idx != kNoMemo) {
      memo_get(idx);
      return;
    }
    save_str_data(utf8);
    idx = memo_put_op();
    return;
  }
  save_str_data(utf8);
  memo_fresh();
}

// save() of a str object that `memo` holds by its text: each text is one
// object, written once and fetched from the memo after.
void Encoder::save_str_memoized_in(StrMemo& memo, std::string_view s) {
  boundary();
  if (MemoId id = memo.find(s); id != kNoMemo) {
    memo_get(id);
    return;
  }
  save_str_data(s);
  memo.add(s, memo_put_op());
}

// save() of an interned str: module names and qualnames, 'latin1'.
void Encoder::save_interned(std::string_view s) {
  save_str_memoized_in(interned_memo_, s);
}

// save() of a str value that is the interned object global names of its
// text are written from (Node::flag): one memo entry with those names, as
// CPython's memo by identity makes it. `slot` is the node's memo slot.
void Encoder::save_interned_value(std::string_view s, MemoId* slot) {
  if (MemoId id = interned_memo_.find(s); id != kNoMemo) {
    *slot = id;
    memo_get(id);
    return;
  }
  save_str_data(s, true);
  *slot = memo_put_op();
  interned_memo_.add(s, *slot);
}

// save() of the __name__ object of a C module (see origin_of).
void Encoder::save_module_name_object(std::string_view module) {
  save_str_memoized_in(c_module_memo_, module);
}

}  // namespace serialcheck::pickle::encoder_internal
