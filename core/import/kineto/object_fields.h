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

// True when the raw key at p is exactly Key followed by its closing quote.
// Reads no byte past the first one that differs.
template <KeyText Key>
[[gnu::always_inline]] inline bool RawKeyIs(const char* p) {
  for (size_t i = 0; i < Key.size(); ++i)
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

// A reader's known keys (distinct and non-empty) and their handlers.
// Dispatch goes from the raw key's first byte to the keys that start with
// it and calls the handler of the one that matches.
template <class... Handlers>
class KeyHandlers {
 public:
  static constexpr size_t kCount = sizeof...(Handlers);

  constexpr explicit KeyHandlers(Handlers... handlers) : handlers_{handlers...} {}

  // Calls the handler of the raw key at p with the key and `args`; false
  // when the key is not known.
  template <class... Args>
  [[gnu::always_inline]] bool Dispatch(const char* p, Args&&... args) const {
    const size_t first = kFirstWithByte[static_cast<unsigned char>(p[0])];
    return first < kCount && DispatchIn<0, kCount>(first, p, args...);
  }

 private:
  static constexpr std::array<std::string_view, kCount> kKeys{
      std::string_view(Handlers::kKey.chars, Handlers::kKey.size())...};

  // By first byte: the first key that starts with it; kCount if none.
  static constexpr std::array<size_t, 256> kFirstWithByte = [] {
    std::array<size_t, 256> first{};
    first.fill(kCount);
    for (size_t i = kCount; i-- > 0;) first[static_cast<unsigned char>(kKeys[i][0])] = i;
    return first;
  }();

  // The next key after key i that starts with the same byte; kCount if none.
  static constexpr size_t NextWithSameByte(size_t i) {
    for (size_t j = i + 1; j < kCount; ++j)
      if (kKeys[j][0] == kKeys[i][0]) return j;
    return kCount;
  }

  // Binary search for key `first` among keys [Lo, Hi), then TryFrom.
  template <size_t Lo, size_t Hi, class... Args>
  [[gnu::always_inline]] bool DispatchIn(size_t first, const char* p, Args&... args) const {
    if constexpr (Hi - Lo == 1) {
      return TryFrom<Lo>(p, args...);
    } else {
      constexpr size_t kMid = (Lo + Hi) / 2;
      return first < kMid ? DispatchIn<Lo, kMid>(first, p, args...)
                          : DispatchIn<kMid, Hi>(first, p, args...);
    }
  }

  // Tries key I, then the later keys that share its first byte.
  template <size_t I, class... Args>
  [[gnu::always_inline]] bool TryFrom(const char* p, Args&... args) const {
    const auto& handler = std::get<I>(handlers_);
    if (RawKeyIs<std::remove_cvref_t<decltype(handler)>::kKey>(p)) {
      handler.read(kKeys[I], args...);
      return true;
    }
    if constexpr (NextWithSameByte(I) < kCount) {
      return TryFrom<NextWithSameByte(I)>(p, args...);
    } else {
      return false;
    }
  }

  std::tuple<Handlers...> handlers_;
};

}  // namespace th::kineto
