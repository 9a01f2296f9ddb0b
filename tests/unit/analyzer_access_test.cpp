// The analyzer's access guard: which requests it lets through, and why it
// refuses the others.
#include <gtest/gtest.h>

#include <set>

#include "access_guard.h"

namespace lumen::analyzer {
namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

RequestFacts request(const std::string& host = "127.0.0.1:8080") {
  RequestFacts facts;
  facts.method = "GET";
  facts.host = host;
  facts.query_token = kToken;
  return facts;
}

TEST(AnalyzerAccess, TokensAreThirtyTwoHexDigitsAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 8; ++i) {
    const std::string token = random_token();
    EXPECT_EQ(token.size(), 32u);
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
    seen.insert(token);
  }
  EXPECT_EQ(seen.size(), 8u);
}

TEST(AnalyzerAccess, TheTokenComesInTheQueryTheHeaderOrTheCookieOfThisPort) {
  const AccessGuard guard(kToken, "127.0.0.1", 8080);
  EXPECT_EQ(guard.refusal(request()), std::nullopt);
  RequestFacts none = request();
  none.query_token.clear();
  EXPECT_NE(guard.refusal(none), std::nullopt);
  RequestFacts header = none;
  header.header_token = kToken;
  EXPECT_EQ(guard.refusal(header), std::nullopt);
  RequestFacts cookie = none;
  cookie.cookie = "theme=dark; lumen_analyzer_8080=" + kToken + "; other=1";
  EXPECT_EQ(guard.refusal(cookie), std::nullopt);
  for (const std::string& wrong :
       {"lumen_analyzer_8081=" + kToken, "xlumen_analyzer_8080=" + kToken, "lumen_analyzer_8080=" + kToken + "0",
        "lumen_analyzer_8080=" + kToken.substr(1), std::string("lumen_analyzer_8080=")}) {
    cookie.cookie = wrong;
    EXPECT_NE(guard.refusal(cookie), std::nullopt) << wrong;
  }
  RequestFacts prefix = none;
  prefix.query_token = kToken.substr(0, 31);
  EXPECT_NE(guard.refusal(prefix), std::nullopt);
}

TEST(AnalyzerAccess, OnlyTheServersOwnHostAndPort) {
  const AccessGuard loopback(kToken, "127.0.0.1", 8080);
  EXPECT_EQ(loopback.refusal(request("localhost:8080")), std::nullopt);
  for (const char* host : {"127.0.0.1", "127.0.0.1:8081", "attacker.example:8080", "localhost", "", "127.0.0.1:8080 "})
    EXPECT_NE(loopback.refusal(request(host)), std::nullopt) << host;
  const AccessGuard ipv6(kToken, "[::1]", 8080);
  EXPECT_EQ(ipv6.refusal(request("[::1]:8080")), std::nullopt);
  EXPECT_EQ(ipv6.refusal(request("localhost:8080")), std::nullopt);
  const AccessGuard lan(kToken, "192.0.2.7", 8080);
  EXPECT_EQ(lan.refusal(request("192.0.2.7:8080")), std::nullopt);
  EXPECT_NE(lan.refusal(request("localhost:8080")), std::nullopt);
}

TEST(AnalyzerAccess, AnOriginIsTheServersOwnPageOrRefused) {
  const AccessGuard guard(kToken, "127.0.0.1", 8080);
  RequestFacts facts = request();
  facts.has_origin = true;
  for (const char* own : {"http://127.0.0.1:8080", "http://localhost:8080"}) {
    facts.origin = own;
    EXPECT_EQ(guard.refusal(facts), std::nullopt) << own;
  }
  for (const char* foreign : {"null", "", "https://127.0.0.1:8080", "http://127.0.0.1:8080.attacker.example",
                              "http://attacker.example", "http://127.0.0.1:8081"}) {
    facts.origin = foreign;
    EXPECT_NE(guard.refusal(facts), std::nullopt) << foreign;
  }
}

TEST(AnalyzerAccess, OnlyReading) {
  const AccessGuard guard(kToken, "127.0.0.1", 8080);
  RequestFacts facts = request();
  facts.method = "HEAD";
  EXPECT_EQ(guard.refusal(facts), std::nullopt);
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    facts.method = method;
    EXPECT_NE(guard.refusal(facts), std::nullopt) << method;
  }
}

TEST(AnalyzerAccess, TheCookieIsThisPortsAndOutOfScriptsReach) {
  const AccessGuard guard(kToken, "127.0.0.1", 8080);
  EXPECT_EQ(guard.cookie_header(), "lumen_analyzer_8080=" + kToken + "; Path=/; HttpOnly; SameSite=Strict");
  EXPECT_TRUE(guard.token_in_query(request()));
  RequestFacts header = request();
  header.query_token.clear();
  header.header_token = kToken;
  EXPECT_FALSE(guard.token_in_query(header));
}

}  // namespace
}  // namespace lumen::analyzer
