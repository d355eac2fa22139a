// Anchor of the test precompiled header (tests/support/test_pch.h): the
// target that owns it must compile one source; it is an executable, like
// the tests that reuse its header, so that the compile flags match.
int main() { return 0; }
