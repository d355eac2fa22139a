# TRACEHOUND_PYTHON: AUTO builds the `tracehound` Python extension module when
# pybind11 (Debian: pybind11-dev) and the Python headers are found; ON requires
# them. With the module on, every static library is compiled
# position-independent (th_static_libraries_pic, called once every target
# exists); executables and plugins keep their flags.
set(TRACEHOUND_PYTHON "AUTO" CACHE STRING "Python module: AUTO (when pybind11 is found), ON or OFF")
set(TRACEHOUND_WITH_PYTHON OFF)
if(NOT TRACEHOUND_PYTHON STREQUAL "OFF" AND NOT TRACEHOUND_SANITIZE)
  find_package(pybind11 CONFIG QUIET)
  if(pybind11_FOUND)
    set(TRACEHOUND_WITH_PYTHON ON)
  elseif(TRACEHOUND_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "TRACEHOUND_PYTHON=ON but pybind11 or the Python headers were not found "
                        "(Debian: apt-get install pybind11-dev python3-dev)")
  endif()
endif()

# Every static library under `dir` (recursively) built with -fPIC, so that the
# extension module can link them; -fno-semantic-interposition keeps calls
# inside a library direct, as in the executable's -fPIE code.
function(th_static_libraries_pic dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON)
      if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        target_compile_options(${t} PRIVATE -fno-semantic-interposition)
      endif()
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    th_static_libraries_pic(${d})
  endforeach()
endfunction()
message(STATUS "tracehound: Python module ${TRACEHOUND_WITH_PYTHON}")
