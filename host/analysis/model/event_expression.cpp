#include "event_expression.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

namespace lumen::analysis {

struct EventExpression::Node {
  std::string op;  // "n": number, "t": token, "in": membership, "!", "~" (negate), else a binary operator
  int64_t number = 0;
  std::string token;
  std::shared_ptr<const Node> left, right;
  std::vector<int64_t> members;
};

namespace {

using NodePtr = std::shared_ptr<const EventExpression::Node>;
using Node = EventExpression::Node;

const char* const kTokens[] = {"THRID", "LWPID", "CPUID", "SAMPLE", "SAMPLE_MAP", "TSTAMP", "EXPID", "HOSTID", "PID"};

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse() {
    NodePtr node = disjunction();
    skip_space();
    if (at_ < text_.size()) fail("unexpected '" + text_.substr(at_, 1) + "'");
    return node;
  }
  bool uses_cpu = false;
  bool uses_time = false;

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError("expression '" + text_ + "': " + what + " (tokens THRID, LWPID, CPUID, SAMPLE_MAP, TSTAMP, "
                          "EXPID, HOSTID, PID; operators + - * / % == != < <= > >= && || ! IN and parentheses)");
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(const std::string& word) {
    skip_space();
    if (text_.compare(at_, word.size(), word) != 0) return false;
    // "<" is not the start of "<=", "=" never stands alone.
    if ((word == "<" || word == ">" || word == "!") && at_ + 1 < text_.size() && text_[at_ + 1] == '=') return false;
    at_ += word.size();
    return true;
  }
  static NodePtr make(const std::string& op, NodePtr left, NodePtr right) {
    auto node = std::make_shared<Node>();
    node->op = op;
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }
  NodePtr disjunction() {
    NodePtr node = conjunction();
    while (take("||")) node = make("||", node, conjunction());
    return node;
  }
  NodePtr conjunction() {
    NodePtr node = comparison();
    while (take("&&")) node = make("&&", node, comparison());
    return node;
  }
  NodePtr comparison() {
    NodePtr node = sum();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"})
      if (take(op)) return make(op, node, sum());
    skip_space();
    if (word_ahead() == "IN") {
      at_ += 2;
      if (!take("(")) fail("IN takes a list in parentheses");
      auto in = std::make_shared<Node>();
      in->op = "in";
      in->left = node;
      do {
        skip_space();
        const bool negative = take("-");
        in->members.push_back((negative ? -1 : 1) * number());
      } while (take(","));
      if (!take(")")) fail("a ')' is missing after the IN list");
      return in;
    }
    // A lone '=' would otherwise read as the end of a parenthesis or of the
    // expression, and be named as what is missing there.
    if (at_ < text_.size() && text_[at_] == '=') fail("'=' is not a comparison; equality is '=='");
    return node;
  }
  NodePtr sum() {
    NodePtr node = product();
    for (;;) {
      if (take("+")) node = make("+", node, product());
      else if (take("-")) node = make("-", node, product());
      else return node;
    }
  }
  NodePtr product() {
    NodePtr node = unary();
    for (;;) {
      if (take("*")) node = make("*", node, unary());
      else if (take("/")) node = make("/", node, unary());
      else if (take("%")) node = make("%", node, unary());
      else return node;
    }
  }
  NodePtr unary() {
    if (take("-")) return make("~", unary(), nullptr);
    if (take("!")) return make("!", unary(), nullptr);
    if (take("(")) {
      NodePtr node = disjunction();
      if (!take(")")) fail("a ')' is missing");
      return node;
    }
    skip_space();
    auto node = std::make_shared<Node>();
    if (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
      node->op = "n";
      node->number = number();
      return node;
    }
    const std::string word = word_ahead();
    if (word.empty()) fail(at_ < text_.size() ? "unexpected '" + text_.substr(at_, 1) + "'" : "it ends too soon");
    if (std::find(std::begin(kTokens), std::end(kTokens), word) == std::end(kTokens)) fail("unknown token " + word);
    at_ += word.size();
    node->op = "t";
    node->token = word;
    uses_cpu = uses_cpu || word == "CPUID";
    uses_time = uses_time || word == "TSTAMP";
    return node;
  }
  int64_t number() {
    const size_t start = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (at_ == start) fail("a number is missing");
    // Else "0.5" would stop at the '.', and be named as a missing ')'.
    if (at_ < text_.size() && (text_[at_] == '.' || std::isalpha(static_cast<unsigned char>(text_[at_])))) {
      size_t end = at_;
      while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '.')) ++end;
      fail("number " + text_.substr(start, end - start) +
           " is not a whole number: expressions take integers (TSTAMP is in nanoseconds)");
    }
    try {
      return std::stoll(text_.substr(start, at_ - start));
    } catch (const std::out_of_range&) {
      fail("number " + text_.substr(start, at_ - start) + " is too large");
    }
  }
  // The upper-cased word at the cursor (not consumed).
  std::string word_ahead() const {
    size_t end = at_;
    while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) ++end;
    std::string word = text_.substr(at_, end - at_);
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::toupper(c); });
    return word;
  }

  const std::string& text_;
  size_t at_ = 0;
};

int64_t evaluate_node(const Node& n, const EventTokens& t) {
  const std::string& op = n.op;
  if (op == "n") return n.number;
  if (op == "t") {
    if (n.token == "THRID" || n.token == "LWPID") return t.thread;
    if (n.token == "CPUID") return t.cpu;
    if (n.token == "SAMPLE" || n.token == "SAMPLE_MAP") return t.sample;
    if (n.token == "TSTAMP") return t.timestamp;
    if (n.token == "HOSTID") return t.host;
    if (n.token == "PID") return t.pid;
    return t.experiment;
  }
  if (op == "~") return -evaluate_node(*n.left, t);
  if (op == "!") return evaluate_node(*n.left, t) == 0;
  if (op == "in") {
    const int64_t v = evaluate_node(*n.left, t);
    return std::find(n.members.begin(), n.members.end(), v) != n.members.end();
  }
  const int64_t a = evaluate_node(*n.left, t);
  if (op == "&&") return a != 0 && evaluate_node(*n.right, t) != 0;
  if (op == "||") return a != 0 || evaluate_node(*n.right, t) != 0;
  const int64_t b = evaluate_node(*n.right, t);
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/") return b == 0 ? 0 : a / b;
  if (op == "%") return b == 0 ? 0 : a % b;
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  return a >= b;
}

// A literal's value (a number, or one negated), if `n` is one.
std::optional<int64_t> literal(const Node& n) {
  if (n.op == "n") return n.number;
  if (n.op == "~" && n.left->op == "n") return -n.left->number;
  return std::nullopt;
}

bool is_timestamp(const Node& n) { return n.op == "t" && n.token == "TSTAMP"; }

// The comparison `op` seen from its right-hand side: "a < b" is "b > a".
std::string mirrored(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

TimestampBounds bounds_of(const Node& n) {
  TimestampBounds b;
  if (n.op == "&&" || n.op == "||") {
    const TimestampBounds l = bounds_of(*n.left), r = bounds_of(*n.right);
    const bool both = n.op == "&&";
    auto pick = [both](std::optional<int64_t> x, std::optional<int64_t> y, bool lower) -> std::optional<int64_t> {
      if (both) return x && y ? (lower ? std::max(*x, *y) : std::min(*x, *y)) : x ? x : y;
      return x && y ? std::optional<int64_t>(lower ? std::min(*x, *y) : std::max(*x, *y)) : std::nullopt;
    };
    return {pick(l.from_ns, r.from_ns, true), pick(l.to_ns, r.to_ns, false)};
  }
  if (n.op == "in" && is_timestamp(*n.left) && !n.members.empty())
    return {*std::min_element(n.members.begin(), n.members.end()),
            *std::max_element(n.members.begin(), n.members.end())};
  if (n.left == nullptr || n.right == nullptr) return b;
  std::string op = n.op;
  std::optional<int64_t> value;
  if (is_timestamp(*n.left)) {
    value = literal(*n.right);
  } else if (is_timestamp(*n.right)) {
    value = literal(*n.left);
    op = mirrored(op);
  }
  if (!value) return b;
  if (op == "==" || op == ">=") b.from_ns = *value;
  if (op == "==" || op == "<=") b.to_ns = *value;
  if (op == ">" && *value < INT64_MAX) b.from_ns = *value + 1;
  if (op == "<" && *value > INT64_MIN) b.to_ns = *value - 1;
  return b;
}

}  // namespace

TimestampBounds EventExpression::timestamp_bounds() const { return bounds_of(*root_); }

EventExpression EventExpression::parse(const std::string& text) {
  EventExpression expression;
  expression.text_ = text;
  Parser parser(text);
  expression.root_ = parser.parse();
  expression.uses_cpu_ = parser.uses_cpu;
  expression.uses_time_ = parser.uses_time;
  return expression;
}

int64_t EventExpression::evaluate(const EventTokens& tokens) const { return evaluate_node(*root_, tokens); }

}  // namespace lumen::analysis
