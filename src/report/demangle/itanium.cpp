// Itanium C++ names demangled by LLVM's own demangler (llvm/Demangle/ItaniumDemangle.h, from the
// llvm-22-dev package, found by build.rs), so that every name reads exactly as llvm-cxxfilt 22
// prints it. This file is the glue LLVM keeps in ItaniumDemangle.cpp, written for this project:
// a node allocator, the discriminator parser the header declares, a bound on the printed size,
// and one C entry point for Rust (src/report/demangle.rs).
//
// Built natively with the system C++ compiler and, for the page, with clang-22 for wasm32 against
// the WASI C and C++ headers; there the few C functions it calls (malloc, realloc, free, abort,
// strlen, memchr) come from Rust (src/report/demangle/wasm_libc.rs).

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

// The header prints floating-point template arguments with `snprintf`, which the page has no C
// library for: it gets a `%a` printer of its own below.
extern "C" int offload_demangle_snprintf(char *buf, std::size_t size, const char *spec, ...);
#define snprintf offload_demangle_snprintf
#include "llvm/Demangle/ItaniumDemangle.h"
#undef snprintf

using namespace llvm::itanium_demangle;

namespace {

// Nodes live until the name is printed: a bump allocator over blocks freed all at once.
class Arena {
  struct Block {
    Block *next;
    std::size_t used, size;
  };
  static constexpr std::size_t kAlign = 16;
  static constexpr std::size_t kHeader = (sizeof(Block) + kAlign - 1) & ~(kAlign - 1);
  Block *blocks = nullptr;

public:
  Arena() = default;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  ~Arena() {
    while (blocks) {
      Block *next = blocks->next;
      std::free(blocks);
      blocks = next;
    }
  }
  void *allocate(std::size_t n) {
    n = (n + kAlign - 1) & ~(kAlign - 1);
    if (!blocks || blocks->size - blocks->used < n) {
      std::size_t size = n > 4096 ? n : 4096;
      auto *block = static_cast<Block *>(std::malloc(kHeader + size));
      if (!block)
        std::abort();
      *block = Block{blocks, 0, size};
      blocks = block;
    }
    void *at = reinterpret_cast<char *>(blocks) + kHeader + blocks->used;
    blocks->used += n;
    return at;
  }
};

class NodeAllocator {
  Arena arena;

public:
  void reset() {}
  template <typename T, typename... Args> Node *makeNode(Args &&...args) {
    return new (arena.allocate(sizeof(T))) T(std::forward<Args>(args)...);
  }
  void *allocateNodeArray(std::size_t count) { return arena.allocate(sizeof(Node *) * count); }
};

using Parser = ManglingParser<NodeAllocator>;

// How much text printing a tree may write, counted before it is printed: substitutions share
// subtrees, so a short hostile name can ask for gigabytes. The walk stops as soon as the count
// passes the limit, so it costs at most the limit's worth of nodes; a name past it stays
// mangled.
class PrintedSize {
  std::size_t limit, total = 0;
  unsigned depth = 0;

public:
  explicit PrintedSize(std::size_t limit) : limit(limit) {}
  bool over() const { return total > limit; }

  void node(const Node *n) {
    if (!n || over())
      return;
    // A cyclic tree (a forward reference to itself) or a very deep one counts as too large.
    if (depth > 256) {
      total = limit + 1;
      return;
    }
    ++depth;
    total += 1;
    n->visit([&](const auto *derived) {
      // A forward reference has no matcher: what it prints is what it was resolved to.
      if constexpr (std::is_same_v<std::decay_t<decltype(*derived)>, ForwardTemplateReference>)
        node(derived->Ref);
      else
        derived->match([&](const auto &...args) { (arg(args), ...); });
    });
    --depth;
  }

private:
  // Both pointer types, spelt out: a `Node *` would otherwise match the catch-all below.
  void arg(const Node *n) { node(n); }
  void arg(Node *n) { node(n); }
  void arg(NodeArray elements) {
    for (Node *element : elements)
      node(element);
    total += 2 * elements.size();
  }
  void arg(std::string_view text) { total += text.size(); }
  template <typename T> void arg(const T &) {}
};

} // namespace

#ifndef __wasm__
extern "C" int offload_demangle_snprintf(char *buf, std::size_t size, const char *spec, ...) {
  va_list args;
  va_start(args, spec);
  int n = std::vsnprintf(buf, size, spec, args);
  va_end(args);
  return n;
}
#else
// The header's three specs: "%af" (a float, promoted), "%a" (a double) and "%LaL" (a long
// double), each printed as glibc prints "%a": `-0x1.8p+1`, `0x0p+0`, `inf`, `nan`, then the
// spec's suffix letter. A long double is printed at double precision: wasm32's long double is
// not x86's, whose digits llvm-cxxfilt on x86 prints.
extern "C" int offload_demangle_snprintf(char *buf, std::size_t size, const char *spec, ...) {
  va_list args;
  va_start(args, spec);
  bool is_long = spec[1] == 'L';
  double value = is_long ? static_cast<double>(va_arg(args, long double)) : va_arg(args, double);
  va_end(args);
  char suffix = spec[is_long ? 3 : 2];
  char text[48];
  std::size_t n = 0;
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (bits >> 63)
    text[n++] = '-';
  unsigned exponent = (bits >> 52) & 0x7ff;
  std::uint64_t fraction = bits & ((std::uint64_t(1) << 52) - 1);
  auto put = [&](const char *s) {
    while (*s)
      text[n++] = *s++;
  };
  if (exponent == 0x7ff) {
    put(fraction ? "nan" : "inf");
  } else {
    int power = exponent ? int(exponent) - 1023 : (fraction ? -1022 : 0);
    put(exponent ? "0x1" : "0x0");
    if (fraction) {
      text[n++] = '.';
      for (int shift = 48; shift >= 0 && (fraction & ((std::uint64_t(1) << (shift + 4)) - 1)); shift -= 4)
        text[n++] = "0123456789abcdef"[(fraction >> shift) & 0xf];
    }
    text[n++] = 'p';
    text[n++] = power < 0 ? '-' : '+';
    unsigned magnitude = power < 0 ? unsigned(-power) : unsigned(power);
    char digits[8];
    std::size_t d = 0;
    do {
      digits[d++] = char('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude);
    while (d)
      text[n++] = digits[--d];
  }
  if (suffix)
    text[n++] = suffix;
  for (std::size_t i = 0; i < n && i + 1 < size; ++i)
    buf[i] = text[i];
  if (size)
    buf[n < size ? n : size - 1] = '\0';
  return int(n);
}

// Nodes are never deleted (the arena frees them), but their virtual destructors name it.
void operator delete(void *, std::size_t) noexcept {}
void operator delete(void *) noexcept {}
#endif

// <discriminator> := _ <digit>  |  __ <number> _   (the Itanium ABI), and, as GCC and LLVM
// accept, a run of digits that ends the name. What is not one is left for the parser.
const char *llvm::itanium_demangle::parse_discriminator(const char *first, const char *last) {
  if (first == last)
    return first;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (*first == '_') {
    const char *at = first + 1;
    if (at == last)
      return first;
    if (digit(*at))
      return at + 1;
    if (*at != '_')
      return first;
    ++at;
    const char *digits = at;
    while (at != last && digit(*at))
      ++at;
    if (at != digits && at != last && *at == '_')
      return at + 1;
    return first;
  }
  if (digit(*first)) {
    const char *at = first;
    while (at != last && digit(*at))
      ++at;
    if (at == last)
      return last;
  }
  return first;
}

// `size` bytes of the mangled name at `name`, demangled: a NUL-terminated buffer from malloc
// (the caller frees it with offload_itanium_free) and its length in `*length`, or null when
// the name does not parse or would print more than `limit` bytes.
extern "C" char *offload_itanium_demangle(const char *name, std::size_t size, std::size_t limit,
                                          std::size_t *length) {
  Parser parser(name, name + size);
  Node *tree = parser.parse();
  if (!tree)
    return nullptr;
  PrintedSize printed(limit);
  printed.node(tree);
  if (printed.over())
    return nullptr;
  OutputBuffer out;
  tree->print(out);
  if (out.getCurrentPosition() > limit) {
    std::free(out.getBuffer());
    return nullptr;
  }
  out += '\0';
  *length = out.getCurrentPosition() - 1;
  return out.getBuffer();
}

extern "C" void offload_itanium_free(char *text) { std::free(text); }
