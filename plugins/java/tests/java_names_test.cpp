#include "../java_names.h"

#include <gtest/gtest.h>

#include "../java_record.h"

using namespace lumen::java;

TEST(JavaNames, TypeSignaturesReadAsJavaSpellsThem) {
  EXPECT_EQ(java_type_name("Ljava/lang/String;"), "java.lang.String");
  EXPECT_EQ(java_type_name("Ljava/util/Map$Entry;"), "java.util.Map$Entry");
  EXPECT_EQ(java_type_name("[[I"), "int[][]");
  EXPECT_EQ(java_type_name("Lbroken"), "Lbroken");
}

TEST(JavaNames, ParameterListsOfMethodSignatures) {
  EXPECT_EQ(java_parameter_list("()V"), "()");
  EXPECT_EQ(java_parameter_list("(IJ)J"), "(int, long)");
  EXPECT_EQ(java_parameter_list("([Ljava/lang/String;Z)V"), "(java.lang.String[], boolean)");
  EXPECT_EQ(java_parameter_list("(Q)V"), "(Q)V");
  EXPECT_EQ(java_parameter_list("(I"), "(I");
}

TEST(JavaFrames, MethodAndBytecodeIndexRoundTripInsideTheMethodsRange) {
  const uint64_t method = 0x7f12'3456'7898;
  ASSERT_TRUE(method_encodable(method));
  EXPECT_FALSE(method_encodable(method + 4));
  for (int32_t bci : {-3, 0, 17, 65535}) {
    const uint64_t frame = java_frame(method, bci);
    EXPECT_TRUE(is_java_frame(frame));
    EXPECT_EQ(frame_bci(frame), bci);
    // A caller's frame is read as a return address (one less): still the method's.
    EXPECT_GE(frame - 1, method_base(method));
    EXPECT_LT(frame, method_base(method) + kMethodSpan);
  }
  EXPECT_NE(method_base(method), kJvmSystemBase);
  EXPECT_NE(method_base(method), kNoJavaStackBase);
}
