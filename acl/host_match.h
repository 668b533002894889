// acl/host_match.h
//
// The host part of MySQL account names: LIKE-style patterns ('%' any run,
// '_' one character, '\' escapes the next), matched case-insensitively
// against a client's address, and MySQL's "most specific first" order used
// to pick the account a login belongs to.
//
// sluice does no DNS: a client is known by its IP address only, except that a
// loopback client (127.0.0.1, ::1, ::ffff:127.0.0.1) is also "localhost", as
// MySQL sees it after resolving 127.0.0.1. Netmask hosts ('10.0.0.0/255.0.0.0')
// are not supported; they match only literally.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace sluice::acl {

// A client as the host matcher sees it.
struct ClientHost {
  std::string ip;    // "10.1.2.3", "::1"; lower-case, IPv4-mapped IPv6 unwrapped
  std::string name;  // "localhost" for loopback clients, else empty
  // What error messages show: the name when there is one, else the IP
  // (MySQL's "Access denied for user 'u'@'localhost'").
  const std::string& display() const { return name.empty() ? ip : name; }
};

// Builds the ClientHost for a peer address as the listener reports it
// ("127.0.0.1", "::1", "::ffff:10.0.0.1", "fe80::1%eth0" is taken as is).
// "localhost" itself is accepted and treated as loopback.
ClientHost ResolveClientHost(std::string_view peer_address);

// True iff `pattern` (an account's host part) admits `client`. The empty
// pattern admits every client, like '%'.
bool HostMatches(std::string_view pattern, const ClientHost& client);

// LIKE matching with '%', '_' and '\' escapes; ASCII case-insensitive.
bool WildcardMatch(std::string_view pattern, std::string_view text);

// MySQL's specificity score of an account name part: 128 for a non-empty
// literal (no unescaped wildcard), the 1-based position of the first
// wildcard (capped at 127) for a pattern, 0 for the empty string. Higher is
// more specific.
int SpecificityScore(std::string_view part);

// The login match order: true iff account (a_user, a_host) must be tried
// before (b_user, b_host). Host specificity first, then user specificity
// (a named user before the anonymous ''), then by name for a stable order.
bool MatchesBefore(std::string_view a_user, std::string_view a_host, std::string_view b_user,
                   std::string_view b_host);

// Lower-cases ASCII letters (host names compare case-insensitively; MySQL
// 8.0 stores the host part lower-cased).
std::string LowerAscii(std::string_view s);

}  // namespace sluice::acl
