#include "access_guard.h"

#include <sys/random.h>

#include <cerrno>
#include <stdexcept>
#include <string_view>

namespace lumen::analyzer {

std::string random_token() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("getrandom failed: no token can be made");
    got += static_cast<size_t>(n);
  }
  static const char digits[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += digits[b >> 4];
    token += digits[b & 15];
  }
  return token;
}

namespace {

// Compares in time independent of where they differ.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

// The value of cookie `name` in a Cookie header ("a=1; b=2"), or "".
std::string cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const size_t end = header.find(';');
    std::string_view item = header.substr(0, end);
    header = end == std::string_view::npos ? std::string_view() : header.substr(end + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.size() > name.size() && item.substr(0, name.size()) == name && item[name.size()] == '=')
      return std::string(item.substr(name.size() + 1));
  }
  return "";
}

bool is_loopback(const std::string& host) { return host == "127.0.0.1" || host == "[::1]"; }

}  // namespace

AccessGuard::AccessGuard(std::string token, const std::string& host, int port)
    : token_(std::move(token)), cookie_name_("lumen_analyzer_" + std::to_string(port)) {
  hosts_.push_back(host + ":" + std::to_string(port));
  if (is_loopback(host)) hosts_.push_back("localhost:" + std::to_string(port));
}

bool AccessGuard::holds_token(const RequestFacts& request) const {
  return same_secret(request.query_token, token_) || same_secret(request.header_token, token_) ||
         same_secret(cookie_value(request.cookie, cookie_name_), token_);
}

bool AccessGuard::token_in_query(const RequestFacts& request) const { return same_secret(request.query_token, token_); }

std::optional<std::string> AccessGuard::refusal(const RequestFacts& request) const {
  bool known_host = false;
  for (const std::string& host : hosts_) known_host |= request.host == host;
  if (!known_host) return "this server answers only as " + hosts_.front();
  if (request.has_origin) {
    bool own = false;
    for (const std::string& host : hosts_) own |= request.origin == "http://" + host;
    if (!own) return "requests from other sites' pages are refused";
  }
  if (!holds_token(request)) return "the URL the analyzer printed at start, with its token, opens this page";
  if (request.method != "GET" && request.method != "HEAD") return "the analyzer only reads: GET requests alone";
  return std::nullopt;
}

std::string AccessGuard::cookie_header() const {
  return cookie_name_ + "=" + token_ + "; Path=/; HttpOnly; SameSite=Strict";
}

}  // namespace lumen::analyzer
