#include "acl/host_match.h"

#include <algorithm>
#include <cstddef>

#include "base/strings.h"

namespace sluice::acl {
namespace {

constexpr char kEscape = '\\';
constexpr char kWildMany = '%';
constexpr char kWildOne = '_';


bool IsLoopback(std::string_view ip) { return ip == "127.0.0.1" || ip == "::1"; }

}  // namespace

std::string LowerAscii(std::string_view s) { return base::AsciiLower(s); }

ClientHost ResolveClientHost(std::string_view peer_address) {
  ClientHost client;
  client.ip = LowerAscii(peer_address);
  constexpr std::string_view kMapped = "::ffff:";
  if (client.ip.starts_with(kMapped) && client.ip.find('.') != std::string::npos) {
    client.ip.erase(0, kMapped.size());
  }
  if (client.ip == "localhost") client.ip = "127.0.0.1";
  if (IsLoopback(client.ip)) client.name = "localhost";
  return client;
}

bool WildcardMatch(std::string_view pattern, std::string_view text) {
  // Iterative glob matching with one backtrack point (the last '%'), which is
  // enough because '%' matches any run: a later '%' supersedes earlier ones.
  size_t p = 0, t = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char pc = pattern[p];
      if (pc == kWildMany) {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (pc == kWildOne) {
        ++p;
        ++t;
        continue;
      }
      size_t advance = 1;
      if (pc == kEscape && p + 1 < pattern.size()) {
        pc = pattern[p + 1];
        advance = 2;
      }
      if (base::AsciiLower(pc) == base::AsciiLower(text[t])) {
        p += advance;
        ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == kWildMany) ++p;
  return p == pattern.size();
}

bool HostMatches(std::string_view pattern, const ClientHost& client) {
  if (pattern.empty()) return true;
  if (!client.name.empty() && WildcardMatch(pattern, client.name)) return true;
  return !client.ip.empty() && WildcardMatch(pattern, client.ip);
}

int SpecificityScore(std::string_view part) {
  for (size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    if (c == kEscape && i + 1 < part.size()) {
      ++i;
      continue;
    }
    if (c == kWildMany || c == kWildOne) return static_cast<int>(std::min<size_t>(i + 1, 127));
  }
  return part.empty() ? 0 : 128;
}

bool MatchesBefore(std::string_view a_user, std::string_view a_host, std::string_view b_user,
                   std::string_view b_host) {
  int ah = SpecificityScore(a_host), bh = SpecificityScore(b_host);
  if (ah != bh) return ah > bh;
  int au = a_user.empty() ? 0 : 128, bu = b_user.empty() ? 0 : 128;
  if (au != bu) return au > bu;
  if (a_host != b_host) return a_host < b_host;
  return a_user < b_user;
}

}  // namespace sluice::acl
