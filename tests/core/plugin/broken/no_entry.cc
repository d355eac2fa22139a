// A shared library that is not a tracehound plugin: no entry symbol.
extern "C" int some_function(void) { return 42; }
