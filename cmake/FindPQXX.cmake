# FindPQXX: libpqxx, the C++ client of PostgreSQL, for the run store's PostgreSQL connection.
# Debian's libpqxx-dev (6.4) ships a pkg-config file and no CMake package, so it is found here
# through pkg-config, with find_path/find_library as the fallback. libpqxx is built on libpq
# (PostgreSQL's C client), found with CMake's own FindPostgreSQL.
# Result: PQXX_FOUND, PQXX_VERSION, PQXX_INCLUDE_DIR, PQXX_LIBRARY and the imported target PQXX::PQXX.

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(_pqxx_pc QUIET libpqxx)
endif()
find_path(PQXX_INCLUDE_DIR NAMES pqxx/pqxx HINTS ${_pqxx_pc_INCLUDE_DIRS})
find_library(PQXX_LIBRARY NAMES pqxx HINTS ${_pqxx_pc_LIBRARY_DIRS})
set(PQXX_VERSION "${_pqxx_pc_VERSION}")
if(NOT PQXX_VERSION AND PQXX_INCLUDE_DIR AND EXISTS "${PQXX_INCLUDE_DIR}/pqxx/version.hxx")
  # Without pkg-config (packages unpacked by hand, say): the version the header declares.
  file(STRINGS "${PQXX_INCLUDE_DIR}/pqxx/version.hxx" _pqxx_version_line REGEX "^#define PQXX_VERSION \"")
  string(REGEX REPLACE "^#define PQXX_VERSION \"([^\"]*)\".*" "\\1" PQXX_VERSION "${_pqxx_version_line}")
endif()
find_package(PostgreSQL QUIET)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PQXX REQUIRED_VARS PQXX_LIBRARY PQXX_INCLUDE_DIR PostgreSQL_FOUND
                                  VERSION_VAR PQXX_VERSION)
if(PQXX_FOUND AND NOT TARGET PQXX::PQXX)
  add_library(PQXX::PQXX UNKNOWN IMPORTED)
  set_target_properties(PQXX::PQXX PROPERTIES IMPORTED_LOCATION "${PQXX_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${PQXX_INCLUDE_DIR}"
                        INTERFACE_LINK_LIBRARIES PostgreSQL::PostgreSQL)
endif()
mark_as_advanced(PQXX_INCLUDE_DIR PQXX_LIBRARY)
