// storage/engine/engine_test_util.h
//
// Table-definition shorthands shared by the engine's tests.
#pragma once

#include <string>
#include <vector>

#include "storage/catalog/table_def.h"

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

}  // namespace sluice::storage::test
