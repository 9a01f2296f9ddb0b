#include "document.h"

#include "format_renderers.h"

namespace lumen::analysis {

void Record::add(const std::string& key, const std::string& label, const std::string& text) {
  fields.push_back({key, label, text, "", false, false, 0, {}});
}

void Record::add_number(const std::string& key, const std::string& label, const std::string& text) {
  fields.push_back({key, label, text, "", true, false, 0, {}});
}

void Record::add_number(const std::string& key, const std::string& label, double value, Quantity quantity) {
  fields.push_back({key, label, "", "", true, true, value, quantity});
}

Document record_document(const std::string& view, const std::string& title, std::vector<Record> records) {
  RecordList list;
  list.records = std::move(records);
  Document document;
  document.view = view;
  document.title = title;
  document.lists.push_back(std::move(list));
  return document;
}

std::string render(const Document& document, OutputFormat format) {
  switch (format) {
    case OutputFormat::Text: return text_document(document);
    case OutputFormat::Csv: return csv_document(document);
    case OutputFormat::Json: return json_document(document);
  }
  return "";
}

std::string render(const std::string& view, const std::vector<DocumentSection>& sections, OutputFormat format) {
  switch (format) {
    case OutputFormat::Text: {
      std::string text;
      for (const DocumentSection& section : sections) text += (text.empty() ? "" : "\n") + text_document(section.document);
      return text;
    }
    case OutputFormat::Csv: {
      std::string text;
      for (const DocumentSection& section : sections) text += csv_document(section.document, &section.data);
      return text;
    }
    case OutputFormat::Json: return json_sections(view, sections);
  }
  return "";
}

std::string render(const ViewTable& table, OutputFormat format) {
  switch (format) {
    case OutputFormat::Text: return text_table(table);
    case OutputFormat::Csv: return csv_table(table, nullptr);
    case OutputFormat::Json: return json_view_table(table);
  }
  return "";
}

}  // namespace lumen::analysis

namespace lumen::analysis {

std::string field_text(const RecordField& field) {
  if (!field.text_form.empty()) return field.text_form;
  return field.has_quantity ? text_number(field.number, field.quantity) : field.text;
}

std::string field_data(const RecordField& field) {
  return field.has_quantity ? data_number(field.number, field.quantity) : field.text;
}

}  // namespace lumen::analysis
