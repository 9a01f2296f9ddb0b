// Who may use the analyzer: the holder of the token printed at start (in
// the URL, or the cookie the first page sets), asking by the server's own
// address (a foreign Host is a DNS-rebinding page) from the server's own
// page (a foreign Origin is another site's script), and only reading.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lumen::analyzer {

// 128 bits from getrandom, as 32 hex digits.
std::string random_token();

// What a request shows of itself; empty where it has no such part.
struct RequestFacts {
  std::string method;
  std::string host;         // the Host header
  std::string origin;       // the Origin header, when sent
  bool has_origin = false;
  std::string query_token;  // ?token=
  std::string header_token; // X-Lumen-Token
  std::string cookie;       // the Cookie header, whole
};

class AccessGuard {
 public:
  // `host`: the address listened on as a URL writes it ("127.0.0.1",
  // "[::1]"); localhost is accepted too for a loopback address.
  AccessGuard(std::string token, const std::string& host, int port);

  // Why the request is refused (for the 403's body), or nullopt.
  std::optional<std::string> refusal(const RequestFacts& request) const;
  // Whether the request carried the token in its query (its response then
  // sets the cookie, so the page's own requests need not).
  bool token_in_query(const RequestFacts& request) const;
  std::string cookie_header() const;  // Set-Cookie's value
  const std::string& token() const { return token_; }

 private:
  bool holds_token(const RequestFacts& request) const;

  std::string token_;
  std::string cookie_name_;
  std::vector<std::string> hosts_;  // "127.0.0.1:8080", "localhost:8080"
};

}  // namespace lumen::analyzer
