// Tests of reference/device: the simulated device (copies, counters, slices
// that alias, typed errors), the registry, device frames, and the CUDA
// device, whose tests skip with the runtime's reason where no GPU answers.
#include "reference/device/device.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "reference/device/cuda_device.h"
#include "reference/frames/errors.h"
#include "reference/frames/message.h"
#include "reference/frames/packed.h"

namespace serialcheck::device {
namespace {

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed = 1) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + i * 7);
  return out;
}

std::string as_string(const std::vector<std::uint8_t>& v) {
  return {v.begin(), v.end()};
}

template <typename F>
DeviceErrorKind device_error_of(F&& f) {
  try {
    f();
  } catch (const DeviceError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no DeviceError thrown";
  return DeviceErrorKind::Runtime;
}

// ---- simulated device ------------------------------------------------------

TEST(SimulatedDevice, NameKindAndId) {
  auto dev = SimulatedDevice::create(3);
  EXPECT_EQ(dev->name(), "sim:3");
  EXPECT_EQ(dev->kind(), "sim");
  EXPECT_EQ(dev->id(), 3);
  EXPECT_EQ(device_error_of([] { SimulatedDevice::create(-1); }), DeviceErrorKind::UnknownDevice);
}

TEST(SimulatedDevice, UploadDownloadRoundTripsAndCountsEachCopy) {
  auto dev = SimulatedDevice::create();
  const auto data = pattern(1000);
  auto buf = dev->upload(data);
  EXPECT_EQ(buf->size(), 1000u);
  EXPECT_EQ(&buf->device(), dev.get());
  EXPECT_EQ(dev->download(*buf), as_string(data));

  CopyCounters want;
  want.allocations = 1;
  want.allocated_bytes = 1000;
  want.host_to_device = 1;
  want.host_to_device_bytes = 1000;
  want.device_to_host = 1;
  want.device_to_host_bytes = 1000;
  EXPECT_EQ(dev->counters(), want) << to_string(dev->counters());
  EXPECT_EQ(dev->counters().copies(), 2u);
}

TEST(SimulatedDevice, DeviceToDeviceCopyIsCountedAndNeedsNoHost) {
  auto dev = SimulatedDevice::create();
  const auto data = pattern(64);
  auto a = dev->upload(data);
  auto b = dev->allocate(64);
  dev->reset_counters();
  dev->copy_device_to_device(*a, 16, *b, 0, 32);
  CopyCounters c = dev->counters();
  EXPECT_EQ(c.device_to_device, 1u);
  EXPECT_EQ(c.device_to_device_bytes, 32u);
  EXPECT_EQ(c.host_to_device, 0u);
  EXPECT_EQ(c.device_to_host, 0u);
  std::vector<std::uint8_t> back(32);
  dev->copy_device_to_host(*b, 0, back);
  EXPECT_EQ(back, std::vector<std::uint8_t>(data.begin() + 16, data.begin() + 48));
}

TEST(SimulatedDevice, OverlappingDeviceToDeviceCopyMovesBytesLikeMemmove) {
  auto dev = SimulatedDevice::create();
  const auto data = pattern(16);
  auto a = dev->upload(data);
  dev->copy_device_to_device(*a, 0, *a, 4, 8);
  std::vector<std::uint8_t> want = data;
  std::copy(data.begin(), data.begin() + 8, want.begin() + 4);
  EXPECT_EQ(dev->download(*a), as_string(want));
}

TEST(SimulatedDevice, FreesAreCountedWhenTheLastBufferGoes) {
  auto dev = SimulatedDevice::create();
  {
    auto buf = dev->allocate(100);
    auto part = buf->slice(10, 20);
    buf.reset();
    EXPECT_EQ(dev->counters().frees, 0u) << "a slice keeps the allocation alive";
    EXPECT_EQ(dev->live_allocations(), 1u);
  }
  EXPECT_EQ(dev->counters().frees, 1u);
  EXPECT_EQ(dev->counters().freed_bytes, 100u);
  EXPECT_EQ(dev->live_allocations(), 0u);
}

TEST(SimulatedDevice, ResetCountersZeroesEveryCounter) {
  auto dev = SimulatedDevice::create();
  auto buf = dev->upload(pattern(8));
  (void)dev->download(*buf);
  dev->reset_counters();
  EXPECT_EQ(dev->counters(), CopyCounters{});
  EXPECT_EQ(dev->live_allocations(), 1u) << "live allocations are not a counter";
}

TEST(SimulatedDevice, SlicesAliasTheirParent) {
  auto dev = SimulatedDevice::create();
  const auto data = pattern(256);
  auto buf = dev->upload(data);
  auto a = buf->slice(0, 128);
  auto b = buf->slice(64, 128);
  auto c = buf->slice(128, 128);
  EXPECT_EQ(a->address(), buf->address());
  EXPECT_EQ(b->address(), buf->address() + 64);
  EXPECT_EQ(b->offset(), 64u);
  EXPECT_TRUE(a->same_allocation(*buf));
  EXPECT_TRUE(a->overlaps(*b));
  EXPECT_FALSE(a->overlaps(*c));
  EXPECT_FALSE(buf->slice(5, 0)->overlaps(*buf)) << "empty buffers share no byte";
  // A slice of a slice addresses the same bytes.
  auto bb = b->slice(8, 8);
  EXPECT_EQ(bb->address(), buf->address() + 72);
  EXPECT_EQ(dev->download(*bb), as_string({data.begin() + 72, data.begin() + 80}));
  // A write through one view is seen through the other.
  const std::vector<std::uint8_t> ones(8, 0xFF);
  dev->copy_host_to_device(ones, *buf, 72);
  EXPECT_EQ(dev->download(*bb), std::string(8, '\xFF'));
  EXPECT_EQ(dev->counters().allocations, 1u) << "slicing allocates nothing";
}

TEST(SimulatedDevice, AddressesAreDistinctAndNotReused) {
  auto dev = SimulatedDevice::create();
  auto a = dev->allocate(0);
  auto b = dev->allocate(0);
  EXPECT_NE(a->address(), b->address()) << "even empty allocations are distinct";
  const std::uint64_t old = a->address();
  a.reset();
  auto c = dev->allocate(10);
  EXPECT_NE(c->address(), old);
  EXPECT_FALSE(c->same_allocation(*b));
  auto other = SimulatedDevice::create(1)->allocate(10);
  EXPECT_NE(other->address(), c->address());
}

TEST(SimulatedDevice, OutOfRangeCopiesAndSlicesThrowTypedErrors) {
  auto dev = SimulatedDevice::create();
  auto buf = dev->allocate(16);
  std::vector<std::uint8_t> host(17);
  EXPECT_EQ(device_error_of([&] { dev->copy_host_to_device(host, *buf, 0); }),
            DeviceErrorKind::OutOfRange);
  EXPECT_EQ(device_error_of([&] {
              dev->copy_host_to_device(std::span<const std::uint8_t>(host).first(8), *buf, 9);
            }),
            DeviceErrorKind::OutOfRange);
  EXPECT_EQ(device_error_of([&] { dev->copy_device_to_host(*buf, 1, std::span(host).first(16)); }),
            DeviceErrorKind::OutOfRange);
  EXPECT_EQ(device_error_of([&] { dev->copy_device_to_host(*buf, SIZE_MAX, {}); }),
            DeviceErrorKind::OutOfRange);
  auto other = dev->allocate(4);
  EXPECT_EQ(device_error_of([&] { dev->copy_device_to_device(*buf, 0, *other, 0, 5); }),
            DeviceErrorKind::OutOfRange);
  EXPECT_EQ(device_error_of([&] { dev->copy_device_to_device(*buf, 14, *other, 0, 4); }),
            DeviceErrorKind::OutOfRange);
  EXPECT_EQ(device_error_of([&] { buf->slice(8, 9); }), DeviceErrorKind::OutOfRange);
  EXPECT_EQ(device_error_of([&] { buf->slice(SIZE_MAX, 2); }), DeviceErrorKind::OutOfRange);
  EXPECT_EQ(dev->counters().copies(), 0u) << "refused copies are not counted";
  try {
    buf->slice(8, 9);
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.device(), "sim:0");
    EXPECT_NE(std::string(e.what()).find("out-of-range"), std::string::npos) << e.what();
  }
}

TEST(SimulatedDevice, AnotherDevicesBufferIsADeviceMismatch) {
  auto a = SimulatedDevice::create(0);
  auto b = SimulatedDevice::create(1);
  auto on_b = b->allocate(8);
  auto on_a = a->allocate(8);
  EXPECT_EQ(device_error_of([&] { (void)a->download(*on_b); }), DeviceErrorKind::DeviceMismatch);
  EXPECT_EQ(device_error_of([&] { a->copy_device_to_device(*on_a, 0, *on_b, 0, 8); }),
            DeviceErrorKind::DeviceMismatch);
  EXPECT_EQ(device_error_of([&] { a->copy_host_to_device(pattern(8), *on_b); }),
            DeviceErrorKind::DeviceMismatch);
}

TEST(SimulatedDevice, AllocationsKeepTheirDeviceAlive) {
  std::shared_ptr<Buffer> buf;
  {
    auto dev = SimulatedDevice::create();
    buf = dev->upload(pattern(4));
  }
  EXPECT_EQ(buf->device().name(), "sim:0");
  EXPECT_EQ(buf->device().download(*buf), as_string(pattern(4)));
}

// ---- registry ----------------------------------------------------------------

TEST(DeviceRegistry, SimIsAlwaysAvailableAndOneInstancePerName) {
  auto devices = available_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0].name, "sim:0");
  EXPECT_TRUE(devices[0].available);
  auto a = open_device("sim:0");
  EXPECT_EQ(a, open_device("sim"));
  EXPECT_EQ(a->name(), "sim:0");
  auto b = open_device("sim:2");
  EXPECT_NE(a, b);
  EXPECT_EQ(b->name(), "sim:2");
}

TEST(DeviceRegistry, MalformedNamesAreUnknownDevices) {
  for (const char* name : {"", "tpu:0", "sim:", "sim:x", "sim:-1", "sim:0x", "cuda:1:2", "SIM:0"}) {
    EXPECT_EQ(device_error_of([&] { open_device(name); }), DeviceErrorKind::UnknownDevice) << name;
  }
}

TEST(DeviceRegistry, UnavailableDevicesAreListedWithAReason) {
  for (const DeviceInfo& info : available_devices()) {
    if (!info.available) {
      EXPECT_FALSE(info.reason.empty()) << info.name;
    }
  }
  const CudaStatus& cuda = cuda_status();
  if (!cuda.available) {
    EXPECT_FALSE(cuda.reason.empty());
    try {
      open_device("cuda:0");
      ADD_FAILURE() << "cuda:0 opened although the runtime said: " << cuda.reason;
    } catch (const DeviceError& e) {
      EXPECT_EQ(e.kind(), DeviceErrorKind::Unavailable);
      EXPECT_EQ(e.detail(), cuda.reason);
    }
  }
}

TEST(DeviceRegistry, BuiltWithoutTheToolkitSaysSo) {
  if (cuda_built()) GTEST_SKIP() << "this build links the CUDA runtime";
  EXPECT_EQ(cuda_status().reason, "built without the CUDA toolkit");
}

// ---- device frames ---------------------------------------------------------

TEST(DeviceFrame, IsAZeroCopyViewOfItsBuffer) {
  auto dev = SimulatedDevice::create();
  auto buf = dev->upload(pattern(32));
  Frame f = Frame::device_view(buf, /*readonly=*/false);
  EXPECT_TRUE(f.on_device());
  EXPECT_FALSE(f.borrowed()) << "a device frame shares ownership of its buffer";
  EXPECT_EQ(f.size, 32u);
  EXPECT_EQ(f.data, nullptr);
  EXPECT_FALSE(f.readonly);
  EXPECT_EQ(f.device_buffer, buf);
  Frame part = Frame::device_view(buf->slice(8, 8));
  EXPECT_EQ(part.device_buffer->address(), buf->address() + 8);
  EXPECT_EQ(dev->counters().copies(), 1u) << "only the upload copied";
  EXPECT_THROW(Frame::device_view(nullptr), std::invalid_argument);
}

TEST(DeviceFrame, HasNoHostBytes) {
  auto dev = SimulatedDevice::create();
  Frame f = Frame::device_view(dev->upload(pattern(4)));
  try {
    (void)f.view();
    ADD_FAILURE() << "view() of a device frame returned";
  } catch (const FrameError& e) {
    EXPECT_EQ(e.kind(), FrameErrorKind::DeviceFrame);
  }
  EXPECT_THROW((void)f.bytes(), FrameError);
  EXPECT_EQ(dev->counters().device_to_host, 0u);
}

TEST(DeviceFrame, ToHostIsOneCountedCopyAndToDeviceOneUpload) {
  auto dev = SimulatedDevice::create();
  const auto data = pattern(40);
  Frame host = Frame::borrowed_view(data.data(), data.size(), /*readonly=*/false);

  Frame on = to_device(host, *dev);
  EXPECT_TRUE(on.on_device());
  EXPECT_FALSE(on.readonly);
  EXPECT_EQ(dev->counters().host_to_device, 1u);
  EXPECT_EQ(to_device(on, *dev).device_buffer, on.device_buffer) << "already there: no copy";
  EXPECT_EQ(dev->counters().copies(), 1u);

  Frame back = to_host(on);
  EXPECT_FALSE(back.on_device());
  EXPECT_FALSE(back.readonly);
  EXPECT_EQ(back.view(), as_string(data));
  EXPECT_EQ(dev->counters().device_to_host, 1u);
  EXPECT_EQ(dev->counters().device_to_host_bytes, 40u);
  EXPECT_EQ(to_host(host).data, host.data) << "a host frame is not copied";
  EXPECT_EQ(dev->counters().copies(), 2u);

  auto other = SimulatedDevice::create(1);
  EXPECT_EQ(device_error_of([&] { to_device(on, *other); }), DeviceErrorKind::DeviceMismatch);
}

TEST(DeviceFrame, CannotBePacked) {
  auto dev = SimulatedDevice::create();
  std::vector<Frame> frames{Frame::owned("abc"), Frame::device_view(dev->upload(pattern(4)))};
  try {
    (void)pack_frames(frames);
    ADD_FAILURE() << "a device frame was packed";
  } catch (const FrameError& e) {
    EXPECT_EQ(e.kind(), FrameErrorKind::DeviceFrame);
    EXPECT_EQ(e.frame(), 1u);
  }
  EXPECT_EQ(dev->counters().device_to_host, 0u) << "packing must not copy device memory silently";
}

// ---- CUDA --------------------------------------------------------------------
// These exercise a real GPU. Where none answers they skip with the runtime's
// reason (they never pass without running).

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaStatus& status = cuda_status();
    if (!status.available) GTEST_SKIP() << "no CUDA device: " << status.reason;
    dev_ = open_device("cuda:0");
  }
  std::shared_ptr<Device> dev_;
};

TEST_F(CudaDeviceTest, ListedAsAvailable) {
  bool listed = false;
  for (const DeviceInfo& info : available_devices()) {
    if (info.name == "cuda:0") listed = info.available;
  }
  EXPECT_TRUE(listed);
  EXPECT_EQ(dev_->name(), "cuda:0");
  EXPECT_EQ(dev_->kind(), "cuda");
}

TEST_F(CudaDeviceTest, CopiesRoundTripThroughTheGpu) {
  dev_->reset_counters();
  const auto data = pattern(1 << 20, 5);
  auto a = dev_->upload(data);
  auto b = dev_->allocate(data.size());
  dev_->copy_device_to_device(*a, 0, *b, 0, data.size());
  EXPECT_EQ(dev_->download(*b), as_string(data));
  auto part = b->slice(1000, 24);
  EXPECT_EQ(part->address(), b->address() + 1000);
  EXPECT_EQ(dev_->download(*part), as_string({data.begin() + 1000, data.begin() + 1024}));
  const CopyCounters c = dev_->counters();
  EXPECT_EQ(c.host_to_device, 1u);
  EXPECT_EQ(c.device_to_device, 1u);
  EXPECT_EQ(c.device_to_host, 2u);
  EXPECT_EQ(c.allocations, 2u);
  EXPECT_NE(a->address(), b->address());
}

TEST_F(CudaDeviceTest, OutOfRangeIsCheckedBeforeTheRuntime) {
  auto buf = dev_->allocate(16);
  EXPECT_EQ(device_error_of([&] { dev_->copy_host_to_device(pattern(17), *buf); }),
            DeviceErrorKind::OutOfRange);
}

TEST_F(CudaDeviceTest, AllocationsAreFreed) {
  const std::size_t live = dev_->live_allocations();
  { auto buf = dev_->allocate(4096); }
  EXPECT_EQ(dev_->live_allocations(), live);
}

TEST_F(CudaDeviceTest, DeviceFramesMoveWithoutAHostRoundTrip) {
  dev_->reset_counters();
  const auto data = pattern(4096);
  Frame f = to_device(Frame::borrowed_view(data.data(), data.size()), *dev_);
  Frame slice = Frame::device_view(f.device_buffer->slice(100, 200));
  EXPECT_EQ(dev_->counters().device_to_host, 0u);
  EXPECT_EQ(to_host(slice).view(), as_string({data.begin() + 100, data.begin() + 300}));
  EXPECT_EQ(dev_->counters().device_to_host, 1u);
}

}  // namespace
}  // namespace serialcheck::device
