#include "command_line.h"

#include "flag_table.h"

namespace lumen::collect {

namespace {

// Returns the value of an option that takes one: "-o x" or "--profile=x".
std::string take_value(const std::vector<std::string>& args, size_t& i, const std::string& option) {
  const std::string& arg = args[i];
  const auto equals = arg.find('=');
  if (arg.rfind("--", 0) == 0 && equals != std::string::npos) return arg.substr(equals + 1);
  if (i + 1 >= args.size()) throw UsageError("option " + option + " needs a value");
  return args[++i];
}

}  // namespace

CollectRequest parse_command_line(const std::vector<std::string>& args, const std::set<std::string>& plugin_flags,
                                  const std::set<std::string>& describable_flags) {
  CollectRequest request;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (const Flag* flag = find_flag(arg)) {
      flag->apply(request, flag->is_switch() ? std::string() : take_value(args, i, flag->names[0]));
    } else if (arg.size() >= 2 && describable_flags.count(arg.substr(1)) != 0 && i + 1 == args.size()) {
      request.describe_flag = arg.substr(1);
    } else if (arg.size() >= 2 && plugin_flags.count(arg.substr(1)) != 0) {
      request.plugin_flags.emplace_back(arg.substr(1), take_value(args, i, arg));
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (request.runtime.sample_signal != 0 && request.runtime.sample_signal == request.runtime.pause_signal)
    throw UsageError("-l and -y name the same signal (" + signal_name(request.runtime.sample_signal) +
                     "); one signal cannot both mark samples and toggle pausing");
  request.target.assign(args.begin() + static_cast<long>(i), args.end());
  if (request.attach_pid != 0 && !request.target.empty())
    throw UsageError("-P attaches to a running process: no program is given with it ('" + request.target[0] + "')");
  if (request.target.empty() && request.attach_pid == 0 && !request.show_version && !request.show_help && !request.list_plugins &&
      request.describe_flag.empty())
    throw UsageError("no target program given");
  return request;
}

}  // namespace lumen::collect
