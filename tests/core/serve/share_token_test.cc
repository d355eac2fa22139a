// Share tokens: base64url against RFC 4648's vectors, HMAC-SHA256 against
// RFC 4231's, the exact bytes of a token, and every way a token is refused
// (tampered, other key, expired, malformed, revoked); the key file (0600,
// created once, reused, refused when others may read it); the revocation
// list seen by a live authority; durations.
#include "core/serve/share_token.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <fstream>

#include "core/serve/share_keys.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

const ServeCrypto& Crypto() {
  std::string error;
  const HttpModuleApi* api = LoadHttpModule(&error);
  EXPECT_NE(api, nullptr) << error;
  return *api->crypto;
}

std::string Hex(const unsigned char* bytes, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

// A fresh folder for key files.
std::string KeyDir(const std::string& name) {
  const std::string dir = th::testing::TempDir() + "/share_keys_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

const std::string kRunA = "0123456789abcdef0123456789abcdef";
const std::string kRunB = "fedcba9876543210fedcba9876543210";

TEST(ShareTokenTest, Base64UrlMatchesRfc4648WithoutPadding) {
  const std::pair<const char*, const char*> cases[] = {
      {"", ""},           {"f", "Zg"},          {"fo", "Zm8"},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : cases) {
    EXPECT_EQ(Base64UrlEncode(plain), encoded);
    EXPECT_EQ(Base64UrlDecode(encoded), std::optional<std::string>(plain));
  }
  // The URL alphabet: 0xfb 0xff -> "-_8" (standard base64: "+/8=").
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlDecode("-_8"), std::optional<std::string>("\xfb\xff"));
  for (const char* bad : {"Zg=", "Z", "Zm9vY", "Zm+v", "Zm/v", "Zh"})  // Zh: stray bits
    EXPECT_EQ(Base64UrlDecode(bad), std::nullopt) << bad;
}

TEST(ShareTokenTest, HmacIsRfc4231TestCase2AndEqualIsExact) {
  const std::string key = "Jefe", data = "what do ya want for nothing?";
  unsigned char mac[32];
  ASSERT_TRUE(Crypto().hmac_sha256(reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                                   reinterpret_cast<const unsigned char*>(data.data()), data.size(),
                                   mac));
  EXPECT_EQ(Hex(mac, 32), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  unsigned char other[32];
  std::copy(mac, mac + 32, other);
  EXPECT_TRUE(Crypto().equal(mac, other, 32));
  other[31] ^= 1;
  EXPECT_FALSE(Crypto().equal(mac, other, 32));
}

TEST(ShareTokenTest, TokenBytesAreTheClaimsAndTheirHmac) {
  ShareClaims c;
  c.id = "00112233445566778899aabbccddeeff";
  c.runs = {kRunA, kRunB};
  c.expires_unix_s = 1800000000;
  const std::string json = ClaimsJson(c);
  EXPECT_EQ(json, "{\"v\":1,\"id\":\"00112233445566778899aabbccddeeff\",\"runs\":[\"" + kRunA +
                      "\",\"" + kRunB + "\"],\"exp\":1800000000,\"scope\":\"read\"}");
  const std::string key(kShareKeyBytes, 'k');
  auto token = SignShareToken(Crypto(), key, c);
  ASSERT_TRUE(token.ok()) << token.status().message();
  const std::string body = Base64UrlEncode(json);
  unsigned char mac[32];
  ASSERT_TRUE(Crypto().hmac_sha256(reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                                   reinterpret_cast<const unsigned char*>(body.data()), body.size(),
                                   mac));
  EXPECT_EQ(*token, body + "." + Base64UrlEncode(std::string(reinterpret_cast<char*>(mac), 32)));
  EXPECT_EQ(
      token->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."),
      std::string::npos);  // safe in a query without escaping

  ShareVerdict ok = VerifyShareToken(Crypto(), key, *token, 1799999999);
  EXPECT_EQ(ok.check, ShareCheck::kOk) << ok.message;
  EXPECT_EQ(ok.claims.id, c.id);
  EXPECT_EQ(ok.claims.runs, c.runs);
  EXPECT_EQ(ok.claims.expires_unix_s, 1800000000);
}

TEST(ShareTokenTest, TamperedOtherKeyExpiredAndMalformedTokensAreRefused) {
  ShareClaims c;
  c.id = "00112233445566778899aabbccddeeff";
  c.runs = {kRunA};
  c.expires_unix_s = 1800000000;
  const std::string key(kShareKeyBytes, 'k');
  const std::string token = SignShareToken(Crypto(), key, c).value();
  const std::string mac = token.substr(token.find('.'));

  // The claims rewritten to name another run, the old signature kept.
  ShareClaims widened = c;
  widened.runs = {kRunB};
  const std::string forged = Base64UrlEncode(ClaimsJson(widened)) + mac;
  EXPECT_EQ(VerifyShareToken(Crypto(), key, forged, 0).check, ShareCheck::kBadSignature);
  ShareClaims later = c;
  later.expires_unix_s = 1900000000;
  EXPECT_EQ(VerifyShareToken(Crypto(), key, Base64UrlEncode(ClaimsJson(later)) + mac, 0).check,
            ShareCheck::kBadSignature);
  // One character of the signature changed.
  std::string flipped = token;
  flipped.back() = flipped.back() == 'A' ? 'Q' : 'A';
  EXPECT_EQ(VerifyShareToken(Crypto(), key, flipped, 0).check, ShareCheck::kBadSignature);
  // Another server's key.
  ShareVerdict other = VerifyShareToken(Crypto(), std::string(kShareKeyBytes, 'j'), token, 0);
  EXPECT_EQ(other.check, ShareCheck::kBadSignature);
  EXPECT_EQ(other.message, "token: the signature does not match this server's key");
  // Expired: the expiry second itself is past.
  ShareVerdict expired = VerifyShareToken(Crypto(), key, token, 1800000000);
  EXPECT_EQ(expired.check, ShareCheck::kExpired);
  EXPECT_EQ(expired.message, "token: this link expired at 2027-01-15T08:00:00Z; ask for a new one");
  for (const std::string& bad : {std::string(""), std::string("abc"), token + ".x",
                                 std::string(".") + mac, token.substr(0, token.find('.') + 1)})
    EXPECT_EQ(VerifyShareToken(Crypto(), key, bad, 0).check, ShareCheck::kMalformed) << bad;
  // Signed, but claims the reader refuses.
  for (const std::string& json :
       {std::string("{\"v\":2,\"id\":\"00112233445566778899aabbccddeeff\",\"runs\":[\"") + kRunA +
            "\"],\"exp\":1800000000,\"scope\":\"read\"}",
        std::string("{\"v\":1,\"id\":\"00112233445566778899aabbccddeeff\",\"runs\":[],"
                    "\"exp\":1800000000,\"scope\":\"read\"}"),
        std::string("{\"v\":1,\"id\":\"00112233445566778899aabbccddeeff\",\"runs\":[\"") + kRunA +
            "\"],\"exp\":1800000000,\"scope\":\"write\"}",
        std::string("{\"v\":1,\"id\":\"x\",\"runs\":[\"") + kRunA +
            "\"],\"exp\":1800000000,\"scope\":\"read\"}"}) {
    const std::string body = Base64UrlEncode(json);
    unsigned char m[32];
    Crypto().hmac_sha256(reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                         reinterpret_cast<const unsigned char*>(body.data()), body.size(), m);
    const std::string signed_token =
        body + "." + Base64UrlEncode(std::string(reinterpret_cast<char*>(m), 32));
    EXPECT_EQ(VerifyShareToken(Crypto(), key, signed_token, 0).check, ShareCheck::kMalformed)
        << json;
  }
}

TEST(ShareKeysTest, KeyFileIsCreatedOnceWithMode0600AndReused) {
  const std::string dir = KeyDir("create");
  const std::string path = dir + "/sub/serve-share.key";
  auto first = ShareAuthority::Open(path);
  ASSERT_TRUE(first.ok()) << first.status().message();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(kShareKeyBytes));
  const std::string bytes = th::testing::ReadFile(path);
  ShareClaims claims;
  auto token = (*first)->Issue({kRunA}, 4000000000, &claims);
  ASSERT_TRUE(token.ok());
  EXPECT_TRUE(IsHex32(claims.id));
  // Reopened (a restart): the same key, so the token still verifies.
  auto second = ShareAuthority::Open(path);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(th::testing::ReadFile(path), bytes);
  EXPECT_EQ((*second)->Check(*token, 1).check, ShareCheck::kOk);
  // Another key file: another key.
  auto other = ShareAuthority::Open(dir + "/other.key");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->Check(*token, 1).check, ShareCheck::kBadSignature);
  // Ids differ per token.
  ShareClaims again;
  ASSERT_TRUE((*first)->Issue({kRunA}, 4000000000, &again).ok());
  EXPECT_NE(again.id, claims.id);
  EXPECT_FALSE((*first)->Issue({"not-a-key"}, 4000000000).ok());
  EXPECT_FALSE((*first)->Issue({}, 4000000000).ok());
}

TEST(ShareKeysTest, AKeyOthersMayReadOrOfTheWrongSizeIsRefusedByName) {
  const std::string dir = KeyDir("refused");
  const std::string path = dir + "/open.key";
  ASSERT_TRUE(ShareAuthority::Open(path).ok());
  chmod(path.c_str(), 0644);
  auto open = ShareAuthority::Open(path);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find(path), std::string::npos);
  EXPECT_NE(open.status().message().find("mode 0644"), std::string::npos)
      << open.status().message();
  const std::string short_path = dir + "/short.key";
  { std::ofstream(short_path) << "abc"; }
  chmod(short_path.c_str(), 0600);
  auto short_key = ShareAuthority::Open(short_path);
  ASSERT_FALSE(short_key.ok());
  EXPECT_EQ(short_key.status().message(), "share key " + short_path + ": 3 bytes, not 32");
}

TEST(ShareKeysTest, ARevocationIsSeenByTheNextCheck) {
  const std::string path = KeyDir("revoke") + "/k.key";
  auto authority = ShareAuthority::Open(path);
  ASSERT_TRUE(authority.ok());
  ShareClaims a, b;
  const std::string token_a = (*authority)->Issue({kRunA}, 4000000000, &a).value();
  const std::string token_b = (*authority)->Issue({kRunA}, 4000000000, &b).value();
  EXPECT_EQ((*authority)->Check(token_a, 1).check, ShareCheck::kOk);
  // By link: the id is read from the token in its query.
  auto revoked = RevokeShareToken(path, "https://host:8765/?token=" + token_a + "#key=" + kRunA);
  ASSERT_TRUE(revoked.ok()) << revoked.status().message();
  EXPECT_EQ(*revoked, a.id);
  EXPECT_EQ(th::testing::ReadFile(path + ".revoked"), a.id + "\n");
  ShareVerdict v = (*authority)->Check(token_a, 1);
  EXPECT_EQ(v.check, ShareCheck::kRevoked);
  EXPECT_EQ(v.message, "token: this link was revoked");
  EXPECT_EQ((*authority)->Check(token_b, 1).check, ShareCheck::kOk);
  // By id, then by token.
  ASSERT_TRUE(RevokeShareToken(path, b.id).ok());
  EXPECT_EQ((*authority)->Check(token_b, 1).check, ShareCheck::kRevoked);
  EXPECT_EQ(ShareTokenId(token_b).value(), b.id);
  EXPECT_FALSE(RevokeShareToken(path, "nonsense").ok());
  // The list removed: both work again.
  std::filesystem::remove(path + ".revoked");
  EXPECT_EQ((*authority)->Check(token_a, 1).check, ShareCheck::kOk);
}

TEST(ShareKeysTest, DurationsHaveAUnitAndABound) {
  EXPECT_EQ(ParseShareDuration("7d").value(), 7 * 86400);
  EXPECT_EQ(ParseShareDuration("90s").value(), 90);
  EXPECT_EQ(ParseShareDuration("30m").value(), 1800);
  EXPECT_EQ(ParseShareDuration("12h").value(), 43200);
  EXPECT_EQ(ParseShareDuration("2w").value(), 14 * 86400);
  for (const char* bad : {"", "7", "d", "0d", "7x", "-1d", "400d", "1.5h"})
    EXPECT_FALSE(ParseShareDuration(bad).ok()) << bad;
}

}  // namespace
}  // namespace th::serve
