// The three output formats of document.h, one file each (text_render.cpp,
// csv_render.cpp, json_render.cpp). Internal to the render library.
#pragma once

#include <string>

#include "document.h"

namespace lumen::analysis {

std::string text_document(const Document& document);
std::string text_table(const ViewTable& table);

// With `data` (a section's plugin), every line starts with it in a "data" column.
std::string csv_document(const Document& document, const std::string* data = nullptr);
// With `table_title`, every line starts with it in a "table" column; with
// `data` (a section's plugin), before that in a "data" column.
std::string csv_table(const ViewTable& table, const std::string* table_title, const std::string* data = nullptr);

std::string json_document(const Document& document);
std::string json_sections(const std::string& view, const std::vector<DocumentSection>& sections);
std::string json_view_table(const ViewTable& table);

// A record field's value as text shows it, and as CSV and JSON carry it.
std::string field_text(const RecordField& field);
std::string field_data(const RecordField& field);

}  // namespace lumen::analysis
