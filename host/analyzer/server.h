// The analyzer's HTTP server: the page's assets and its API, behind the
// access guard, on a thread pool; the one view service behind a lock.
//   GET /                       the page (sets the token's cookie)
//   GET /assets/NAME            its scripts and style
//   GET /api/session            experiments, plugin views, default metrics
//   GET /api/view?cmd=...&metrics=&sort=&viewmode=&filters=&compare=&threads=
#pragma once

#include <memory>
#include <string>

#include "view_service.h"

namespace lumen::analyzer {

class Server {
 public:
  // Binds `host` (an address) at `port` (0: a free one); throws
  // std::runtime_error when it cannot.
  Server(ViewService& views, const std::string& host, int port);
  ~Server();
  int port() const;
  // The URL with the token that opens the page.
  std::string url() const;
  // Serves until stop() (from another thread).
  void serve();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lumen::analyzer
