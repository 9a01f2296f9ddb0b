// Code a decoder described (lumen_code_description): found by address, its
// line by the last entry at or before the address, damaged descriptions
// refused.
#include <gtest/gtest.h>

#include "described_code.h"

namespace lumen::analysis {
namespace {

lumen_code_description description(uint64_t start, uint64_t end, const char* file,
                                   const std::vector<lumen_code_line>& lines) {
  lumen_code_description code{};
  code.size = sizeof code;
  code.start = start;
  code.end = end;
  code.source_file = file;
  code.lines = lines.data();
  code.line_count = lines.size();
  return code;
}

TEST(DescribedCode, AddressesFindTheirCodeAndLine) {
  const std::vector<lumen_code_line> lines{{0x1004, 10, 0}, {0x1010, 11, 0}, {0x1020, 0, 0}};
  DescribedCodeTable table;
  table.add(*DescribedCodeTable::copy_of(description(0x1000, 0x2000, "a/B.java", lines)));
  table.add(*DescribedCodeTable::copy_of(description(0x2000, 0x3000, nullptr, {})));
  ASSERT_NE(table.find(0x1010), nullptr);
  EXPECT_EQ(table.find(0x1010)->source_file, "a/B.java");
  EXPECT_EQ(table.find(0x2000)->source_file, "");
  EXPECT_EQ(table.find(0xfff), nullptr);
  EXPECT_EQ(table.find(0x3000), nullptr);
  const DescribedCode& code = *table.find(0x1000);
  EXPECT_EQ(code.line_at(0x1003), 0);  // before the first entry
  EXPECT_EQ(code.line_at(0x1004), 10);
  EXPECT_EQ(code.line_at(0x100f), 10);
  EXPECT_EQ(code.line_at(0x1010), 11);
  EXPECT_EQ(code.line_at(0x1025), 0);  // an entry of no line
}

TEST(DescribedCode, ALaterDescriptionOfTheSameCodeReplacesTheFirst) {
  DescribedCodeTable table;
  table.add(*DescribedCodeTable::copy_of(description(0x1000, 0x2000, "Old.java", {})));
  table.add(*DescribedCodeTable::copy_of(description(0x1000, 0x2000, "New.java", {})));
  EXPECT_EQ(table.find(0x1800)->source_file, "New.java");
}

TEST(DescribedCode, DamagedDescriptionsAreRefused) {
  EXPECT_FALSE(DescribedCodeTable::copy_of(description(0x2000, 0x1000, "A.java", {})));
  const std::vector<lumen_code_line> unordered{{0x1010, 11, 0}, {0x1004, 10, 0}};
  EXPECT_FALSE(DescribedCodeTable::copy_of(description(0x1000, 0x2000, "A.java", unordered)));
  lumen_code_description no_table = description(0x1000, 0x2000, "A.java", {});
  no_table.line_count = 3;
  EXPECT_FALSE(DescribedCodeTable::copy_of(no_table));
}

}  // namespace
}  // namespace lumen::analysis
