// docs/check-rules.md is the manual of `check`'s rules: every rule the
// library runs (check::rules(), what --list-rules prints) has its row there,
// the page names no rule the library lacks, and the page gives each rule the
// severity of the library's table (RuleInfo::severity).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "check/checker.h"
#include "ptxdwarf/check/check.h"
#include "tools.h"

using namespace ptxdwarf;
namespace fs = std::filesystem;

namespace {

std::string rulesPage() {
  std::optional<std::string> text =
      testsupport::readFile((fs::path(PTXDWARF_FIXTURES).parent_path() / "docs" / "check-rules.md").string());
  return text.value_or("");
}

// The rule table's rows: "| `id` | severity | ...".
std::map<std::string, std::string> documentedRules(const std::string& page) {
  std::map<std::string, std::string> rows;
  static const std::regex row(R"(^\| `([a-z0-9-]+)` \| (error|warning|note) \|)");
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) rows[m[1]] = m[2];
  }
  return rows;
}

}  // namespace

TEST(RuleDocs, EveryRuleHasARowAndEveryRowARule) {
  const std::string page = rulesPage();
  ASSERT_FALSE(page.empty()) << "docs/check-rules.md is missing";
  std::map<std::string, std::string> rows = documentedRules(page);
  std::set<std::string> ids;
  for (const check::RuleInfo& r : check::rules()) {
    const std::string id(r.id);
    ids.insert(id);
    auto row = rows.find(id);
    if (row == rows.end()) {
      ADD_FAILURE() << "docs/check-rules.md has no row for rule " << id;
      continue;
    }
    EXPECT_EQ(row->second, severityName(r.severity)) << id;
  }
  for (const auto& [id, severity] : rows) EXPECT_TRUE(ids.contains(id)) << "docs name a rule the library lacks: " << id;
}

// Every rule's pass runs once in check::run, and every pass reports a rule.
TEST(RuleTable, EveryRulesPassRunsOnceAndEveryPassReportsARule) {
  EXPECT_TRUE(ptxdwarf::check::passTableIsConsistent());
}
