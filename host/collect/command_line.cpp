#include "command_line.h"

#include <regex>

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
    const std::string name = arg.substr(0, arg.find('='));
    if (name == "--profile") request.profile = take_value(args, i, "--profile");
    else if (arg == "-o") request.experiment_name = take_value(args, i, "-o");
    else if (arg == "-d") request.directory = take_value(args, i, "-d");
    else if (arg == "-C") request.comments.push_back(take_value(args, i, "-C"));
    else if (arg == "-F") {
      request.follow = take_value(args, i, "-F");
      if (request.follow != "on" && request.follow != "off" && request.follow != "all" &&
          (request.follow.size() < 2 || request.follow[0] != '='))
        throw UsageError("-F takes on, off, all or =REGEX, not '" + request.follow + "'");
      if (request.follow[0] == '=') {
        try {
          std::regex check(request.follow.substr(1));
        } catch (const std::regex_error& e) {
          throw UsageError("-F: '" + request.follow.substr(1) + "' is not a regular expression: " + e.what());
        }
      }
    }
    else if (arg == "-S") request.runtime.sample_period_ns = parse_sample_period(take_value(args, i, "-S"));
    else if (arg == "-l") {
      const std::string value = take_value(args, i, "-l");
      request.runtime.sample_signal = value == "off" ? 0 : parse_signal("-l", value);
    }
    else if (arg == "-y") parse_pause_signal(take_value(args, i, "-y"), request.runtime);
    else if (arg == "-t") parse_window(take_value(args, i, "-t"), request.runtime);
    else if (arg == "-L") request.runtime.size_limit_bytes = parse_size_limit(take_value(args, i, "-L"));
    else if (arg == "-A") request.runtime.archive = parse_archive_mode(take_value(args, i, "-A"));
    else if (name == "--plugin") request.plugin_paths.push_back(take_value(args, i, "--plugin"));
    else if (arg == "--list-plugins") request.list_plugins = true;
    else if (arg == "-n") request.dry_run = true;
    else if (arg == "-V" || arg == "--version") request.show_version = true;
    else if (arg == "--help" || arg == "-help") request.show_help = true;
    else if (arg.size() >= 2 && describable_flags.count(arg.substr(1)) != 0 && i + 1 == args.size())
      request.describe_flag = arg.substr(1);
    else if (arg.size() >= 2 && plugin_flags.count(arg.substr(1)) != 0)
      request.plugin_flags.emplace_back(arg.substr(1), take_value(args, i, arg));
    else
      throw UsageError("unknown option '" + arg + "'");
  }
  if (request.runtime.sample_signal != 0 && request.runtime.sample_signal == request.runtime.pause_signal)
    throw UsageError("-l and -y name the same signal (" + signal_name(request.runtime.sample_signal) +
                     "); one signal cannot both mark samples and toggle pausing");
  request.target.assign(args.begin() + static_cast<long>(i), args.end());
  if (request.target.empty() && !request.show_version && !request.show_help && !request.list_plugins &&
      request.describe_flag.empty())
    throw UsageError("no target program given");
  return request;
}

}  // namespace lumen::collect
