# The lit suite (test/dialect, test/fuzz, ...), included from test/CMakeLists.txt.
# Suites that need more tools built first append them to TESSEL_TEST_DEPENDS before
# this file is included.
#
#   ninja check-tessel-lit                                   # build the tools, run all
#   /usr/lib/llvm-22/bin/lit -sv <build>/test/dialect/load.mlir   # one test

if(NOT Python3_EXECUTABLE)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
endif()

set(TESSEL_LIT_DEPENDS tessel-opt ${TESSEL_TEST_DEPENDS})
list(REMOVE_DUPLICATES TESSEL_LIT_DEPENDS)

configure_lit_site_cfg(
  ${CMAKE_CURRENT_SOURCE_DIR}/lit.site.cfg.py.in
  ${CMAKE_CURRENT_BINARY_DIR}/lit.site.cfg.py
  MAIN_CONFIG ${CMAKE_CURRENT_SOURCE_DIR}/lit.cfg.py)

add_lit_testsuite(check-tessel-lit "Running tessel lit tests"
  ${CMAKE_CURRENT_BINARY_DIR}
  DEPENDS ${TESSEL_LIT_DEPENDS})
