// A method record as er_print's code description: the .java file under its
// package's directories, and the line table at the method's frame words.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../analysis/java_method_code.h"
#include "../java_record.h"

namespace lumen::java {
namespace {

TEST(JavaMethodCode, SourceFileLiesUnderThePackageDirectories) {
  EXPECT_EQ(java_source_path("com.acme.App", "App.java"), "com/acme/App.java");
  EXPECT_EQ(java_source_path("com.acme.App$Inner", "App.java"), "com/acme/App.java");
  EXPECT_EQ(java_source_path("JavaHotMethods", "JavaHotMethods.java"), "JavaHotMethods.java");
  EXPECT_EQ(java_source_path("java.lang.invoke.LambdaForm$MH/0x0000000800c0d000", "LambdaForm$MH"),
            "java/lang/invoke/LambdaForm$MH");
  EXPECT_EQ(java_source_path("com.acme.App", ""), "");
}

TEST(JavaMethodCode, ASourceFileAttributeNamingDirectoriesIsNotFollowed) {
  EXPECT_EQ(java_source_path("com.acme.App", "../../../etc/passwd"), "");
  EXPECT_EQ(java_source_path("com.acme.App", "/etc/passwd"), "");
  EXPECT_EQ(java_source_path("com.acme.App", ".."), "");
}

struct Described {
  uint64_t start = 0, end = 0;
  std::string file;
  std::vector<lumen_code_line> lines;
  int exact = 0;
};

void keep(void* context, const lumen_code_description* code) {
  auto* d = static_cast<Described*>(context);
  d->start = code->start;
  d->end = code->end;
  d->file = code->source_file ? code->source_file : "";
  d->lines.assign(code->lines, code->lines + code->line_count);
  d->exact = code->exact_call_sites;
}

TEST(JavaMethodCode, LineTableIsPlacedAtTheMethodsFrameWords) {
  const std::string klass = "com.acme.App", name = "run(int)", source = "App.java";
  // Out of bytecode order, as JVMTI does not promise it.
  const std::vector<LineEntry> table{{9, 13}, {0, 12}, {20, 15}};
  JavaMethod method{};
  method.frame_base = method_base(0x7f0012345678);
  method.class_bytes = uint16_t(klass.size());
  method.name_bytes = uint16_t(name.size());
  method.source_bytes = uint16_t(source.size());
  method.line_count = uint16_t(table.size());
  std::vector<char> record(sizeof method);
  std::memcpy(record.data(), &method, sizeof method);
  for (const std::string* text : {&klass, &name, &source}) record.insert(record.end(), text->begin(), text->end());
  const char* entries = reinterpret_cast<const char*>(table.data());
  record.insert(record.end(), entries, entries + table.size() * sizeof(LineEntry));
  Described described;
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  sink.context = &described;
  sink.describe_code = keep;
  describe_method_code(record.data(), record.size(), &sink);
  EXPECT_EQ(described.start, method.frame_base);
  EXPECT_EQ(described.end, method.frame_base + kMethodSpan);
  EXPECT_EQ(described.file, "com/acme/App.java");
  EXPECT_EQ(described.exact, 1);
  ASSERT_EQ(described.lines.size(), 3u);
  // A frame of bytecode index 9 is the word java_frame gives it.
  EXPECT_EQ(described.lines[0].address, java_frame(0x7f0012345678, 0));
  EXPECT_EQ(described.lines[0].line, 12);
  EXPECT_EQ(described.lines[1].address, java_frame(0x7f0012345678, 9));
  EXPECT_EQ(described.lines[1].line, 13);
  EXPECT_EQ(described.lines[2].line, 15);
}

}  // namespace
}  // namespace lumen::java
