// Text from an experiment (a command line, a path, a symbol name) may hold
// control characters: written as they are, an escape sequence could set a
// terminal's title, clear its screen or write its clipboard (OSC 52). The
// host commands write every such character as a visible escape instead.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace lumen {

// `text` with each C0 control character except newline and tab, DEL, each
// C1 control character (UTF-8 U+0080..U+009F) and each byte that is not
// part of valid UTF-8 written as \xNN (C1: \u00NN); the rest as it is.
std::string printable_text(std::string_view text);

// The length of the valid UTF-8 sequence at text[at] (a byte of 0x80 or
// more), or 0 where none starts there.
size_t utf8_sequence_length(std::string_view text, size_t at);

// A stream buffer that writes what it is given to `sink` as printable_text
// does; a UTF-8 sequence split between writes is kept until it completes.
class PrintableTextBuffer : public std::streambuf {
 public:
  explicit PrintableTextBuffer(std::streambuf* sink) : sink_(sink) {}
  ~PrintableTextBuffer() override;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void put(unsigned char byte);
  void write_escaped_pending();
  void write(std::string_view text) { sink_->sputn(text.data(), static_cast<std::streamsize>(text.size())); }

  std::streambuf* sink_;
  unsigned char pending_[4] = {};
  int pending_size_ = 0;
  int expected_size_ = 0;
};

// Routes `stream` through a PrintableTextBuffer for the rest of the process
// (std::cout and std::cerr at a command's start; a file er_print writes).
void write_printable_text_only(std::ostream& stream);

}  // namespace lumen
