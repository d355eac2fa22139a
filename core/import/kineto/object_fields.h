// Reading a JSON object's fields by key, shared by every object reader of
// the Kineto and XProf JSON event formats: ForEachField is the one loop over
// an object's fields; KeyHandlers maps the keys a reader knows to the
// handler that reads each key's value.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace th::kineto {

// The key as written, up to its closing quote (Kineto keys carry no escapes;
// a key with one simply matches no known name).
inline const char* RawKey(simdjson::ondemand::field& field) { return field.key().raw(); }

// Walks the fields of `obj` in order: on_key(raw_key, value) reads the value
// of a key it knows and returns true; on false the field is handed to
// reader.SkipField (checked, not used). Stops at the first malformed field
// or at the first error in reader.err.
template <class Reader, class OnKey>
[[gnu::always_inline]] inline simdjson::error_code ForEachField(simdjson::ondemand::object obj,
                                                                Reader& reader, OnKey&& on_key) {
  for (auto field_result : obj) {
    simdjson::ondemand::field field;
    if (auto err = std::move(field_result).get(field)) return err;
    const char* key = RawKey(field);
    simdjson::ondemand::value value = field.value();
    if (!on_key(key, value)) reader.SkipField(key, value);
    if (reader.err) return reader.err;
  }
  return simdjson::SUCCESS;
}

// A key as a template argument: its characters without the quotes.
template <size_t N>
struct KeyText {
  consteval KeyText(const char (&text)[N]) {  // NOLINT: implicit from a literal
    for (size_t i = 0; i < N; ++i) chars[i] = text[i];
  }
  constexpr size_t size() const { return N - 1; }
  char chars[N];
};

// True when the raw key at p, from its byte From on, is Key's rest followed
// by the closing quote. Reads no byte past the first one that differs.
template <KeyText Key, size_t From = 0>
[[gnu::always_inline]] inline bool RawKeyIs(const char* p) {
  for (size_t i = From; i < Key.size(); ++i)
    if (p[i] != Key.chars[i]) return false;
  return p[Key.size()] == '"';
}

// One known key and its handler.
template <KeyText Key, class Read>
struct KeyHandler {
  static constexpr auto kKey = Key;
  Read read;
};

template <KeyText Key, class Read>
constexpr KeyHandler<Key, Read> On(Read read) {
  return {read};
}

// A reader's known keys (distinct and non-empty, starting with at most
// kMaxFirstBytes different bytes) and their handlers. Dispatch is a switch
// on the raw key's first byte whose cases come from the keys; each case
// compares the rest of the keys that start with its byte, in table order.
template <class... Handlers>
class KeyHandlers {
 public:
  static constexpr size_t kCount = sizeof...(Handlers);
  static constexpr size_t kMaxFirstBytes = 32;

  constexpr explicit KeyHandlers(Handlers... handlers) : handlers_{handlers...} {}

  // Calls the handler of the raw key at p with the key and `args`; false
  // when the key is not known.
  template <class... Args>
  [[gnu::always_inline]] bool Dispatch(const char* p, Args&&... args) const {
    const unsigned first = static_cast<unsigned char>(p[0]);
    switch (first) {
      // clang-format off
#define TH_KEY_CASE(g) case kCaseByte[g]: return TryFrom<kGroupStart[g]>(p, args...);
      TH_KEY_CASE(0)  TH_KEY_CASE(1)  TH_KEY_CASE(2)  TH_KEY_CASE(3)
      TH_KEY_CASE(4)  TH_KEY_CASE(5)  TH_KEY_CASE(6)  TH_KEY_CASE(7)
      TH_KEY_CASE(8)  TH_KEY_CASE(9)  TH_KEY_CASE(10) TH_KEY_CASE(11)
      TH_KEY_CASE(12) TH_KEY_CASE(13) TH_KEY_CASE(14) TH_KEY_CASE(15)
      TH_KEY_CASE(16) TH_KEY_CASE(17) TH_KEY_CASE(18) TH_KEY_CASE(19)
      TH_KEY_CASE(20) TH_KEY_CASE(21) TH_KEY_CASE(22) TH_KEY_CASE(23)
      TH_KEY_CASE(24) TH_KEY_CASE(25) TH_KEY_CASE(26) TH_KEY_CASE(27)
      TH_KEY_CASE(28) TH_KEY_CASE(29) TH_KEY_CASE(30) TH_KEY_CASE(31)
#undef TH_KEY_CASE
      default: return false;
      // clang-format on
    }
  }

 private:
  static constexpr std::array<std::string_view, kCount> kKeys{
      std::string_view(Handlers::kKey.chars, Handlers::kKey.size())...};

  // The first key that starts with the same byte as key i.
  static constexpr size_t FirstWithSameByte(size_t i) {
    size_t j = 0;
    while (kKeys[j][0] != kKeys[i][0]) ++j;
    return j;
  }

  // By group (the keys that share a first byte, in order of their first
  // key): the index of its first key; kCount past the last group.
  static constexpr std::array<size_t, kMaxFirstBytes> kGroupStart = [] {
    std::array<size_t, kMaxFirstBytes> start{};
    start.fill(kCount);
    size_t groups = 0;
    for (size_t i = 0; i < kCount; ++i) {
      if (FirstWithSameByte(i) != i) continue;
      if (groups == kMaxFirstBytes) throw "more distinct first bytes than kMaxFirstBytes";
      start[groups++] = i;
    }
    return start;
  }();

  // By group: its byte, the case label; past the last group, 256 + g, a
  // label no byte matches.
  static constexpr std::array<unsigned, kMaxFirstBytes> kCaseByte = [] {
    std::array<unsigned, kMaxFirstBytes> bytes{};
    for (size_t g = 0; g < kMaxFirstBytes; ++g)
      bytes[g] = kGroupStart[g] < kCount ? static_cast<unsigned char>(kKeys[kGroupStart[g]][0])
                                         : static_cast<unsigned>(256 + g);
    return bytes;
  }();

  // The next key after key i that starts with the same byte; kCount if none.
  static constexpr size_t NextWithSameByte(size_t i) {
    for (size_t j = i + 1; j < kCount; ++j)
      if (kKeys[j][0] == kKeys[i][0]) return j;
    return kCount;
  }

  // Tries key I, whose first byte p[0] is, then the later keys that share it.
  template <size_t I, class... Args>
  [[gnu::always_inline]] bool TryFrom(const char* p, Args&... args) const {
    if constexpr (I >= kCount) {
      return false;  // a case no byte reaches
    } else {
      const auto& handler = std::get<I>(handlers_);
      if (RawKeyIs<std::remove_cvref_t<decltype(handler)>::kKey, 1>(p)) {
        handler.read(kKeys[I], args...);
        return true;
      }
      return TryFrom<NextWithSameByte(I)>(p, args...);
    }
  }

  std::tuple<Handlers...> handlers_;
};

}  // namespace th::kineto
