// torch.Tensor as a domain kind: the dtypes the model knows, the checks a
// Tensor node must pass to be a tensor torch can hold, and the legacy
// `torch.save` stream that a tensor's storage pickles as.
//
// The pickle forms (docs/value-json.md, "Tensors"):
//   torch's own:  torch._utils._rebuild_tensor_v2(storage, storage_offset,
//                   size, stride, requires_grad, collections.OrderedDict())
//                 with storage = torch.storage._load_from_bytes(<legacy
//                 torch.save bytes of the storage>);
//   with a grad:  the same reduce plus state = the grad tensor and
//                 state_setter = getattr(getattr(torch.Tensor, 'grad'), '__set__'),
//                 so loading sets `.grad` (plain torch pickling drops it).
// Both are written by lower_tensor and recognised by raise_tensor (domain.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "reference/value/value.h"

namespace serialcheck::types {

struct TorchDtype {
  std::string_view name;          // "float32": torch.float32 without the module
  std::size_t itemsize;           // bytes per element
  std::string_view storage_type;  // the legacy storage class torch.save names: "FloatStorage"
  bool differentiable;            // floating point or complex: may require grad
  // numpy's dtype.str of Tensor.numpy() (little-endian), or empty where
  // numpy has no such dtype (bfloat16).
  std::string_view numpy;
};

// Every dtype a Tensor node may have: those torch 1.13 pickles with
// _rebuild_tensor_v2 (quantized dtypes use another form, complex32 has none).
std::span<const TorchDtype> torch_dtypes();
const TorchDtype* find_torch_dtype(std::string_view name);
const TorchDtype* find_torch_storage_type(std::string_view storage_type);

// "cpu", "cuda" or "cuda:N".
bool valid_torch_device(std::string_view device);

// Why `tensor` (a Tensor node) is not a tensor torch can hold, or nullopt.
// Checks the dtype, device, that shape and strides have one non-negative
// entry per dimension, that the storage (payload()) is whole elements and
// holds every element the view reaches, that only a differentiable dtype
// requires grad, and that a grad is another Tensor node of the same dtype,
// shape and device. The grad's own parts are not checked.
std::optional<std::string> tensor_problem(const Node& tensor);

// Value equality of two Tensor nodes, apart from their grads (equal.h
// compares those as children): the same dtype, device, requires_grad,
// shape, strides and storage offset, and bit-identical elements in logical
// order. Bytes of the storage the view does not reach are not compared,
// except for a self-overlapping view (several indices on one element,
// made by as_strided), where the storage range it spans is compared.
// A node that fails tensor_problem compares its whole storage. When unequal
// and `why` is set, it says what differs.
// `layout` false: strides and the storage offset are not compared, the
// elements are, in logical order.
bool tensor_equal(const Node& a, const Node& b, std::string* why = nullptr, bool layout = true);

// Elements in the view (the product of the shape; 1 for 0-d), saturating
// at INT64_MAX.
std::int64_t tensor_numel(const ArrayParts& parts);

// The bytes `torch.save(storage, f, _use_new_zipfile_serialization=False)`
// writes for a storage of `dtype` at `location` holding `data`, with storage
// key `key` (torch uses the storage's address; the reference writes "0"):
// five protocol-2 pickles (magic number, protocol version, system info, the
// storage as a persistent id, the list of keys), the element count as a
// little-endian int64, then the raw bytes.
std::string legacy_storage_stream(const TorchDtype& dtype, std::string_view location,
                                  std::string_view data, std::string_view key = "0");

struct LegacyStorage {
  const TorchDtype* dtype = nullptr;
  std::string location;
  std::string_view data;  // the raw bytes: the end of the stream, not copied
};

// Reads such a stream with the reference decoder (never executing
// anything); nullopt when it is not exactly one CPU- or CUDA-located typed
// storage of a known dtype with all its bytes and nothing after them.
// A decoded tensor's payload borrows these bytes from the pickle's bytes
// node, so tensors that share one such node (a memo reference) cost no
// copies.
std::optional<LegacyStorage> parse_legacy_storage_stream(std::string_view bytes);

}  // namespace serialcheck::types
