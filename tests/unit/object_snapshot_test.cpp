// The runtime's own copy of the loaded-object list: the same objects as the
// dynamic linker's, readable while another thread holds the linker's lock,
// and brought up to date by a refresh.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "stacks/object_snapshot.h"

namespace lc = lumen::collector;

namespace {

struct ObjectCopy {
  std::string name;
  ElfW(Addr) address;
  std::vector<ElfW(Phdr)> headers;
};

int append_object(dl_phdr_info* info, size_t, void* data) {
  auto* objects = static_cast<std::vector<ObjectCopy>*>(data);
  objects->push_back({info->dlpi_name ? info->dlpi_name : "", info->dlpi_addr,
                      {info->dlpi_phdr, info->dlpi_phdr + info->dlpi_phnum}});
  return 0;
}

std::vector<ObjectCopy> real_objects() {
  std::vector<ObjectCopy> objects;
  dl_iterate_phdr(append_object, &objects);
  return objects;
}

std::vector<ObjectCopy> snapshot_objects() {
  std::vector<ObjectCopy> objects;
  lc::object_snapshot_iterate(append_object, &objects);
  return objects;
}

bool has_object(const std::vector<ObjectCopy>& objects, const std::string& path) {
  for (const ObjectCopy& object : objects)
    if (object.name == path) return true;
  return false;
}

TEST(ObjectSnapshot, HoldsTheLinkersObjectsWithTheirProgramHeaders) {
  lc::object_snapshot_refresh();
  const std::vector<ObjectCopy> real = real_objects();
  const std::vector<ObjectCopy> copy = snapshot_objects();
  ASSERT_EQ(copy.size(), real.size());
  for (size_t i = 0; i < real.size(); ++i) {
    EXPECT_EQ(copy[i].name, real[i].name);
    EXPECT_EQ(copy[i].address, real[i].address);
    ASSERT_EQ(copy[i].headers.size(), real[i].headers.size()) << real[i].name;
    EXPECT_EQ(std::memcmp(copy[i].headers.data(), real[i].headers.data(), sizeof(ElfW(Phdr)) * real[i].headers.size()), 0);
  }
}

// Each refresh sizes its mapping from what the last one held; a program
// that dlopens all through its run refreshes thousands of times.
TEST(ObjectSnapshot, EveryRefreshHoldsEveryObject) {
  for (int refresh = 0; refresh < 100; ++refresh) {
    lc::object_snapshot_refresh();
    ASSERT_EQ(snapshot_objects().size(), real_objects().size()) << "refresh " << refresh;
  }
}

TEST(ObjectSnapshot, StopsWhereTheCallbackSaysSo) {
  lc::object_snapshot_refresh();
  int calls = 0;
  const int result = lc::object_snapshot_iterate(
      [](dl_phdr_info*, size_t, void* data) { return ++*static_cast<int*>(data) == 2 ? 7 : 0; }, &calls);
  EXPECT_EQ(result, 7);
  EXPECT_EQ(calls, 2);
}

TEST(ObjectSnapshot, FollowsDlopenAndDlcloseOnRefresh) {
  const std::string library = LUMEN_TEST_NOT_A_PLUGIN;
  lc::object_snapshot_refresh();
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  ASSERT_TRUE(has_object(real_objects(), library));
  EXPECT_FALSE(has_object(snapshot_objects(), library)) << "a snapshot is what was loaded when it was taken";
  lc::object_snapshot_refresh();
  EXPECT_TRUE(has_object(snapshot_objects(), library));
  ASSERT_EQ(dlclose(handle), 0);
  ASSERT_FALSE(has_object(real_objects(), library));
  lc::object_snapshot_refresh();
  EXPECT_FALSE(has_object(snapshot_objects(), library));
}

TEST(ObjectSnapshot, AMissedLookupBringsARefreshOnTheNextChance) {
  const std::string library = LUMEN_TEST_NOT_A_PLUGIN;
  lc::object_snapshot_refresh();
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  lc::object_snapshot_refresh_if_missed();
  EXPECT_FALSE(has_object(snapshot_objects(), library)) << "nothing was missed yet";
  // A lookup that finds nothing: the object looked for may be new.
  lc::object_snapshot_iterate([](dl_phdr_info*, size_t, void*) { return 0; }, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the refresh interval
  lc::object_snapshot_refresh_if_missed();
  EXPECT_TRUE(has_object(snapshot_objects(), library));
  dlclose(handle);
  lc::object_snapshot_refresh();
}

// The point of the snapshot: a thread inside dl_iterate_phdr (holding the
// linker's lock) never delays a reader.
TEST(ObjectSnapshot, ReadsWhileAnotherThreadHoldsTheLinkersLock) {
  lc::object_snapshot_refresh();
  std::atomic<bool> holding{false}, release{false};
  struct Hold {
    std::atomic<bool>* holding;
    std::atomic<bool>* release;
  } hold{&holding, &release};
  std::thread holder([&hold] {
    dl_iterate_phdr(
        [](dl_phdr_info*, size_t, void* data) {
          auto* h = static_cast<Hold*>(data);
          h->holding->store(true);
          while (!h->release->load()) std::this_thread::yield();
          return 1;
        },
        &hold);
  });
  while (!holding.load()) std::this_thread::yield();
  auto reader = std::async(std::launch::async, [] { return snapshot_objects().size(); });
  // A liveness bound, not a timing measurement: a reader that waited for
  // the lock would wait until `release`, which only comes after this.
  const bool finished = reader.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  release.store(true);
  holder.join();
  EXPECT_TRUE(finished);
  EXPECT_EQ(reader.get(), real_objects().size());
}

}  // namespace
