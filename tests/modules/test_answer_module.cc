// A module for module_loader_test: its entry returns 42.
extern "C" __attribute__((visibility("default"))) int th_test_answer() { return 42; }
