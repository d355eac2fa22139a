# th_amplify: big Kineto traces and XSpaces (xspace_amplifier.h) for ingest
# benchmarks, made at run time from a real trace under ../shared/data (never committed).
add_library(th_amplifier STATIC ${CMAKE_CURRENT_LIST_DIR}/trace_amplifier.cc)
target_link_libraries(th_amplifier PUBLIC simdjson::simdjson PkgConfig::DEFLATE PkgConfig::ISAL)
add_executable(th_amplify ${CMAKE_CURRENT_LIST_DIR}/amplify_main.cc)
target_link_libraries(th_amplify PRIVATE th_amplifier th_import_xspace CLI11::CLI11)
