// Text from an experiment reaches a terminal only as printable text: each
// control character (C0, DEL, C1) and each byte that is not UTF-8 becomes a
// visible escape, and everything else stays as it was.
#include <gtest/gtest.h>

#include <sstream>

#include "cell_text.h"
#include "terminal_text.h"

namespace lumen {
namespace {

TEST(PrintableText, EscapeSequencesBecomeVisible) {
  EXPECT_EQ(printable_text("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(printable_text("\x1b]52;c;cHduZWQ=\x1b\\"), "\\x1b]52;c;cHduZWQ=\\x1b\\");
  EXPECT_EQ(printable_text("a\rb\x7f"), "a\\x0db\\x7f");
  EXPECT_EQ(printable_text(std::string("nul\0here", 8)), "nul\\x00here");
}

TEST(PrintableText, NewlinesTabsAndUtf8StayAsTheyAre) {
  EXPECT_EQ(printable_text("line\n\tnext"), "line\n\tnext");
  EXPECT_EQ(printable_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
}

TEST(PrintableText, C1ControlsAndBytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(printable_text("\xc2\x9b" "2J"), "\\u009b2J");  // CSI as UTF-8
  EXPECT_EQ(printable_text("\x9b" "2J"), "\\x9b2J");        // CSI as one byte
  EXPECT_EQ(printable_text("\xc3"), "\\xc3");                // cut short
  EXPECT_EQ(printable_text("\xe0\x80\x80"), "\\xe0\\x80\\x80");  // overlong
  EXPECT_EQ(printable_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

// Written through the buffer in pieces of any size, the text comes out as
// printable_text makes it of the whole.
TEST(PrintableTextBuffer, GivesWhatPrintableTextGivesWhateverThePieces) {
  const std::string text = "a\x1b[2J caf\xc3\xa9 \xe2\x82\xac\xc2\x9b\x9b\xc3 x \xf0\x9f\x94\xa5\x07\xe2\x82z";
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    std::ostringstream sink;
    {
      PrintableTextBuffer buffer(sink.rdbuf());
      std::ostream out(&buffer);
      for (size_t at = 0; at < text.size(); at += piece) out << text.substr(at, piece) << std::flush;
    }
    EXPECT_EQ(sink.str(), printable_text(text)) << "pieces of " << piece;
  }
}

// JSON keeps the characters by its own escapes, so a reader gets the
// experiment's text back; a byte that is not UTF-8 cannot be in JSON.
TEST(JsonString, ControlCharactersUseJsonsEscapes) {
  EXPECT_EQ(analysis::json_string("\x1b]0;t\x07"), "\"\\u001b]0;t\\u0007\"");
  EXPECT_EQ(analysis::json_string("\x7f\xc2\x9b"), "\"\\u007f\\u009b\"");
  EXPECT_EQ(analysis::json_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(analysis::json_string("\xff"), "\"\\\\xff\"");
}

}  // namespace
}  // namespace lumen
