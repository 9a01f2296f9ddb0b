// The three output formats of document.h, one file each (text_render.cpp,
// csv_render.cpp, json_render.cpp). Internal to the render library.
#pragma once

#include <string>

#include "document.h"

namespace lumen::analysis {

std::string text_document(const Document& document);
std::string text_table(const ViewTable& table);

std::string csv_document(const Document& document);
// With `table_title`, every line starts with it in a "table" column.
std::string csv_table(const ViewTable& table, const std::string* table_title);

std::string json_document(const Document& document);
std::string json_view_table(const ViewTable& table);

// A record field's value as text shows it, and as CSV and JSON carry it.
std::string field_text(const RecordField& field);
std::string field_data(const RecordField& field);

}  // namespace lumen::analysis
