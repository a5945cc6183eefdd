// Fingerprints (harness/props/fingerprint.h): failures with different causes
// get different fingerprints, and one cause keeps one fingerprint whatever
// the drawn value's details (numbers, names, the container it sits in).
#include "harness/props/fingerprint.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness/props/case.h"
#include "reference/value/json.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;

std::string tensor_json(std::string_view dtype, std::string_view data, bool grad) {
  return std::string(R"({"tensor": {"data": ")") + std::string(data) +
         R"(", "device": "cpu", "dtype": ")" + std::string(dtype) +
         R"(", "offset": 0, "requires_grad": )" + (grad ? "true" : "false") +
         R"(, "shape": [1], "strides": [1]}})";
}

std::string refined(std::string base, std::string message, std::string_view value) {
  Outcome o = Outcome::fail(std::move(base), std::move(message));
  return refine_fingerprint(o, make_case(value, 5));
}

// The failure of issue 16: a line written for bfloat16 tensors accepted a
// complex128 tensor's failure, because both were "exception:TypeError@dumps".
TEST(Fingerprint, TensorDtypeFamiliesAreDifferentCauses) {
  std::string bf16 =
      refined("exception:TypeError@dumps",
              "dumps raised TypeError: ('Could not serialize object of type Tensor', "
              "'tensor([9.7308e+08], dtype=torch.bfloat16)')",
              tensor_json("bfloat16", "684e", false));
  std::string c128 =
      refined("exception:TypeError@dumps",
              "dumps raised TypeError: ('Could not serialize object of type Tensor', "
              "'tensor([1.+2.j], dtype=torch.complex128, requires_grad=True)')",
              tensor_json("complex128", "00000000000000000000000000000000", true));
  EXPECT_NE(bf16, c128);
  EXPECT_EQ(bf16.rfind("exception:TypeError@dumps/tensor.bfloat16", 0), 0u) << bf16;
  EXPECT_EQ(c128.rfind("exception:TypeError@dumps/tensor.complex", 0), 0u) << c128;
  // Another bfloat16 value, another repr: the same cause.
  EXPECT_EQ(bf16, refined("exception:TypeError@dumps",
                          "dumps raised TypeError: ('Could not serialize object of type Tensor', "
                          "'tensor([-1.5e-03, 2.0], dtype=torch.bfloat16)')",
                          tensor_json("bfloat16", "0000", false)));
}

TEST(Fingerprint, MessageShapeDropsWhatVariesAndKeepsTheWords) {
  EXPECT_EQ(message_shape("dumps raised TypeError: cannot pickle 'module' object"),
            "cannot-pickle-q-object");
  EXPECT_EQ(message_shape("dumps raised TypeError: module() argument 'name' must be str, not "
                          "ScModule_0"),
            message_shape("dumps raised TypeError: module() argument 'name' must be str, not "
                          "ScModule_17"));
  EXPECT_EQ(message_shape("loads raised KeyError: 'writeable'"), "q");
  // An apostrophe inside a word does not open a quote; dotted names are q.
  EXPECT_EQ(message_shape("dumps raised PicklingError: Can't pickle <function Outer.Inner.method "
                          "at 0x7f838c863920>: it's not found as serialcheck_fixtures.method"),
            "can-t-pickle-a-it-s-not-found-as-q");
  EXPECT_EQ(message_shape("dumps raised PicklingError: Can't pickle <function Outer.static_method "
                          "at 0x7f838c8639c0>: it's not found as serialcheck_fixtures.static_method"),
            "can-t-pickle-a-it-s-not-found-as-q");
  EXPECT_EQ(message_shape("dumps raised PicklingError: Can't pickle <class "
                          "'serialcheck_fixtures.Outer.Inner'>: attribute lookup "
                          "serialcheck_fixtures.Inner failed"),
            "can-t-pickle-a-attribute-lookup-q-failed");
  // Controls: a sentence's full stop is no dotted name; a quote after a space still opens.
  EXPECT_EQ(message_shape("x raised E: bad data. Try again"), "bad-data-try-again");
  EXPECT_EQ(message_shape("x raised E: it's 'x y' here"), "it-s-q-here");
  EXPECT_NE(message_shape("dumps raised PicklingError: Can't pickle <class 'm.C'>: attribute lookup m.C failed"),
            message_shape("dumps raised PicklingError: Can't pickle <function f at 0x1>: it's not found as m.f"));
  EXPECT_EQ(message_shape("x raised E: object at 0x7f3a2b1c0d90 and <Foo object at 0x1234> 12 3.5e-7"),
            "object-at-x-and-a-n-n");
  EXPECT_EQ(message_shape("loads raised unhashable-key: Pickle Machine failed on opcode:0x73. "
                          "Stack size:0."),
            message_shape("loads raised unhashable-key: Pickle Machine failed on opcode:0x52. "
                          "Stack size:12."));
  EXPECT_NE(message_shape("dumps raised TypeError: cannot pickle 'module' object"),
            message_shape("dumps raised TypeError: module() argument 'name' must be str, not int"));
  EXPECT_LE(message_shape("a raised B: " + std::string(300, 'w')).size(), 48u);
}

TEST(Fingerprint, ExceptionsNameTheValueCategoryNotItsContainer) {
  const std::string msg = "loads raised unhashable-key: hash of unhashable type []uint8";
  std::string in_set = refined("exception:unhashable-key@loads", msg, R"({"set": [{"bytes": ""}]})");
  std::string in_dict =
      refined("exception:unhashable-key@loads", msg, R"({"dict": [[{"bytes": ""}, null]]})");
  EXPECT_EQ(in_set, in_dict);
  EXPECT_EQ(in_set, "exception:unhashable-key@loads/collection/hash-of-unhashable-type-uintn");
  EXPECT_NE(in_set, refined("exception:unhashable-key@loads", msg, R"({"bytes": ""})"));
  // A module inside a list is a module failure.
  EXPECT_EQ(refined("exception:TypeError@dumps", "dumps raised TypeError: cannot pickle 'module' object",
                    R"({"list": [{"module": "datetime"}]})"),
            "exception:TypeError@dumps/module/cannot-pickle-q-object");
}

TEST(Fingerprint, MismatchesNameTheKindWhereTheValuesDiffer) {
  EXPECT_EQ(refined("mismatch:kind@loads", "values differ at root: kind global != object", "null"),
            "mismatch:kind@loads/any->object");
  EXPECT_EQ(refined("mismatch:kind@loads", "values differ at root: kind set != object", "null"),
            refined("mismatch:kind@loads", "values differ at root[0]: kind bytearray != object",
                    "null"));
  EXPECT_EQ(refined("mismatch:kind@loads", "values differ at root.keys[0]: kind none != str",
                    R"({"dict": [[null, null]]})"),
            "mismatch:kind@loads/none->str");
  EXPECT_EQ(refined("mismatch:kind@loads", "values differ at root: kind tuple != list", "null"),
            "mismatch:kind@loads/tuple->list");
  // Numbers and texts differ from seed to seed; the kind does not.
  EXPECT_EQ(refined("mismatch:value@loads", "values differ at root[2]: str '\\x00' != str '\\\\u0000'",
                    "null"),
            refined("mismatch:value@loads", "values differ at root: str 'ab' != str 'a\\\\u0062'",
                    "null"));
  EXPECT_NE(refined("mismatch:value@loads", "values differ at root: float inf != float nan", "null"),
            refined("mismatch:value@loads", "values differ at root: str 'a' != str 'b'", "null"));
  EXPECT_EQ(refined("mismatch:sharing",
                    "values differ at root[1]: sharing differs: the left list is the same object "
                    "as at root[0], the right one is not",
                    "null"),
            refined("mismatch:sharing",
                    "values differ at root{'a'}: sharing differs: the left dict is the same "
                    "object as at root[0], the right one is not",
                    "null"));
}

std::string refined_at(int protocol, std::string base, std::string message,
                       std::string_view value) {
  Outcome o = Outcome::fail(std::move(base), std::move(message));
  TestCase c = make_case(value, 5);
  c.protocol = protocol;
  return refine_fingerprint(o, c);
}

// dask.distributed's RecursionError on a self-containing collection: where
// the limit is hit (a comparison or a call) depends on the drawn value.
TEST(Fingerprint, RecursionErrorsAreOneCauseWhereverTheLimitIsHit) {
  const std::string value = R"({"list": [{"id": 1, "list": [{"ref": 1}]}]})";
  const std::string plain = refined("exception:RecursionError@dumps",
                                    "dumps raised RecursionError: maximum recursion depth exceeded",
                                    value);
  EXPECT_EQ(plain, "exception:RecursionError@dumps/collection/maximum-recursion-depth-exceeded");
  EXPECT_EQ(plain, refined("exception:RecursionError@dumps",
                           "dumps raised RecursionError: maximum recursion depth exceeded in "
                           "comparison",
                           value));
  EXPECT_EQ(plain, refined("exception:RecursionError@dumps",
                           "dumps raised RecursionError: maximum recursion depth exceeded while "
                           "calling a Python object",
                           value));
  // Negative control: another error on the same value is another cause.
  EXPECT_NE(plain, refined("exception:RecursionError@dumps",
                           "dumps raised RecursionError: depth limit of 100 reached", value));
  EXPECT_NE(plain, refined("exception:RecursionError@loads",
                           "loads raised RecursionError: maximum recursion depth exceeded", value));
}

// A ModuleType subclass that pickle has no reduction for fails with one text
// at protocols 0 and 1 (copyreg calls module() with the object) and another
// from 2 on; a plain module fails with the second at every protocol.
TEST(Fingerprint, DefaultReductionFailuresAreOneCauseAtEveryProtocol) {
  const std::string sub =
      R"({"module": "sc_mod_0", "class": {"global": ["serialcheck_module_types", "ScModule_0"]}})";
  const std::string p0 = refined_at(0, "exception:TypeError@dumps",
                                    "dumps raised TypeError: module() argument 'name' must be "
                                    "str, not ScModule_0",
                                    sub);
  const std::string p2 = refined_at(2, "exception:TypeError@dumps",
                                    "dumps raised TypeError: cannot pickle 'ScModule_0' object", sub);
  const std::string plain =
      refined_at(1, "exception:TypeError@dumps",
                 "dumps raised TypeError: cannot pickle 'module' object", R"({"module": "json"})");
  EXPECT_EQ(p0, "exception:TypeError@dumps/module/cannot-pickle-q-object");
  EXPECT_EQ(p0, p2);
  EXPECT_EQ(p0, plain);
  // Any dumps stage, any generated class.
  EXPECT_EQ(refined_at(1, "exception:TypeError@cpython-dumps",
                       "cpython-dumps raised TypeError: module() argument 'name' must be str, "
                       "not ScModule_x9",
                       R"({"module": "sc_mod_x9",
                           "class": {"global": ["serialcheck_module_types", "ScModule_x9"]}})"),
            "exception:TypeError@cpython-dumps/module/cannot-pickle-q-object");

  // Negative controls: the rule needs all of its parts.
  // An argument error that names no class of the value is its own cause.
  EXPECT_NE(p0, refined_at(0, "exception:TypeError@dumps",
                           "dumps raised TypeError: module() argument 'name' must be str, not int",
                           sub));
  // From protocol 2 on, the default reduction does not say this.
  EXPECT_NE(p2, refined_at(2, "exception:TypeError@dumps",
                           "dumps raised TypeError: module() argument 'name' must be str, not "
                           "ScModule_0",
                           sub));
  // Not while loading, and not another exception type.
  EXPECT_EQ(refined_at(0, "exception:TypeError@loads",
                       "loads raised TypeError: module() argument 'name' must be str, not "
                       "ScModule_0",
                       sub),
            "exception:TypeError@loads/module/module-argument-q-must-be-str-not-scmodule_n");
  EXPECT_EQ(refined_at(0, "exception:ValueError@dumps",
                       "dumps raised ValueError: module() argument 'name' must be str, not "
                       "ScModule_0",
                       sub),
            "exception:ValueError@dumps/module/module-argument-q-must-be-str-not-scmodule_n");
  // distributed's own TypeError for the same module keeps its shape.
  EXPECT_NE(p0, refined_at(0, "exception:TypeError@dumps",
                           "dumps raised TypeError: ('Could not serialize object of type "
                           "ScModule_0', \"<module 'sc_mod_0'>\")",
                           sub));
}

TEST(Fingerprint, RefiningIsIdempotentAndTheCauseDropsTheCategory) {
  Outcome o = Outcome::fail("exception:TypeError@dumps", "dumps raised TypeError: boom 3");
  TestCase c = make_case(R"({"list": [1]})", 5);
  o.fingerprint = refine_fingerprint(o, c);
  EXPECT_EQ(o.fingerprint, "exception:TypeError@dumps/collection/boom-n");
  EXPECT_EQ(refine_fingerprint(o, c), o.fingerprint);
  EXPECT_EQ(fingerprint_cause(o.fingerprint), "exception:TypeError@dumps/boom-n");
  EXPECT_EQ(fingerprint_cause("mismatch:kind@loads/set->object"), "mismatch:kind@loads");
  EXPECT_EQ(fingerprint_cause("timeout"), "timeout");
  // Fingerprints about the stream, not the value, are left as they are.
  EXPECT_EQ(refined("protocol:no-clue", "x", R"({"list": []})"), "protocol:no-clue");
  EXPECT_EQ(refined("malformed:accepted@unbalanced-mark", "x", "null"),
            "malformed:accepted@unbalanced-mark");
  EXPECT_EQ(refined("tensor:grad-was-lost", "tensor: the grad was lost",
                    tensor_json("float32", "00000000", true)),
            "tensor:grad-was-lost/tensor");
  EXPECT_EQ(dtype_family("float16"), "float");
  EXPECT_EQ(dtype_family("uint8"), "int");
  EXPECT_EQ(dtype_family("complex64"), "complex");
  EXPECT_EQ(dtype_family("bool"), "bool");
}

}  // namespace
}  // namespace serialcheck
