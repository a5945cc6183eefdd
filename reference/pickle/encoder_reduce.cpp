// The encoder's reduce (Modules/_pickle.c: save_reduce): an object node
// written as its callable and arguments (REDUCE), as NEWOBJ or NEWOBJ_EX
// (copyreg.__newobj__ and __newobj_ex__, with the functools.partial form the
// C pickler falls back to below protocol 4), as an extension code (EXT1,
// EXT2, EXT4), then memoized and followed by its list items, dict items and
// state (BUILD, or a state setter's call). Domain values (ndarray, tensor,
// module, device buffer) are first lowered to the reduce their Python type
// returns (types/domain.h).
//
// Fails with PickleError (Unpicklable) where save_reduce does: a callable or
// argument tuple of the wrong kind, a NEWOBJ or NEWOBJ_EX argument that is
// not a class, an extension reference below protocol 2.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "reference/pickle/extension.h"
#include "reference/pickle/internal/encoder_memo.h"
#include "reference/pickle/internal/encoder_state.h"
#include "reference/pickle/internal/encoder_tasks.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/writer.h"
#include "reference/types/domain.h"

namespace serialcheck::pickle::encoder_internal {

// The nodes domain values were lowered to: an out-of-band buffer of an
// array is one of them, so the result keeps them alive. A Graph moves
// without moving its nodes.
std::shared_ptr<const Graph> Encoder::take_lowered() {
  if (!lowering_) return nullptr;
  return std::make_shared<const Graph>(std::move(lowering_->scratch()));
}

// Made on the first domain node: most pickles have none.
types::Lowering& Encoder::lowering() {
  if (!lowering_) {
    lowering_ = std::make_unique<types::Lowering>(
        types::LowerOptions{proto_, static_cast<bool>(options_.buffer_callback)});
  }
  return *lowering_;
}

void Encoder::save_object(const Node* n) {
  if (std::int64_t code = extension_code(n); code != 0) {
    save_extension(code);
    return;
  }
  const ObjectParts* parts = n->obj();
  if (parts == nullptr || parts->callable == nullptr) fail("object node without a callable");
  const Node* callable = parts->callable;
  const Node* args = parts->args;
  if (args == nullptr || args->kind != Kind::Tuple) {
    fail("second item of the tuple returned by __reduce__ must be a tuple");
  }
  if (callable->kind != Kind::Global && callable->kind != Kind::Object &&
      callable->kind != Kind::PersId) {
    fail("first item of the tuple returned by __reduce__ must be callable");
  }
  bool newobj = false, newobj_ex = false;
  if (proto_ >= 2 && callable->kind == Kind::Global) {
    std::string_view name = last_component(callable->name());
    newobj_ex = name == "__newobj_ex__";
    newobj = name == "__newobj__";
  }
  enter_container();
  push(n, 0, Step::kReduceEnd);
  if (newobj_ex) {
    if (args->items.size() != 3) {
      fail("length of the NEWOBJ_EX argument tuple must be exactly 3, not " +
           std::to_string(args->items.size()));
    }
    const Node* cls = args->items[0];
    const Node* cargs = args->items[1];
    const Node* kwargs = args->items[2];
    if (!is_class_ref(cls)) {
      fail("first item from NEWOBJ_EX argument tuple must be a class");
    }
    if (cargs == nullptr || cargs->kind != Kind::Tuple) {
      fail("second item from NEWOBJ_EX argument tuple must be a tuple");
    }
    if (kwargs == nullptr || kwargs->kind != Kind::Dict || kwargs->items.size() % 2 != 0) {
      fail("third item from NEWOBJ_EX argument tuple must be a dict");
    }
    if (proto_ >= 4) {
      push_op(Op::NEWOBJ_EX);
      push_save(kwargs);
      push_save(cargs);
      dispatch(cls);
    } else {
      newobj_ex_fallback(cls, cargs, kwargs);
    }
    return;
  }
  if (newobj) {
    if (args->items.empty()) fail("__newobj__ arglist is empty");
    const Node* cls = args->items[0];
    if (!is_class_ref(cls)) {
      fail("args[0] from __newobj__ args is not a type");
    }
    push_op(Op::NEWOBJ);
    dispatch(cls);
    boundary();  // the tuple args[1:]
    const std::size_t len = args->items.size() - 1;
    if (len == 0) {
      put(op(Op::EMPTY_TUPLE));
      return;
    }
    if (fresh_tuple_needs_mark(len)) put(op(Op::MARK));
    push(nullptr, len, Step::kFreshTupleEnd);
    items(args, SeqView{args->items}, 1);
    return;
  }
  push_op(Op::REDUCE);
  push_save(args);
  save_entry(callable);
}

// What stands for a class in NEWOBJ and NEWOBJ_EX: a global, or (a
// registered class, as CPython writes it from protocol 2 on, and these
// opcodes exist only there) an extension reference.
bool Encoder::is_class_ref(const Node* cls) {
  return cls != nullptr && (cls->kind == Kind::Global || extension_code(cls) != 0);
}

// save_global for a global in copyreg's extension registry: EXT1, EXT2 or
// EXT4 by the size of the code, and no memo entry (CPython memoizes only
// what it writes by name). Below protocol 2 CPython writes the global's
// name instead, which an extension reference does not hold; writing the
// reference as the call copyreg._inverted_registry(code) would make a
// pickle no loader can run (a dict is not callable), so it is refused.
void Encoder::save_extension(std::int64_t code) {
  if (proto_ < 2) {
    fail("the global registered under extension code " + std::to_string(code) +
         " needs protocol 2 or above: below 2 it is written by name, which an extension "
         "reference does not hold");
  }
  const auto u = static_cast<std::uint64_t>(code);
  if (u <= 0xff) {
    put_word(static_cast<std::uint8_t>(op(Op::EXT1)) | u << 8, 2);
  } else if (u <= 0xffff) {
    put_word(static_cast<std::uint8_t>(op(Op::EXT2)) | u << 8, 3);
  } else {
    put_word(static_cast<std::uint8_t>(op(Op::EXT4)) | u << 8, 5);
  }
}

// copyreg.__newobj_ex__ at protocols 2 and 3: the C pickler reduces with
// functools.partial(cls.__new__, cls, *args, **kwargs)() instead. cls.__new__
// is taken to be object.__new__ (a class that does not define __new__).
void Encoder::newobj_ex_fallback(const Node* cls, const Node* cargs, const Node* kwargs) {
  const std::size_t partial_args = 1 + cargs->items.size();
  push_op(Op::REDUCE);
  push(nullptr, 0, Step::kSaveEmptyTuple);
  push_op(Op::BUILD);
  push(nullptr, 4, Step::kFreshTupleEnd);  // the partial's state tuple
  push(nullptr, 0, Step::kSaveNone);       // its __dict__
  push(kwargs, 0, Step::kFreshDict);       // its keywords
  push(nullptr, partial_args, Step::kFreshTupleEnd);
  push(cargs, 0, Step::kItems);
  // partial.__reduce__ -> (partial, (fn,), (fn, (cls, *args), kwargs, None))
  boundary();  // the partial object
  save_global("functools", "partial");
  boundary();  // (fn,)
  save_global("builtins", "object.__new__");
  fresh_tuple_end(1);
  put(op(Op::REDUCE));
  memo_fresh();
  boundary();  // the state tuple
  put(op(Op::MARK));
  save_global("builtins", "object.__new__");
  boundary();  // (cls, *args)
  if (fresh_tuple_needs_mark(partial_args)) put(op(Op::MARK));
  dispatch(cls);
}

// After callable and args: the object may have been memoized meanwhile
// (a recursive reduce); then POP and GET, else memoize it and continue with
// list items, dict items and state.
void Encoder::reduce_end(const Node* n) {
  if (MemoId idx = find_memo(n); idx != kNoMemo) {
    put(op(Op::POP));
    memo_get(idx);
    return;
  }
  memo_put_node(n);
  const ObjectParts& parts = *n->obj();
  // A state of None is written (NONE, BUILD): a pickler writes no BUILD
  // for a reduce whose state is None, so a value holds one only when a
  // stream had it, and a loader calls __setstate__(None) for it.
  const Node* state = parts.state;
  if (state != nullptr) {
    const Node* setter = parts.state_setter;
    if (setter == nullptr || setter->kind == Kind::None) {
      push_op(Op::BUILD);
      push_save(state);
    } else {
      // state_setter(obj, state), its result popped
      push_op(Op::POP);
      push_op(Op::REDUCE);
      push_op(Op::TUPLE2);
      push_save(state);
      push_save(n);
      push_save(setter);
    }
  }
  if (!parts.dictitems.empty()) push(n, 0, Step::kDictItems);
  if (!parts.listitems.empty()) push(n, 0, Step::kListItems);
}

}  // namespace serialcheck::pickle::encoder_internal
