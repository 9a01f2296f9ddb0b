#include "terminal_text.h"

#include <cstdio>

namespace lumen {

namespace {

std::string escaped_byte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02x", byte);
  return text;
}

// How many bytes a sequence starting with `lead` has (0: never a lead).
int utf8_length(unsigned char lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

// Whether `byte` may follow the bytes already in a sequence: overlong
// forms, surrogates and code points past U+10FFFF are not UTF-8.
bool continues(const unsigned char* sequence, int size, unsigned char byte) {
  if ((byte & 0xc0) != 0x80) return false;
  if (size != 1) return true;
  switch (sequence[0]) {
    case 0xe0: return byte >= 0xa0;
    case 0xed: return byte < 0xa0;
    case 0xf0: return byte >= 0x90;
    case 0xf4: return byte < 0x90;
    default: return true;
  }
}

bool control(unsigned char byte) { return (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f; }

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t at) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data() + at);
  const int length = utf8_length(bytes[0]);
  if (length == 0 || at + static_cast<size_t>(length) > text.size()) return 0;
  for (int size = 1; size < length; ++size)
    if (!continues(bytes, size, bytes[size])) return 0;
  return static_cast<size_t>(length);
}

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const size_t length = byte < 0x80 ? 1 : utf8_sequence_length(text, i);
    if (byte < 0x80 ? control(byte) : length == 0) {
      out += escaped_byte(byte);
      ++i;
    } else if (byte == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      char c1[8];
      std::snprintf(c1, sizeof c1, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      out += c1;
      i += 2;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

PrintableTextBuffer::~PrintableTextBuffer() {
  write_escaped_pending();
  sink_->pubsync();
}

PrintableTextBuffer::int_type PrintableTextBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  put(static_cast<unsigned char>(traits_type::to_char_type(c)));
  return c;
}

std::streamsize PrintableTextBuffer::xsputn(const char* s, std::streamsize n) {
  // Runs of printable ASCII go to the sink whole: a byte at a time, a
  // report of millions of lines spent a third of its time in putc.
  for (std::streamsize i = 0; i < n;) {
    std::streamsize run = i;
    if (pending_size_ == 0)
      while (run < n && static_cast<unsigned char>(s[run]) < 0x80 && !control(static_cast<unsigned char>(s[run]))) ++run;
    if (run > i) {
      sink_->sputn(s + i, run - i);
      i = run;
    } else {
      put(static_cast<unsigned char>(s[i++]));
    }
  }
  return n;
}

int PrintableTextBuffer::sync() { return sink_->pubsync(); }

void PrintableTextBuffer::write_escaped_pending() {
  // An incomplete sequence: its lead is not UTF-8 here, what followed is
  // looked at again on its own.
  if (pending_size_ == 0) return;
  const int size = pending_size_;
  unsigned char rest[4];
  for (int i = 1; i < size; ++i) rest[i] = pending_[i];
  pending_size_ = expected_size_ = 0;
  write(escaped_byte(pending_[0]));
  for (int i = 1; i < size; ++i) put(rest[i]);
}

void PrintableTextBuffer::put(unsigned char byte) {
  if (pending_size_ > 0) {
    if (!continues(pending_, pending_size_, byte)) {
      write_escaped_pending();
      put(byte);
      return;
    }
    pending_[pending_size_++] = byte;
    if (pending_size_ < expected_size_) return;
    write(printable_text(std::string_view(reinterpret_cast<const char*>(pending_), pending_size_)));
    pending_size_ = expected_size_ = 0;
    return;
  }
  if (byte < 0x80) {
    if (control(byte)) write(escaped_byte(byte));
    else sink_->sputc(static_cast<char>(byte));
    return;
  }
  expected_size_ = utf8_length(byte);
  if (expected_size_ == 0) {
    write(escaped_byte(byte));
    return;
  }
  pending_[0] = byte;
  pending_size_ = 1;
}

void write_printable_text_only(std::ostream& stream) {
  // Never freed: std::cout is flushed after static objects are destroyed.
  stream.rdbuf(new PrintableTextBuffer(stream.rdbuf()));
}

}  // namespace lumen
