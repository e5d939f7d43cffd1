# Integration tests: bash scripts that run the real binary (under mpirun, on fake hosts,
# against recorded fixtures) and assert on the report it writes. Each family adds its own
# tests/integration/<family>.cmake calling ga_integration_test().
set(GA_INTEGRATION_DIR ${CMAKE_CURRENT_LIST_DIR})

# ga_integration_test(NAME SCRIPT [TIMEOUT seconds] [SERIAL] [ARGS ...])
function(ga_integration_test name script)
  cmake_parse_arguments(T "SERIAL" "TIMEOUT" "ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME integration.${name} COMMAND bash ${GA_INTEGRATION_DIR}/${script} ${T_ARGS})
  set_tests_properties(integration.${name} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    LABELS integration
    ENVIRONMENT "GA_BIN=$<TARGET_FILE:gpuaccept>;GA_FIXTURES=${GA_FIXTURES};GA_SOURCE_DIR=${PROJECT_SOURCE_DIR};GA_BUILD_DIR=${PROJECT_BINARY_DIR}")
  if(T_SERIAL)
    # Fake hosts share one set of namespaces and all the machine's cores, and what they
    # measure (latency, clock offsets) is what a neighbouring test's load would distort:
    # such a test runs alone.
    set_tests_properties(integration.${name} PROPERTIES RESOURCE_LOCK fakehosts RUN_SERIAL TRUE)
  endif()
endfunction()

file(GLOB GA_INTEGRATION_FAMILIES CONFIGURE_DEPENDS ${GA_INTEGRATION_DIR}/*.cmake)
list(REMOVE_ITEM GA_INTEGRATION_FAMILIES ${GA_INTEGRATION_DIR}/tests.cmake)
foreach(f ${GA_INTEGRATION_FAMILIES})
  include(${f})
endforeach()
