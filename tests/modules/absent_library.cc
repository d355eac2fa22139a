// A library that module_loader_test's test-missing-library module needs and
// cannot find (it is built where no run path points).
extern "C" __attribute__((visibility("default"))) int th_test_absent_value() { return 7; }
