// Opening the page in the user's browser (xdg-open), where a desktop is.
#pragma once

#include <string>

namespace lumen::analyzer {

// Whether $DISPLAY or $WAYLAND_DISPLAY names a desktop to open a browser on.
bool desktop_present();

// Starts xdg-open on `url` without waiting for it; false when it could
// not be started (the URL printed is then the way in).
bool open_in_browser(const std::string& url);

}  // namespace lumen::analyzer
