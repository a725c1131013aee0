# PcdPython.cmake: the Python extension profcodec._profcodec (CPython's limited API, abi3, for
# Python 3.9 and up), the package assembled in the build tree (build/python/profcodec), and its
# tests (tests/python). The runtime (src/python) is a static library of its own, so that a
# binding generated from other schemas (tests/python: a fixture schema) links the same code.
option(PCD_PYTHON "Build the Python module (needs python3-dev)" ON)
if(NOT PCD_PYTHON)
  return()
endif()
# The interpreter the module is built and tested with: Debian's, which has python3-pytest (a
# python3 earlier on PATH, pyenv's, may not); PCD_PYTHON_EXECUTABLE=... picks another.
set(PCD_PYTHON_EXECUTABLE "" CACHE FILEPATH "the Python that builds and tests the module")
if(NOT PCD_PYTHON_EXECUTABLE)
  find_program(PCD_PYTHON_DEBIAN python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(PCD_PYTHON_DEBIAN)
    set(PCD_PYTHON_EXECUTABLE ${PCD_PYTHON_DEBIAN})
  else()
    find_program(PCD_PYTHON_ANY python3 REQUIRED)
    set(PCD_PYTHON_EXECUTABLE ${PCD_PYTHON_ANY})
  endif()
endif()
set(Python3_EXECUTABLE ${PCD_PYTHON_EXECUTABLE})
find_package(Python3 3.9 COMPONENTS Interpreter Development.Module)
if(NOT Python3_Development.Module_FOUND)
  message(WARNING "python3-dev not found: the Python module is not built (scripts/setup-deps.sh installs it)")
  return()
endif()

file(GLOB PCD_PY_RUNTIME_SRC CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/python/*.c)
file(GLOB PCD_PY_GEN_SRC CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/generated/python/*.c)
file(GLOB PCD_PY_STUBS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/generated/python/*.pyi)
file(GLOB PCD_PY_PACKAGE CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/profcodec/*)

add_library(pcdpy STATIC ${PCD_PY_RUNTIME_SRC})
target_include_directories(pcdpy PUBLIC ${PROJECT_SOURCE_DIR}/src/python ${Python3_INCLUDE_DIRS})
target_link_libraries(pcdpy PUBLIC pcdio)

set(PCD_PY_DIR ${PROJECT_BINARY_DIR}/python)
add_library(pcdpy_ext MODULE ${PCD_PY_GEN_SRC})
target_link_libraries(pcdpy_ext PRIVATE pcdpy)
set_target_properties(pcdpy_ext PROPERTIES PREFIX "" OUTPUT_NAME _profcodec SUFFIX ".abi3.so"
  LIBRARY_OUTPUT_DIRECTORY ${PCD_PY_DIR}/profcodec C_VISIBILITY_PRESET hidden)

# the package: its Python files and the generated stubs beside the extension
set(PCD_PY_COPIES)
foreach(f ${PCD_PY_PACKAGE} ${PCD_PY_STUBS})
  get_filename_component(n ${f} NAME)
  add_custom_command(OUTPUT ${PCD_PY_DIR}/profcodec/${n}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${f} ${PCD_PY_DIR}/profcodec/${n}
    DEPENDS ${f} VERBATIM)
  list(APPEND PCD_PY_COPIES ${PCD_PY_DIR}/profcodec/${n})
endforeach()
add_custom_target(pcdpy_package ALL DEPENDS ${PCD_PY_COPIES} pcdpy_ext)

# The wheel's extension from this tree's objects: pcdpy_ext's, linked with everything below it
# statically (pcdlib: the library's objects, as pcdpy_ext itself links them), as setup.py's own
# build links it (BUILD_SHARED_LIBS=OFF), with no libprofcodec.so at run time. setup.py builds this target when PCD_PYTHON_CMAKE_TREE names a configured tree: make
# test's packaging check (tests/python/test_package.sh) reuses the fast tree's compiled objects
# instead of a third build of the library; make test-long builds the wheel as a user does.
if(BUILD_SHARED_LIBS)
  add_library(pcdpy_wheel_ext MODULE EXCLUDE_FROM_ALL $<TARGET_OBJECTS:pcdpy_ext>)
  add_dependencies(pcdpy_wheel_ext pcdpy pcdio pcdtools)
  target_link_libraries(pcdpy_wheel_ext PRIVATE $<TARGET_FILE:pcdpy> $<TARGET_FILE:pcdio> $<TARGET_FILE:pcdtools>
                        pcdlib PkgConfig::JANSSON ZLIB::ZLIB PkgConfig::ZSTD)
  set_target_properties(pcdpy_wheel_ext PROPERTIES PREFIX "" OUTPUT_NAME _profcodec SUFFIX ".abi3.so"
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python-wheel/profcodec)
else()
  # (everything is static already: the extension is the wheel's)
  add_custom_target(pcdpy_wheel_ext DEPENDS pcdpy_ext)
endif()
