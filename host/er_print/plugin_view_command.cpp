#include "plugin_view_command.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "plugin_view.h"

namespace lumen::er_print {

using namespace analysis;

namespace {

// A plugin defining the view, as its manifest describes it.
struct Definer {
  std::string plugin;
  std::string data_file;
  std::string help;
};

bool holds_data(Session& s, const std::string& plugin) {
  for (const auto& experiment : s.experiments())
    for (const DataFile& file : experiment->data_files())
      if (file.plugin == plugin) return true;
  return false;
}

// A plugin's view of experiments that hold none of its data shows nothing:
// say why rather than print empty figures as if they were measured.
void warn_without_data(const std::string& command, const std::vector<Definer>& definers) {
  std::cerr << "er_print: -" << command << ": no experiment open recorded " << definers.front().plugin << " data";
  for (size_t i = 1; i < definers.size(); ++i) std::cerr << (i == 1 ? " (nor " : " nor ") << definers[i].plugin;
  std::cerr << (definers.size() > 1 ? " data)" : "") << ", so the view is empty\n";
}

// The open experiments whose data file of one of `definers` is gone: their
// view would show zeros that were never measured.
std::vector<std::string> missing_data_of(Session& s, const std::vector<Definer>& definers) {
  std::vector<std::string> missing;
  for (const auto& experiment : s.experiments())
    for (const std::string& plugin : experiment->missing_data())
      for (const Definer& definer : definers)
        if (definer.plugin == plugin)
          missing.push_back(definer.data_file + " of " + experiment->path().string() + " is missing, so there is no " +
                            plugin + " data");
  return missing;
}

Document run_view(Session& s, const std::string& plugin, const std::string& command,
                  const RowPassing* passing = nullptr) {
  // The description may come from a manifest: the half is loaded now.
  const lumen_view_def* loaded = s.plugins().loaded_view(plugin, command);
  if (loaded == nullptr || loaded->run == nullptr) throw CommandError("plugin '" + plugin + "' has no view -" + command);
  return run_plugin_view(*loaded, plugin, s.experiments(), s.structure(), s.plugin_row_limit(), s.record_filter(),
                         {s.decoded_profile(), &s.registry(), s.plugin_readings()}, passing);
}

// Rows a table of a view's text holds; LUMEN_ER_PRINT_ROWS_HELD sets another
// count (tests write short tables as long ones are).
size_t rows_held() {
  if (const char* value = std::getenv("LUMEN_ER_PRINT_ROWS_HELD")) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(value, &end, 10);
    if (end != value && *end == '\0') return static_cast<size_t>(n);
  }
  return 65536;
}

// A view run with rows_held() rows a table held: emitted whole when no
// table had more (true); else its tables' titles and columns (their rows
// let go) are moved to `tables`, for a second run to write its rows.
bool emitted_as_held(Session& s, Document& document, OutputFormat format, std::vector<ViewTable>& tables) {
  if (std::none_of(document.tables.begin(), document.tables.end(), [](const ViewTable& t) { return t.rows_passed; })) {
    s.emit(render(document, format));
    return true;
  }
  tables = std::move(document.tables);
  for (ViewTable& table : tables) std::vector<ViewRow>().swap(table.rows);
  document.tables.clear();
  return false;
}

// A view's text. Its rows are measured as they come, and a table holds its
// first rows_held(); when one had more (every call of a long MPI trace),
// the view runs again and each row is written as it comes, in columns as
// wide as measured: the same text as held rows give, in memory bounded by
// what the view itself keeps, not by its rows.
void emit_text(Session& s, const std::string& plugin, const std::string& command) {
  std::vector<std::vector<size_t>> widths;
  const RowPassing measuring{rows_held(), [&widths](size_t table, const ViewTable& columns, const ViewRow& row) {
                               if (widths.size() <= table) widths.resize(table + 1);
                               if (widths[table].empty()) widths[table] = text_widths(columns);
                               widen_text_widths(widths[table], columns, row);
                             }};
  Document document = run_view(s, plugin, command, &measuring);
  std::vector<ViewTable> tables;
  if (emitted_as_held(s, document, OutputFormat::Text, tables)) return;
  widths.resize(tables.size());
  std::string text = render(document, OutputFormat::Text);
  bool written = !text.empty();
  size_t heads = 0;  // tables whose head is written
  auto heads_until = [&](size_t end) {
    for (; heads < end && heads < tables.size(); ++heads) {
      if (written) text += '\n';
      written = true;
      if (widths[heads].empty()) widths[heads] = text_widths(tables[heads]);
      text += text_table_head(tables[heads], widths[heads]);
    }
  };
  constexpr size_t kChunk = 1 << 16;
  const RowPassing writing{0, [&](size_t table, const ViewTable& columns, const ViewRow& row) {
                             if (table >= tables.size()) throw std::runtime_error("-" + command + " gave another table");
                             heads_until(table + 1);
                             append_text_table_row(text, columns, widths[table], row);
                             if (text.size() >= kChunk) s.emit(text), text.clear();
                           }};
  run_view(s, plugin, command, &writing);
  heads_until(tables.size());
  s.emit(text);
}

// A view's CSV, held as its text is: past rows_held() rows in a table, the
// view runs again and each row's lines are written as they come, a header
// line where render writes one (a table's, unless the table before had the
// same): the same bytes as held rows give.
void emit_csv(Session& s, const std::string& plugin, const std::string& command) {
  const RowPassing holding{rows_held(), [](size_t, const ViewTable&, const ViewRow&) {}};
  Document document = run_view(s, plugin, command, &holding);
  std::vector<ViewTable> tables;
  if (emitted_as_held(s, document, OutputFormat::Csv, tables)) return;
  std::string text = render(document, OutputFormat::Csv);  // its record lists
  std::string last_header;
  size_t heads = 0;  // tables whose header is settled
  auto head = [&](size_t table, const ViewRow* first_row) {
    std::string header = csv_table_head(tables[table], first_row);
    if (header != last_header) text += header;
    last_header = std::move(header);
  };
  auto rowless_until = [&](size_t end) {
    for (; heads < end && heads < tables.size(); ++heads) head(heads, nullptr);
  };
  constexpr size_t kChunk = 1 << 16;
  const RowPassing writing{0, [&](size_t table, const ViewTable& columns, const ViewRow& row) {
                             if (table >= tables.size()) throw std::runtime_error("-" + command + " gave another table");
                             if (table >= heads) {
                               rowless_until(table);
                               head(table, &row);
                               heads = table + 1;
                             }
                             append_csv_table_row(text, columns, row);
                             if (text.size() >= kChunk) s.emit(text), text.clear();
                           }};
  run_view(s, plugin, command, &writing);
  rowless_until(tables.size());
  s.emit(text);
}

void run_views(Session& s, const std::string& command, const std::vector<Definer>& definers) {
  require_experiments(s);
  std::vector<const Definer*> serving;
  for (const Definer& definer : definers)
    if (holds_data(s, definer.plugin)) serving.push_back(&definer);
  if (serving.empty()) {
    const std::vector<std::string> missing = missing_data_of(s, definers);
    for (const std::string& sentence : missing)
      std::cerr << "er_print: -" << command << ": " << sentence << "; nothing is shown\n";
    if (!missing.empty()) return;
    warn_without_data(command, definers);
    serving.push_back(&definers.front());
  }
  for (const std::string& note : s.record_view_notes(command)) std::cerr << "er_print: " << note << "\n";
  if (serving.size() == 1 && s.format() == OutputFormat::Text) {
    emit_text(s, serving.front()->plugin, command);
    return;
  }
  if (serving.size() == 1 && s.format() == OutputFormat::Csv) {
    emit_csv(s, serving.front()->plugin, command);
    return;
  }
  if (serving.size() == 1) {
    s.emit(render(run_view(s, serving.front()->plugin, command), s.format()));
    return;
  }
  std::vector<DocumentSection> sections;
  for (const Definer* definer : serving) {
    sections.push_back({definer->plugin, run_view(s, definer->plugin, command)});
    sections.back().document.title =
        "-" + command + " of " + definer->plugin + " data (" + definer->data_file + "): " + definer->help;
  }
  s.emit(render(command, sections, s.format()));
}

}  // namespace

std::optional<Command> plugin_view_command(const std::string& name, const AnalysisPlugins& plugins) {
  std::vector<Definer> definers;
  std::string help;
  for (const auto& [plugin, half] : plugins.all())
    for (size_t i = 0; i < half->descriptor->view_count; ++i) {
      const lumen_view_def& view = half->descriptor->views[i];
      if (name != view.command) continue;
      definers.push_back({plugin, half->descriptor->data_file, view.help});
      help += (help.empty() ? "" : "; ") + std::string(view.help) + " [" + plugin + "]";
    }
  if (definers.empty()) return std::nullopt;
  if (definers.size() == 1) help = definers.front().help;
  return Command{name, 0, "", help,
                 [definers, name](Session& s, const std::vector<std::string>&) { run_views(s, name, definers); }};
}

}  // namespace lumen::er_print
