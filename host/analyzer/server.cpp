#include "server.h"

#include <mutex>
#include <stdexcept>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "access_guard.h"
#include "idle_decoder.h"
#include "page_assets.h"

namespace lumen::analyzer {

namespace {

std::string content_type(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  return "text/plain; charset=utf-8";
}

RequestFacts facts_of(const httplib::Request& request) {
  RequestFacts facts;
  facts.method = request.method;
  facts.host = request.get_header_value("Host");
  facts.has_origin = request.has_header("Origin");
  facts.origin = request.get_header_value("Origin");
  facts.query_token = request.get_param_value("token");
  facts.header_token = request.get_header_value("X-Lumen-Token");
  facts.cookie = request.get_header_value("Cookie");
  return facts;
}

// The URL's host part for an address: IPv6 in brackets.
std::string url_host(const std::string& address) {
  return address.find(':') == std::string::npos ? address : "[" + address + "]";
}

PageSettings settings_of(const httplib::Request& request) {
  return {request.get_param_value("metrics"), request.get_param_value("sort"),    request.get_param_value("viewmode"),
          request.get_param_value("filters"), request.get_param_value("compare"), request.get_param_value("threads"),
          request.get_param_value("experiments")};
}

void send_json(httplib::Response& response, int status, const std::string& json) {
  response.status = status;
  response.set_content(json, "application/json; charset=utf-8");
}

}  // namespace

struct Server::Impl {
  Impl(ViewService& views, const std::string& host)
      : views(views), host(url_host(host)), decoder(session_lock, [&views] { views.decode_events(); }) {}
  ViewService& views;
  std::string host;
  int port = 0;
  std::unique_ptr<AccessGuard> guard;
  httplib::Server http;
  std::mutex session_lock;  // one request at a time reaches the session
  IdleDecoder decoder;      // after the lock it takes: ends before it

  void routes();
};

void Server::Impl::routes() {
  http.new_task_queue = [] { return new httplib::ThreadPool(4); };
  // SO_REUSEADDR alone: httplib's default SO_REUSEPORT would let a second
  // server bind the same port and take a share of the page's requests.
  http.set_socket_options([](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    // Nothing the page loads comes from elsewhere, nor may it be framed.
    response.set_header("Content-Security-Policy",
                        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    response.set_header("Referrer-Policy", "no-referrer");
    response.set_header("X-Content-Type-Options", "nosniff");
    response.set_header("Cache-Control", "no-store");
    const RequestFacts facts = facts_of(request);
    if (const auto refused = guard->refusal(facts)) {
      response.status = 403;
      response.set_content("analyzer: " + *refused + "\n", "text/plain; charset=utf-8");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (guard->token_in_query(facts)) response.set_header("Set-Cookie", guard->cookie_header());
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& response) {
    for (const EmbeddedAsset& asset : page_assets())
      if (std::string_view(asset.name) == "index.html") response.set_content(std::string(asset.text), content_type(asset.name));
  });
  http.Get(R"(/assets/([A-Za-z0-9_.-]+))", [](const httplib::Request& request, httplib::Response& response) {
    const std::string name = request.matches[1];
    for (const EmbeddedAsset& asset : page_assets())
      if (name == asset.name) {
        response.set_content(std::string(asset.text), content_type(asset.name));
        return;
      }
    response.status = 404;
  });
  http.Get("/api/session", [this](const httplib::Request&, httplib::Response& response) {
    const std::lock_guard<std::mutex> lock(session_lock);
    send_json(response, 200, views.session_summary());
  });
  http.Get("/api/view", [this](const httplib::Request& request, httplib::Response& response) {
    const std::lock_guard<std::mutex> lock(session_lock);
    try {
      send_json(response, 200, views.view(request.get_param_value("cmd"), settings_of(request)));
      response.set_header("X-Lumen-View", views.last_from_cache() ? "kept" : "made");
      decoder.view_answered();
    } catch (const ViewError& e) {
      nlohmann::json error = {{"error", e.message}};
      if (!e.setting.empty()) error["setting"] = e.setting;
      send_json(response, 400, error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  });
}

Server::Server(ViewService& views, const std::string& host, int port) : impl_(std::make_unique<Impl>(views, host)) {
  impl_->routes();
  if (port == 0) impl_->port = impl_->http.bind_to_any_port(host);
  else impl_->port = impl_->http.bind_to_port(host, port) ? port : -1;
  if (impl_->port <= 0)
    throw std::runtime_error("cannot listen on " + impl_->host + (port == 0 ? "" : ":" + std::to_string(port)));
  impl_->guard = std::make_unique<AccessGuard>(random_token(), impl_->host, impl_->port);
}

Server::~Server() = default;

int Server::port() const { return impl_->port; }

std::string Server::url() const {
  return "http://" + impl_->host + ":" + std::to_string(impl_->port) + "/?token=" + impl_->guard->token();
}

void Server::serve() { impl_->http.listen_after_bind(); }

void Server::stop() { impl_->http.stop(); }

}  // namespace lumen::analyzer
