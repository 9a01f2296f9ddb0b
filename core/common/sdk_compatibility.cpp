#include "sdk_compatibility.h"

namespace lumen::metadata {

namespace {

std::string version_text(SdkVersion v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

}  // namespace

std::string sdk_refusal(const std::string& plugin, SdkVersion built, SdkVersion offered) {
  if (built.major != offered.major)
    return "plugin " + plugin + " was built against lumen SDK " + version_text(built) + ", of major version " +
           std::to_string(built.major) + "; this lumen offers SDK " + version_text(offered) +
           ": rebuild the plugin against this lumen's SDK";
  if (built.minor > offered.minor)
    return "plugin " + plugin + " needs lumen SDK " + version_text(built) + " (minor version " +
           std::to_string(built.minor) + "); this lumen offers SDK " + version_text(offered) + " (minor version " +
           std::to_string(offered.minor) + "): use a newer lumen, or build the plugin against this SDK";
  return "";
}

}  // namespace lumen::metadata
