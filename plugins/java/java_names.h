// JVM type signatures as Java source spells them: "Ljava/lang/String;" is
// java.lang.String, "(I[J)V" is (int, long[]).
#pragma once

#include <string>

namespace lumen::java {

// "Ljava/util/Map$Entry;" -> "java.util.Map$Entry"; "[I" -> "int[]".
std::string java_type_name(const std::string& signature);

// "(I[Ljava/lang/String;)V" -> "(int, java.lang.String[])". A malformed
// signature is returned as it is.
std::string java_parameter_list(const std::string& method_signature);

}  // namespace lumen::java
