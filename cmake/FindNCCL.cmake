# FindNCCL: NCCL's header and library, for chapter 8's all-reduce pairs.
#
# Where it looks, first match wins (the header and the library always come from the same place):
#   1. NCCL_ROOT (a CMake variable or an environment variable): <root>/include/nccl.h and
#      <root>/lib/libnccl.so[.2] (or lib64/).
#   2. The repository's .deps/python/nvidia/nccl, where `scripts/setup-deps.sh --nccl` installs the
#      nvidia-nccl-cu13 wheel.
#   3. The nvidia-nccl-cu13 wheel of `python3` (PyTorch's, on the GPU machines): the namespace
#      package nvidia.nccl, laid out as include/nccl.h and lib/libnccl.so.2 (no unversioned .so).
#   4. The CUDA Toolkit's directories and the system's (a libnccl-dev package, or an NCCL that came
#      with the toolkit).
# Result: NCCL_FOUND, NCCL_VERSION (from nccl.h), NCCL_INCLUDE_DIR, NCCL_LIBRARY and the imported
# target NCCL::NCCL. Configure with -DCMAKE_DISABLE_FIND_PACKAGE_NCCL=ON to build without it.

set(_nccl_roots)
if(NCCL_ROOT)
  list(APPEND _nccl_roots "${NCCL_ROOT}")
elseif(DEFINED ENV{NCCL_ROOT})
  list(APPEND _nccl_roots "$ENV{NCCL_ROOT}")
endif()
list(APPEND _nccl_roots "${CMAKE_SOURCE_DIR}/.deps/python/nvidia/nccl")
find_program(_nccl_python3 NAMES python3)
if(_nccl_python3)
  execute_process(
    COMMAND "${_nccl_python3}" -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
    OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _nccl_rc)
  if(_nccl_rc EQUAL 0 AND _nccl_wheel)
    list(APPEND _nccl_roots "${_nccl_wheel}")
  endif()
endif()

if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  foreach(_root IN LISTS _nccl_roots)
    if(EXISTS "${_root}/include/nccl.h")
      find_library(_nccl_lib_here NAMES nccl libnccl.so.2 PATHS "${_root}" PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)
      if(_nccl_lib_here)
        set(NCCL_INCLUDE_DIR "${_root}/include" CACHE PATH "Directory with nccl.h")
        set(NCCL_LIBRARY "${_nccl_lib_here}" CACHE FILEPATH "libnccl.so(.2)")
        unset(_nccl_lib_here CACHE)
        break()
      endif()
      unset(_nccl_lib_here CACHE)
    endif()
  endforeach()
endif()
if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${CUDAToolkit_LIBRARY_DIR})
endif()

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_defs REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${_part} +([0-9]+).*" "\\1" _nccl_${_part} "${_nccl_defs}")
  endforeach()
  if(_nccl_MAJOR MATCHES "^[0-9]+$" AND _nccl_MINOR MATCHES "^[0-9]+$" AND _nccl_PATCH MATCHES "^[0-9]+$")
    set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL SHARED IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
