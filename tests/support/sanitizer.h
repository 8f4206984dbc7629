// Whether this test binary was built with AddressSanitizer (scripts/test-sanitized).
// Tests that plan the largest reference cases many times use it to leave those
// cases to the plain suite, which checks every one: under ASan they run 10-20x
// slower, and what ASan looks for (memory errors) the smaller cases reach too.
#pragma once

namespace shardplan::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace shardplan::testing
