#include "header_view.h"

#include <ctime>
#include <sstream>

namespace lumen::analysis {

namespace {

struct Field {
  std::string key;
  std::string label;
  std::string value;
  bool is_number = false;
};

std::string joined(const YAML::Node& list) {
  std::string text;
  if (list && list.IsSequence())
    for (const auto& item : list) text += (text.empty() ? "" : " ") + item.as<std::string>();
  return text;
}

std::vector<Field> fields_of(const Experiment& e) {
  const YAML::Node& h = e.header();
  std::vector<Field> fields;
  auto add = [&](const std::string& key, const std::string& label, const std::string& value, bool number = false) {
    fields.push_back({key, label, value, number});
  };
  add("experiment", "Experiment", e.path().string());
  add("command", "Target command", joined(h["command"]));
  add("target_pid", "Process id", h["target_pid"].as<std::string>("?"), true);
  add("host", "Host", h["host"].as<std::string>("?"));
  add("cpus", "CPUs", h["cpus"].as<std::string>("?"), true);
  add("clock_mhz", "Clock rate (MHz)", h["clock_mhz"].as<std::string>("?"), true);
  add("collector_version", "Collector version", h["collector_version"].as<std::string>("?"));
  add("format", "Experiment format",
      h["format"]["major"].as<std::string>("?") + "." + h["format"]["minor"].as<std::string>("?"));
  const long long start = h["start_wall_ns"].as<long long>(0);
  const long long end = h["end_wall_ns"].as<long long>(0);
  add("start_wall_ns", "Start (ns since the epoch)", std::to_string(start), true);
  const time_t start_seconds = static_cast<time_t>(start / 1000000000LL);
  char when[64] = "";
  std::tm local{};
  localtime_r(&start_seconds, &local);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", &local);
  add("start_time", "Start time", when);
  if (end > 0) {
    std::ostringstream duration;
    duration.precision(3);
    duration << std::fixed << static_cast<double>(end - start) / 1e9;
    add("duration_s", "Duration (s)", duration.str(), true);
  }
  if (const YAML::Node ending = h["target_end"]) {
    if (ending["exit_code"]) add("exit_code", "Exit status", ending["exit_code"].as<std::string>(), true);
    if (ending["signal"]) add("signal", "Killed by signal", "SIG" + ending["signal_name"].as<std::string>("?"));
  } else {
    // An image replaced by exec has no ending of its own: its process went on as the next image.
    std::string exec_lineage;
    for (const YAML::Node& entry : e.log())
      if (entry["event"] && entry["event"].as<std::string>() == "exec") exec_lineage = entry["lineage"].as<std::string>("");
    if (!exec_lineage.empty())
      add("ending", "Ending", "replaced by exec (its process went on as " + exec_lineage + ")");
    else
      add("ending", "Ending", "not recorded (collect was interrupted, or the experiment is still being written)");
  }
  if (const YAML::Node cut = h["cut_short"]) add("cut_short", "Collection cut short", cut.as<std::string>(""));
  if (const YAML::Node plugins = h["plugins"]; plugins && plugins.IsMap()) {
    for (const auto& p : plugins) {
      std::string options;
      for (const auto& o : p.second["options"]) options += (options.empty() ? "" : ", ") + o.first.as<std::string>() + "=" + o.second.as<std::string>();
      add("plugin." + p.first.as<std::string>(), "Data: " + p.first.as<std::string>(),
          p.second["version"].as<std::string>("?") + " -> " + p.second["data_file"].as<std::string>("?") +
              (options.empty() ? "" : " (" + options + ")"));
    }
  }
  if (const YAML::Node left_out = h["left_out"]; left_out && left_out.IsSequence())
    for (size_t i = 0; i < left_out.size(); ++i)
      add("left_out" + std::to_string(i + 1), "Left out",
          left_out[i]["plugin"].as<std::string>("?") + " " + left_out[i]["what"].as<std::string>("?") + ": " +
              left_out[i]["reason"].as<std::string>(""));
  if (const YAML::Node comments = h["comments"]; comments && comments.IsSequence())
    for (size_t i = 0; i < comments.size(); ++i) add("comment" + std::to_string(i + 1), "Comment", comments[i].as<std::string>());
  for (const YAML::Node& entry : e.log())
    if (entry["event"] && entry["event"].as<std::string>() == "end")
      add("dropped_records", "Records dropped", entry["dropped_records"].as<std::string>("0"), true);
  // What plugins noted at start (e.g. the sync threshold they settled on).
  size_t notes = 0;
  for (const YAML::Node& entry : e.log())
    if (entry["event"] && entry["event"].as<std::string>() == "note")
      add("note" + std::to_string(++notes), "Note", entry["text"].as<std::string>(""));
  for (size_t i = 0; i < e.warnings().size(); ++i) add("warning" + std::to_string(i + 1), "Warning", e.warnings()[i]);
  return fields;
}

}  // namespace

std::string header_view(const std::vector<std::unique_ptr<Experiment>>& experiments, OutputFormat format) {
  std::ostringstream out;
  if (format == OutputFormat::Json) out << "{\"view\": \"header\", \"experiments\": [";
  if (format == OutputFormat::Csv) out << "experiment,key,value\n";
  for (size_t i = 0; i < experiments.size(); ++i) {
    const auto fields = fields_of(*experiments[i]);
    if (format == OutputFormat::Json) {
      out << (i ? ", " : "") << "{";
      for (size_t f = 0; f < fields.size(); ++f)
        out << (f ? ", " : "") << json_string(fields[f].key) << ": "
            << (fields[f].is_number && fields[f].value != "?" ? fields[f].value : json_string(fields[f].value));
      out << "}";
    } else if (format == OutputFormat::Csv) {
      for (const Field& f : fields) out << json_string(experiments[i]->path().string()) << "," << f.key << "," << json_string(f.value) << "\n";
    } else {
      out << "Experiment header\n";
      for (const Field& f : fields) out << "  " << f.label << ": " << f.value << "\n";
      out << "\n";
    }
  }
  if (format == OutputFormat::Json) out << "]}\n";
  return out.str();
}

}  // namespace lumen::analysis
