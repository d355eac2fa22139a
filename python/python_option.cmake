# TRACEHOUND_PYTHON: AUTO builds the `tracehound` Python extension module when
# pybind11 (Debian: pybind11-dev) and the Python headers are found; ON requires
# them. With the module on, every static library is compiled
# position-independent (th_static_libraries_pic, called once every target
# exists); executables and plugins keep their flags.
set(TRACEHOUND_PYTHON "AUTO" CACHE STRING "Python module: AUTO (when pybind11 is found), ON or OFF")
set(TRACEHOUND_WITH_PYTHON OFF)
if(NOT TRACEHOUND_PYTHON STREQUAL "OFF" AND NOT TRACEHOUND_SANITIZE)
  # Debian's interpreter (whose numpy, pandas and pytest packages the module
  # and its tests use) before any other python3 on PATH; -DPYTHON_EXECUTABLE=
  # picks another.
  if(NOT PYTHON_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python of the extension module")
  endif()
  if(NOT PYTHON_EXECUTABLE)
    find_program(PYTHON_EXECUTABLE NAMES python3)
  endif()
  # pybind11 requires the Python headers (python3-dev): look before asking it.
  set(_th_python_h "")
  if(PYTHON_EXECUTABLE)
    execute_process(COMMAND ${PYTHON_EXECUTABLE} -c "import sysconfig; print(sysconfig.get_paths()['include'])"
                    OUTPUT_VARIABLE _th_python_include OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _th_python_rc ERROR_QUIET)
    if(_th_python_rc EQUAL 0 AND EXISTS "${_th_python_include}/Python.h")
      set(_th_python_h "${_th_python_include}/Python.h")
    endif()
  endif()
  if(_th_python_h)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(_th_python_h AND pybind11_FOUND)
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
