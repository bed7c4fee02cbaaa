// The C++ unit tests' one assertion, shared by every cpp/tests/test_*.cc (each is its own
// ctest executable, so no test framework): check() counts a check and reports a failure;
// report() prints the totals and gives main()'s exit status (0: every check passed).
#pragma once

#include <cstdio>
#include <string>

namespace fort_test {

inline int failures = 0;
inline int checks = 0;

inline void check(bool ok, const std::string& what) {
    ++checks;
    if (!ok) {
        ++failures;
        std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    }
}

inline int report() {
    std::printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace fort_test
