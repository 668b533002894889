#include "acl/host_match.h"

#include <gtest/gtest.h>

namespace sluice::acl {
namespace {

TEST(WildcardMatchTest, PercentMatchesAnyRunAndUnderscoreOneChar) {
  EXPECT_TRUE(WildcardMatch("%", ""));
  EXPECT_TRUE(WildcardMatch("%", "10.0.0.1"));
  EXPECT_TRUE(WildcardMatch("10.0.%", "10.0.3.4"));
  EXPECT_FALSE(WildcardMatch("10.0.%", "10.1.3.4"));
  EXPECT_TRUE(WildcardMatch("10.0.0._", "10.0.0.7"));
  EXPECT_FALSE(WildcardMatch("10.0.0._", "10.0.0.17"));
  EXPECT_TRUE(WildcardMatch("%.example.%", "db.example.com"));
  EXPECT_TRUE(WildcardMatch("a%b%c", "aXXbYYbc"));
  EXPECT_FALSE(WildcardMatch("a%b%c", "aXXbYYbd"));
}

TEST(WildcardMatchTest, BackslashEscapesWildcards) {
  EXPECT_TRUE(WildcardMatch("my\\_host", "my_host"));
  EXPECT_FALSE(WildcardMatch("my\\_host", "myXhost"));
  EXPECT_TRUE(WildcardMatch("100\\%", "100%"));
  EXPECT_FALSE(WildcardMatch("100\\%", "1000"));
}

TEST(WildcardMatchTest, IsCaseInsensitive) {
  EXPECT_TRUE(WildcardMatch("LocalHost", "localhost"));
  EXPECT_TRUE(WildcardMatch("db.EXAMPLE.%", "db.example.com"));
}

TEST(ResolveClientHostTest, LoopbackAddressesAreLocalhost) {
  for (const char* peer : {"127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost"}) {
    ClientHost c = ResolveClientHost(peer);
    EXPECT_EQ(c.name, "localhost") << peer;
    EXPECT_EQ(c.display(), "localhost") << peer;
  }
  EXPECT_EQ(ResolveClientHost("::ffff:127.0.0.1").ip, "127.0.0.1");
}

TEST(ResolveClientHostTest, RemoteClientIsKnownByIpOnly) {
  ClientHost c = ResolveClientHost("::ffff:10.1.2.3");
  EXPECT_EQ(c.ip, "10.1.2.3");
  EXPECT_TRUE(c.name.empty());
  EXPECT_EQ(c.display(), "10.1.2.3");
}

TEST(HostMatchesTest, LocalhostPatternMatchesLoopbackOnly) {
  EXPECT_TRUE(HostMatches("localhost", ResolveClientHost("127.0.0.1")));
  EXPECT_TRUE(HostMatches("localhost", ResolveClientHost("::1")));
  EXPECT_FALSE(HostMatches("localhost", ResolveClientHost("10.0.0.1")));
  EXPECT_TRUE(HostMatches("127.0.0.1", ResolveClientHost("127.0.0.1")));
  EXPECT_TRUE(HostMatches("127.%", ResolveClientHost("127.0.0.1")));
}

TEST(HostMatchesTest, EmptyPatternAndPercentMatchEveryone) {
  EXPECT_TRUE(HostMatches("", ResolveClientHost("10.0.0.1")));
  EXPECT_TRUE(HostMatches("%", ResolveClientHost("10.0.0.1")));
  EXPECT_TRUE(HostMatches("%", ResolveClientHost("::1")));
}

TEST(SpecificityTest, LiteralBeforeLongerPrefixBeforePercentBeforeEmpty) {
  EXPECT_EQ(SpecificityScore("localhost"), 128);
  EXPECT_EQ(SpecificityScore("10.0.0.5"), 128);
  EXPECT_EQ(SpecificityScore("10.0.%"), 6);
  EXPECT_EQ(SpecificityScore("10.%"), 4);
  EXPECT_EQ(SpecificityScore("%"), 1);
  EXPECT_EQ(SpecificityScore(""), 0);
  EXPECT_EQ(SpecificityScore("my\\_host"), 128);  // escaped: literal
}

TEST(MatchesBeforeTest, HostDecidesBeforeUser) {
  EXPECT_TRUE(MatchesBefore("bob", "localhost", "bob", "%"));
  EXPECT_TRUE(MatchesBefore("", "localhost", "bob", "%"));  // anonymous@localhost shadows bob@%
  EXPECT_TRUE(MatchesBefore("bob", "10.0.%", "bob", "10.%"));
  EXPECT_TRUE(MatchesBefore("bob", "%", "bob", ""));
}

TEST(MatchesBeforeTest, NamedUserBeforeAnonymousOnSameHost) {
  EXPECT_TRUE(MatchesBefore("bob", "%", "", "%"));
  EXPECT_FALSE(MatchesBefore("", "%", "bob", "%"));
}

}  // namespace
}  // namespace sluice::acl
