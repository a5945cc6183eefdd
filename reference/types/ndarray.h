// numpy arrays in the model: what an NDArray node may hold, its layout
// arithmetic (numpy's own contiguity and stride rules), its logical bytes,
// and value equality. The pickle forms themselves (numpy 1.24's
// `_reconstruct` and `_frombuffer` reduces) are in ndarray.cpp, reached
// through lower_ndarray / raise_ndarray (domain.h).
//
// An NDArray views the bytes of its node's payload(): element
// [i0, ..., in] starts at byte offset + sum(ik * strides[k]) and is
// itemsize bytes long, in the byte order the dtype names. Only numpy's
// numeric dtypes are modelled: bool, int8..int64, uint8..uint64,
// float16/32/64, complex64/128, as numpy's dtype.str spells them
// ("|b1", "<i4", ">c16"...); object, structured, string, datetime and
// longdouble dtypes stay generic objects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/value/value.h"

namespace serialcheck::types {

// numpy's limit on the number of dimensions (NPY_MAXDIMS).
inline constexpr std::size_t kMaxArrayDims = 32;

struct NumericDtype {
  char byteorder = '|';  // '<', '>' or '|' (one-byte types)
  char kind = 'f';       // 'b' bool, 'i', 'u', 'f', 'c'
  int itemsize = 8;
  // "f8": the first argument numpy's dtype reduce passes to numpy.dtype.
  std::string kind_and_size() const;
  std::string str() const;  // "<f8"
  // On the little-endian machines numpy runs on here, '<' and '|' dtypes
  // are numpy's builtin singletons; a '>' dtype is a new object per array.
  bool singleton() const { return byteorder != '>'; }
};

// The dtype named by numpy's dtype.str, or nullopt when it is not one of the
// numeric dtypes above in its canonical spelling ('|' for one-byte types,
// '<' or '>' for the others).
std::optional<NumericDtype> parse_numeric_dtype(std::string_view str);

// Every numeric dtype.str, '<' before '>' ("|b1", "|i1", "|u1", "<i2", ">i2"...).
const std::vector<std::string>& numeric_dtypes();

// Empty when `a` is a well-formed array over a payload of `payload_size`
// bytes; otherwise what is wrong, in words. Checks the dtype, at most
// kMaxArrayDims dimensions, one stride per dimension, no negative
// dimension, a byte size that fits in int64, 0 <= offset <= payload_size,
// and, for a non-empty array, every element inside the payload.
std::string ndarray_problem(const ArrayParts& a, std::size_t payload_size);

// Number of elements (1 for a 0-d array); the array must be well-formed.
std::int64_t ndarray_size(const ArrayParts& a);

// numpy's C_CONTIGUOUS / F_CONTIGUOUS flags (relaxed strides: dimensions of
// length 1 may have any stride; an empty array is both).
bool ndarray_c_contiguous(const ArrayParts& a, int itemsize);
bool ndarray_f_contiguous(const ArrayParts& a, int itemsize);

// The strides numpy gives a new contiguous array (`order` 'C' or 'F'):
// dimensions of length 0 count as length 1.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, int itemsize,
                                             char order);

// The elements of a well-formed NDArray node as bytes, in C order (last
// index fastest) or F order (first index fastest): what
// ndarray.tobytes(order) returns.
std::string ndarray_bytes(const Node& n, char order = 'C');

// Value equality of two well-formed NDArray nodes: the same dtype string,
// the same shape, and bit-identical elements in logical order. Strides,
// offset, the rest of the payload and the WRITEABLE flag are layout, not
// value. With `byte_order` false the byte order is layout too: the dtypes
// need only agree in kind and item size, and elements are compared as
// numbers ('>i4' and '<i4' arrays of the same numbers are equal), as numpy
// loads a pickle below protocol 5 in its native byte order. When unequal
// and `why` is set, it says what differs.
bool ndarray_equal(const Node& a, const Node& b, std::string* why = nullptr,
                   bool byte_order = true);

}  // namespace serialcheck::types
