// storage/engine/engine_test_util.h
//
// Table-definition and lookup shorthands shared by the engine's tests.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cstdint>

#include "storage/catalog/table_def.h"
#include "storage/engine/engine.h"

namespace sluice::storage::test {

inline ColumnDef Col(std::string name, ColumnType type, bool nullable = true) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.nullable = nullable;
  return c;
}

inline IndexDef Idx(std::string name, std::vector<std::string> cols, bool primary) {
  IndexDef i;
  i.name = std::move(name);
  i.kind = primary ? IndexKind::kClustered : IndexKind::kSecondary;
  for (auto& c : cols) i.parts.push_back(KeyPart{c, 0, 0, false});
  return i;
}

// The ids (column 0) of the rows IndexLookup returns, in clustered order.
inline std::vector<int64_t> LookupIds(Engine& e, EngineTrx& trx, uint64_t table, std::string_view index,
                                      Row key) {
  std::vector<int64_t> ids;
  Status s = e.IndexLookup(trx, table, index, key, [&](const Row& row) {
    ids.push_back(std::get<int64_t>(row[0]));
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return ids;
}

}  // namespace sluice::storage::test
