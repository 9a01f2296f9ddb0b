#include "kernel_options.h"

#include <cmath>
#include <cstdlib>

namespace lumen::kernel {

namespace {

double positive_number(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(value) || value <= 0)
    throw KernelUsageError(option + " takes a positive number, not '" + text + "'");
  return value;
}

}  // namespace

const char* kernel_usage() {
  return "usage: er_kernel [options] [-- command [args...]]\n"
         "Profiles every CPU, kernel and user code, into an experiment er_print reads:\n"
         "one sub-experiment per process image, <IDLE> for idle CPUs.\n"
         "  -p on|hi|lo|MS   sampling interval of each CPU: on 10 ms (default), hi 1 ms, lo 100 ms,\n"
         "                   or milliseconds (0.1 to 1000)\n"
         "  -t SECONDS       record this long (without a command: until interrupted)\n"
         "  -o NAME          experiment name (default ktest.1.er, the next free number)\n"
         "  -d DIR           directory of the experiment\n"
         "  -A on|off|copy   archive the load objects sampled (default on)\n"
         "  -C COMMENT       a comment in the experiment's header (repeatable)\n"
         "  -- COMMAND ARGS  run COMMAND and record while it runs; er_kernel exits with its status\n"
         "Needs root, CAP_PERFMON or kernel.perf_event_paranoid 0 or below.\n";
}

KernelOptions parse_kernel_options(const std::vector<std::string>& args) {
  KernelOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      o.command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      if (o.command.empty()) throw KernelUsageError("-- names no command");
      return o;
    }
    if (a == "-h" || a == "--help") {
      o.help = true;
      continue;
    }
    if (a.size() == 2 && a[0] == '-' && std::string("ptodAC").find(a[1]) != std::string::npos) {
      if (i + 1 >= args.size()) throw KernelUsageError(a + " needs a value");
      const std::string& v = args[++i];
      switch (a[1]) {
        case 'p':
          if (v == "on") o.interval_ns = 10'000'000;
          else if (v == "hi" || v == "high") o.interval_ns = 1'000'000;
          else if (v == "lo" || v == "low") o.interval_ns = 100'000'000;
          else {
            const double ms = positive_number(v, "-p");
            if (ms < 0.1 || ms > 1000) throw KernelUsageError("-p takes on, hi, lo or 0.1 to 1000 milliseconds, not '" + v + "'");
            o.interval_ns = static_cast<unsigned long long>(std::llround(ms * 1e6));
          }
          o.interval_text = v;
          break;
        case 't':
          o.duration_s = positive_number(v.size() > 1 && v.back() == 's' ? v.substr(0, v.size() - 1) : v, "-t");
          break;
        case 'o':
          o.name = v;
          break;
        case 'd':
          o.directory = v;
          break;
        case 'A':
          if (v == "on") o.archive = metadata::ArchiveMode::on;
          else if (v == "off") o.archive = metadata::ArchiveMode::off;
          else if (v == "copy") o.archive = metadata::ArchiveMode::copy;
          else throw KernelUsageError("-A takes on, off or copy, not '" + v + "'");
          break;
        case 'C':
          o.comments.push_back(v);
          break;
      }
      continue;
    }
    if (!a.empty() && a[0] == '-') throw KernelUsageError("unknown option '" + a + "' (er_kernel -h lists them)");
    // A command without "--", as collect takes one.
    o.command.assign(args.begin() + static_cast<long>(i), args.end());
    return o;
  }
  return o;
}

}  // namespace lumen::kernel
