#include "counter_options.h"

#include <cstring>

namespace lumen::hwc {

std::string resolve(const char* text, std::vector<EncodedCounter>* encoded) {
  std::vector<CounterRequest> requests;
  std::string problem = parse_counter_list(text, &requests);
  if (!problem.empty()) return problem;
  encoded->resize(requests.size());
  for (size_t i = 0; i < requests.size() && problem.empty(); ++i) problem = encode_counter(requests[i], &(*encoded)[i]);
  return problem;
}

const char* counters_option(const lumen_option_value* options, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (std::strcmp(options[i].name, "counters") == 0) return options[i].value;
  return "";
}

}  // namespace lumen::hwc
