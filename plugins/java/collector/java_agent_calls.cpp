#include "java_agent_calls.h"

#include <poll.h>

#include <atomic>
#include <chrono>

#include "java_agent.h"

namespace lumen::java {

namespace {

// Open from the start: a JVM that loads the agent (-agentpath) calls back
// only once the agent has set itself up.
std::atomic<bool> g_open{true};
std::atomic<int> g_running{0};
__attribute__((tls_model("initial-exec"))) thread_local bool t_agent_thread = false;

}  // namespace

// Counted before the flag is read, and the flag cleared before the count is
// read (both sequentially consistent): a callback that saw the agent open
// is seen running by close_agent_calls until it returns.
AgentCall::AgentCall() noexcept {
  g_running.fetch_add(1, std::memory_order_seq_cst);
  open_ = g_open.load(std::memory_order_seq_cst);
}

AgentCall::~AgentCall() { g_running.fetch_sub(1, std::memory_order_seq_cst); }

CallbackScope::CallbackScope() noexcept
    : call_(), guard_(call_ ? agent_context().runtime : nullptr), active_(call_ && (guard_ || t_agent_thread)) {}

void open_agent_calls() { g_open.store(true, std::memory_order_seq_cst); }

bool close_agent_calls(int limit_ms) {
  g_open.store(false, std::memory_order_seq_cst);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  while (g_running.load(std::memory_order_seq_cst) != 0) {
    if (std::chrono::steady_clock::now() >= until) return false;
    poll(nullptr, 0, 1);
  }
  return true;
}

void mark_agent_thread() { t_agent_thread = true; }

}  // namespace lumen::java
