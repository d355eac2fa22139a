// A module for module_loader_test whose library (absent_library.cc) is not on
// its run path, so dlopen fails naming libth_test_absent.so.
extern "C" int th_test_absent_value();
extern "C" __attribute__((visibility("default"))) int th_test_answer() {
  return th_test_absent_value();
}
