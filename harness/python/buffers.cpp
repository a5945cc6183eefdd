#define PY_SSIZE_T_CLEAN
#include "harness/python/buffers.h"

#include <Python.h>

#include <memory>
#include <string>

#include "harness/subjects/subject.h"

namespace serialcheck::python {
namespace {

// A Python object whose only job is to export one frame's memory.
struct FrameExporter {
  PyObject_HEAD Frame* frame;
  int readonly;
};

int exporter_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  auto* e = reinterpret_cast<FrameExporter*>(self);
  static char empty = 0;  // a zero-length frame may have no data pointer
  void* data = e->frame->data != nullptr ? const_cast<std::uint8_t*>(e->frame->data)
                                         : static_cast<void*>(&empty);
  return PyBuffer_FillInfo(view, self, data, static_cast<Py_ssize_t>(e->frame->size), e->readonly,
                           flags);
}

void exporter_dealloc(PyObject* self) {
  auto* e = reinterpret_cast<FrameExporter*>(self);
  delete e->frame;
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

// Made once, under the GIL (which is what guards `type`: a C++ static
// initializer could deadlock if PyType_FromSpec let another thread run).
PyTypeObject* exporter_type() {
  static PyType_Slot slots[] = {
      {Py_bf_getbuffer, reinterpret_cast<void*>(exporter_getbuffer)},
      {Py_tp_dealloc, reinterpret_cast<void*>(exporter_dealloc)},
      {0, nullptr},
  };
  static PyType_Spec spec = {"serialcheck.FrameBuffer", sizeof(FrameExporter), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, slots};
  static PyObject* type = nullptr;
  if (type == nullptr) {
    PyObject* made = check(PyType_FromSpec(&spec)).release();
    if (type == nullptr) {
      type = made;
    } else {
      Py_DECREF(made);
    }
  }
  return reinterpret_cast<PyTypeObject*>(type);
}

// Releases a Py_buffer export when the last frame sharing it goes.
struct ExportOwner {
  Py_buffer view{};
  ~ExportOwner() {
    Gil gil;
    PyBuffer_Release(&view);
  }
};

}  // namespace

Frame frame_from_buffer(PyObject* exporter) {
  auto owner = std::make_shared<ExportOwner>();
  if (PyObject_GetBuffer(exporter, &owner->view, PyBUF_FULL_RO) != 0) {
    owner->view.obj = nullptr;  // nothing to release
    throw_python_error();
  }
  const Py_buffer& v = owner->view;
  if (!PyBuffer_IsContiguous(&v, 'A')) {
    std::string copy(static_cast<std::size_t>(v.len), '\0');
    if (PyBuffer_ToContiguous(copy.data(), &v, v.len, 'C') != 0) throw_python_error();
    return Frame::owned(std::move(copy), v.readonly != 0);
  }
  Frame f;
  f.data = static_cast<const std::uint8_t*>(v.buf);
  f.size = static_cast<std::size_t>(v.len);
  f.readonly = v.readonly != 0;
  f.owner = std::move(owner);
  return f;
}

PyRef frame_exporter(const Frame& frame, bool readonly) {
  PyRef object = check(reinterpret_cast<PyObject*>(PyObject_New(FrameExporter, exporter_type())));
  auto* e = reinterpret_cast<FrameExporter*>(object.get());
  e->frame = new Frame(frame);
  e->readonly = (readonly || frame.readonly) ? 1 : 0;
  return object;
}

const void* buffer_address(PyObject* exporter) {
  Py_buffer view;
  if (PyObject_GetBuffer(exporter, &view, PyBUF_FULL_RO) != 0) throw_python_error();
  const void* address = view.buf;
  PyBuffer_Release(&view);
  return address;
}

}  // namespace serialcheck::python
