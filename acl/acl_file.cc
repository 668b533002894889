#include <algorithm>
#include <set>
#include <utility>

#include "acl.pb.h"  // generated from acl.proto
#include "acl/acl_file_internal.h"

namespace sluice::acl::internal {
namespace {

void AddPrivNames(PrivSet privs, google::protobuf::RepeatedPtrField<std::string>* out) {
  for (int i = 0; i < kNumStaticPrivs; ++i) {
    auto p = static_cast<Priv>(i);
    if (privs.Has(p)) out->Add(std::string(PrivName(p)));
  }
}

Result<PrivSet> PrivsFromNames(const google::protobuf::RepeatedPtrField<std::string>& names) {
  PrivSet privs;
  for (const std::string& n : names) {
    std::optional<Priv> p = StaticPrivFromName(n);
    if (!p) return Status::Corruption("acl.pb: unknown privilege '" + n + "'");
    privs |= PrivSet{*p};
  }
  return privs;
}

}  // namespace

std::string EncodeAccounts(const std::vector<AccountRef>& accounts) {
  pb::AclTable table;
  table.set_format_version(kAclFormatVersion);
  for (const AccountRef& a : accounts) {
    pb::Account* out = table.add_accounts();
    out->set_user(a->user);
    out->set_host(a->host);
    out->set_plugin(a->plugin);
    out->set_auth_string(a->auth_string);
    out->set_locked(a->locked);
    out->set_password_expired(a->password_expired);
    AddPrivNames(a->global_privs, out->mutable_global_privileges());
    out->set_global_grant_option(a->global_grant_option);
    for (const DynamicGrant& d : a->dynamic_privs) {
      pb::DynamicGrant* g = out->add_dynamic_privileges();
      g->set_name(d.name);
      g->set_grant_option(d.grant_option);
    }
    for (const DbGrant& d : a->db_grants) {
      pb::DbGrant* g = out->add_db_grants();
      g->set_db(d.db);
      AddPrivNames(d.privs, g->mutable_privileges());
      g->set_grant_option(d.grant_option);
    }
  }
  std::string bytes;
  table.SerializeToString(&bytes);
  return bytes;
}

Result<std::vector<Account>> DecodeAccounts(std::string_view bytes) {
  pb::AclTable table;
  if (!table.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("acl.pb: cannot parse the account table");
  }
  if (table.format_version() != kAclFormatVersion) {
    return Status::Corruption("acl.pb: unsupported format version " +
                              std::to_string(table.format_version()));
  }
  std::vector<Account> accounts;
  std::set<std::pair<std::string, std::string>> seen;
  for (const pb::Account& in : table.accounts()) {
    Account a;
    a.user = in.user();
    a.host = in.host();
    a.plugin = in.plugin();
    a.auth_string = in.auth_string();
    a.locked = in.locked();
    a.password_expired = in.password_expired();
    if (a.plugin != kCachingSha2Password && a.plugin != kNativePassword) {
      return Status::Corruption("acl.pb: unknown plugin '" + a.plugin + "'");
    }
    if (!seen.emplace(a.user, a.host).second) {
      return Status::Corruption("acl.pb: duplicate account " + a.name().Quoted());
    }
    Result<PrivSet> global = PrivsFromNames(in.global_privileges());
    if (!global.ok()) return global.status();
    a.global_privs = *global;
    a.global_grant_option = in.global_grant_option();
    for (const pb::DynamicGrant& d : in.dynamic_privileges()) {
      a.dynamic_privs.push_back({d.name(), d.grant_option()});
    }
    for (const pb::DbGrant& d : in.db_grants()) {
      Result<PrivSet> privs = PrivsFromNames(d.privileges());
      if (!privs.ok()) return privs.status();
      if (privs->empty() && !d.grant_option()) continue;
      a.db_grants.push_back({d.db(), *privs, d.grant_option()});
    }
    std::sort(a.dynamic_privs.begin(), a.dynamic_privs.end(),
              [](const DynamicGrant& x, const DynamicGrant& y) { return x.name < y.name; });
    std::sort(a.db_grants.begin(), a.db_grants.end(),
              [](const DbGrant& x, const DbGrant& y) { return x.db < y.db; });
    auto dup_dyn = std::adjacent_find(
        a.dynamic_privs.begin(), a.dynamic_privs.end(),
        [](const DynamicGrant& x, const DynamicGrant& y) { return x.name == y.name; });
    auto dup_db = std::adjacent_find(a.db_grants.begin(), a.db_grants.end(),
                                     [](const DbGrant& x, const DbGrant& y) { return x.db == y.db; });
    if (dup_dyn != a.dynamic_privs.end() || dup_db != a.db_grants.end()) {
      return Status::Corruption("acl.pb: duplicate grant for " + a.name().Quoted());
    }
    accounts.push_back(std::move(a));
  }
  return accounts;
}

}  // namespace sluice::acl::internal
