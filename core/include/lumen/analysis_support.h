/* C++ helpers for analysis halves.
 *
 *   lumen::kept_reading   what a plugin's views read of its records, read
 *       once for all of them while the selection stays (the session keeps
 *       it: lumen_view_host.kept, SDK 1.9), or for each view on an older
 *       host; lumen::kept_records for the common case of one visitor
 */
#ifndef LUMEN_ANALYSIS_SUPPORT_H
#define LUMEN_ANALYSIS_SUPPORT_H

#ifndef __cplusplus
#error "lumen/analysis_support.h is for C++; C plugins call lumen_view_host.kept directly"
#endif

#include <lumen/analysis_plugin.h>

#include <exception>
#include <memory>
#include <string>

#pragma GCC visibility push(hidden)

namespace lumen {

/* The T that `read(T&)` fills from the records through `host`: the one the
 * session keeps under `key` if it has it, else read now and kept. `read`
 * returns an empty string, or why it could not read (then, or when it
 * throws, nothing is kept, the result is null and `problem` says why). On a
 * host before SDK 1.9 it is read into `own` each time. The result must not
 * be changed: later views share it. */
template <typename T, typename Read>
const T* kept_reading(const lumen_view_host* host, const char* key, std::unique_ptr<T>& own, std::string& problem,
                      Read&& read) {
  struct Request {
    Read* read;
    std::string* problem;
  };
  void* (*build)(void*) = [](void* arg) -> void* {
    Request& request = *static_cast<Request*>(arg);
    try {
      std::unique_ptr<T> object(new T());
      *request.problem = (*request.read)(*object);
      return request.problem->empty() ? object.release() : nullptr;
    } catch (const std::exception& e) {
      *request.problem = e.what();
      return nullptr;
    }
  };
  void (*release)(void*) = [](void* object) { delete static_cast<T*>(object); };
  Request request{&read, &problem};
  if (!LUMEN_PROVIDES(host, kept)) {
    own.reset(static_cast<T*>(build(&request)));
    return own.get();
  }
  const void* object = host->kept(host->context, key, build, release, &request);
  if (object == nullptr && problem.empty()) problem = "nothing was read";
  return static_cast<const T*>(object);
}

/* kept_reading of a T read by host->for_each_record(visit, &t), whose
 * members `host` (the view's host while it reads, null after) and `problem`
 * (why a record could not be read; empty when all could) the visitor
 * uses. */
template <typename T>
const T* kept_records(const lumen_view_host* host, const char* key,
                      void (*visit)(void* arg, uint16_t kind, const void* payload, uint16_t payload_bytes,
                                    uint32_t thread_id),
                      std::unique_ptr<T>& own, std::string& problem) {
  return kept_reading(host, key, own, problem, [&](T& into) {
    into.host = host;
    host->for_each_record(host->context, visit, &into);
    into.host = nullptr;
    return std::string(into.problem);
  });
}

}  // namespace lumen

#pragma GCC visibility pop

#endif
