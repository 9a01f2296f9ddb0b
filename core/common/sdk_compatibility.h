// Whether a plugin built against one SDK version loads in this lumen, and
// reading what it hands over at the size it was built with. The rule, for
// every loader (the runtime's, collect's and er_print's, the manifest's
// reader): the same major and the plugin's minor at most this lumen's.
// A sized struct (plugin_abi.h) is read up to its `size`; the members past
// it are absent (zero).
#pragma once

#include <lumen/plugin_abi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace lumen::metadata {

struct SdkVersion {
  uint32_t major = LUMEN_SDK_VERSION_MAJOR;
  uint32_t minor = LUMEN_SDK_VERSION_MINOR;
};

// Empty when a plugin built against `built` loads in a lumen offering
// `offered`; else the sentence refusing it, naming `plugin`, the version it
// needs and the one offered.
std::string sdk_refusal(const std::string& plugin, SdkVersion built, SdkVersion offered = {});

// The bytes every descriptor begins with, in every major version.
inline constexpr size_t kSdkHeadBytes = sizeof(uint32_t) + 2 * sizeof(uint16_t);

// `given` as this lumen's Sized: the members its producer's `size` covers,
// the rest zero, `size` this lumen's. A size smaller than the struct's
// first member gives all zero.
template <typename Sized>
Sized read_sized(const Sized& given) {
  Sized copy;
  std::memset(static_cast<void*>(&copy), 0, sizeof copy);
  const size_t bytes = std::min<size_t>(given.size, sizeof(Sized));
  if (bytes >= sizeof(uint32_t)) std::memcpy(static_cast<void*>(&copy), &given, bytes);
  copy.size = sizeof(Sized);
  return copy;
}

}  // namespace lumen::metadata
