// The JVMTI callbacks in progress, so that a detach (collect -P) can end
// the agent while the JVM runs on: the callbacks stop recording at once,
// and the runtime goes only once none of them is still inside it.
#pragma once

#include <lumen/collector_support.h>

namespace lumen::java {

// [signal-safe] The first statement of every JVMTI callback: counts it as
// running, and is false once the agent is closed (the callback returns at
// once, touching nothing of the runtime's).
class AgentCall {
 public:
  AgentCall() noexcept;
  ~AgentCall();
  AgentCall(const AgentCall&) = delete;
  AgentCall& operator=(const AgentCall&) = delete;
  explicit operator bool() const noexcept { return open_; }

 private:
  bool open_;
};

// A callback that records: open, and either inside the runtime's re-entry
// guard (a JVM thread) or on the agent's own thread (collect -P's, a
// collector thread, whose own GenerateEvents calls it back), where the
// runtime's guard is held already and nothing it does is traced.
class CallbackScope {
 public:
  CallbackScope() noexcept;
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;
  explicit operator bool() const noexcept { return active_; }

 private:
  AgentCall call_;
  TraceGuard guard_;
  bool active_;
};

// The agent's callbacks record from now on (its start).
void open_agent_calls();
// Callbacks from now on return at once; returns when none is running, or
// false if one still is after `limit_ms`.
bool close_agent_calls(int limit_ms);

// The calling thread is the agent's own (collect -P): see CallbackScope.
void mark_agent_thread();

}  // namespace lumen::java
