// sql/collation.h
//
// The SQL layer's names for the string collations, which live in
// base/collation.h (the storage engine's index keys use them too).
#pragma once

#include "base/collation.h"

namespace sluice::sql {

using base::CharsEqual;
using base::Coercibility;
using base::Collation;
using base::CollationFromName;
using base::CollationName;
using base::AsciiOrderPrefix;
using base::CompareAscii;
using base::CompareStrings;
using base::HasAsciiOrder;
using base::IsAscii;
using base::IsCaseSensitive;
using base::kDefaultCollation;
using base::AppendSortKey;
using base::SortKey;
using base::Utf8ToLower;
using base::Utf8ToUpper;

}  // namespace sluice::sql
