# rdma: the probe on recorded sysfs trees under mpirun (tests/data/rdma/), judged end to end.
ga_integration_test(rdma_inventory rdma_inventory.sh TIMEOUT 240)
ga_integration_test(rdma_no_devices rdma_no_devices.sh TIMEOUT 180)

# The verbs data path on fake hosts through a fake libibverbs (tests/fakes/fake_libibverbs.c:
# QPs over TCP between the namespaces; loaded by path via GPUACCEPT_VERBS_LIBRARY, never
# through LD_LIBRARY_PATH). Never installed, never linked into the program.
add_library(fake_ibverbs SHARED ${PROJECT_SOURCE_DIR}/tests/fakes/fake_libibverbs.c)
find_package(Threads REQUIRED)
target_link_libraries(fake_ibverbs PRIVATE Threads::Threads)
set_target_properties(fake_ibverbs PROPERTIES C_VISIBILITY_PRESET default)
if(TARGET test_probes)
  add_dependencies(test_probes fake_ibverbs)
  target_compile_definitions(test_probes PRIVATE GA_FAKE_IBVERBS="$<TARGET_FILE:fake_ibverbs>")
endif()
ga_integration_test(rdma_verbs_fake_hosts rdma_verbs_fake_hosts.sh TIMEOUT 300 SERIAL
  ARGS $<TARGET_FILE:fake_ibverbs>)
