#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "acl.pb.h"  // generated from acl.proto
#include "acl/acl_file_internal.h"

namespace sluice::acl::internal {
namespace {

std::string Errno(const std::string& what, const std::string& path, int err) {
  return what + " '" + path + "': " + std::strerror(err);
}

// Closes a file descriptor on scope exit.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  // Closes now and reports close()'s error (it can carry a deferred write error).
  int Close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

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

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError(Errno("cannot create", tmp, errno));
  FdCloser closer(fd);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::unlink(tmp.c_str());
      return Status::IOError(Errno("cannot write", tmp, err));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || closer.Close() != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::IOError(Errno("cannot sync", tmp, err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::IOError(Errno("cannot rename to", path, err));
  }
  // The rename is durable only once the directory entry is.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return Status::IOError(Errno("cannot open directory", dir, errno));
  FdCloser dir_closer(dfd);
  if (::fsync(dfd) != 0) return Status::IOError(Errno("cannot sync directory", dir, errno));
  return Status::OK();
}

Status ReadWholeFile(const std::string& path, std::string* out, bool* missing) {
  if (missing != nullptr) *missing = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (missing != nullptr) *missing = (err == ENOENT);
    return Status::IOError(Errno("cannot open", path, err));
  }
  FdCloser closer(fd);
  out->clear();
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(Errno("cannot read", path, errno));
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  return Status::OK();
}

}  // namespace sluice::acl::internal
