#include "acl/account.h"

#include <algorithm>

namespace sluice::acl {
namespace {

std::string QuoteWith(std::string_view s, char q) {
  std::string out;
  out.reserve(s.size() + 2);
  out += q;
  for (char c : s) {
    if (c == q) out += q;  // doubled, as MySQL quotes identifiers and strings
    out += c;
  }
  out += q;
  return out;
}

}  // namespace

std::string AccountName::Quoted() const {
  // MySQL's error texts print the raw name between single quotes.
  return "'" + user + "'@'" + host + "'";
}

std::string AccountName::BackQuoted() const {
  return QuoteWith(user, '`') + "@" + QuoteWith(host, '`');
}

const DbGrant* Account::FindDbGrant(std::string_view db) const {
  auto it = std::lower_bound(db_grants.begin(), db_grants.end(), db,
                             [](const DbGrant& g, std::string_view d) { return g.db < d; });
  return (it != db_grants.end() && it->db == db) ? &*it : nullptr;
}

const DynamicGrant* Account::FindDynamic(std::string_view name) const {
  auto it = std::lower_bound(dynamic_privs.begin(), dynamic_privs.end(), name,
                             [](const DynamicGrant& g, std::string_view n) { return g.name < n; });
  return (it != dynamic_privs.end() && it->name == name) ? &*it : nullptr;
}

bool Account::HasDb(std::string_view db, Priv p) const {
  if (global_privs.Has(p)) return true;
  const DbGrant* g = FindDbGrant(db);
  return g != nullptr && g->privs.Has(p);
}

bool Account::HasAnyDbAccess(std::string_view db) const {
  if (global_privs.Intersects(PrivSet::DbLevel()) || global_grant_option) return true;
  const DbGrant* g = FindDbGrant(db);
  return g != nullptr && (!g->privs.empty() || g->grant_option);
}

bool Account::HasDynamic(std::string_view name) const { return FindDynamic(name) != nullptr; }

bool Account::HasDynamicGrantOption(std::string_view name) const {
  const DynamicGrant* g = FindDynamic(name);
  return g != nullptr && g->grant_option;
}

bool Account::HasGrantOptionOn(std::string_view db) const {
  if (global_grant_option) return true;
  const DbGrant* g = FindDbGrant(db);
  return g != nullptr && g->grant_option;
}

}  // namespace sluice::acl
