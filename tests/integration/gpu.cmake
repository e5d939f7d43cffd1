# GPU family: fake vendor libraries for the tests (never installed, never linked into the
# program: the probes dlopen them by path), and the integration tests.
set(GA_FAKES_DIR ${PROJECT_SOURCE_DIR}/tests/fakes)
foreach(mode ok init_fail old incomplete dev_fail)
  string(TOUPPER ${mode} MODE)
  add_library(fake_cuda_${mode} SHARED ${GA_FAKES_DIR}/fake_libcuda.c ${GA_FAKES_DIR}/fake_ptx.cpp)
  target_compile_definitions(fake_cuda_${mode} PRIVATE FAKE_CUDA_${MODE}=1)
endforeach()
add_library(fake_nvml SHARED ${GA_FAKES_DIR}/fake_libnvml.c)
add_library(fake_cublas SHARED ${GA_FAKES_DIR}/fake_libcublas.c)
add_library(fake_nccl SHARED ${GA_FAKES_DIR}/fake_libnccl.c)
add_library(fake_nccl_wrong SHARED ${GA_FAKES_DIR}/fake_libnccl.c)
target_compile_definitions(fake_nccl_wrong PRIVATE FAKE_NCCL_WRONG=1)
# An NCCL before 2.23: no ncclCommInitRankScalable (the probe falls back to ncclCommInitRank).
add_library(fake_nccl_old SHARED ${GA_FAKES_DIR}/fake_libnccl.c)
target_compile_definitions(fake_nccl_old PRIVATE FAKE_NCCL_NO_SCALABLE=1)
# Runs one rank of a fake-NCCL ring without MPI and counts the bytes its interfaces sent.
add_executable(nccl_ring_bytes ${GA_FAKES_DIR}/nccl_ring_bytes.c)
target_link_libraries(nccl_ring_bytes PRIVATE ${CMAKE_DL_LIBS})
find_package(Threads REQUIRED)
target_link_libraries(fake_nccl PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
target_link_libraries(fake_cublas PRIVATE ${CMAKE_DL_LIBS})
target_link_libraries(fake_nccl_wrong PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
target_link_libraries(fake_nccl_old PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
set(GA_GPU_FAKES fake_cuda_ok fake_cuda_init_fail fake_cuda_old fake_cuda_incomplete fake_cuda_dev_fail
    fake_nvml fake_cublas fake_nccl fake_nccl_wrong fake_nccl_old)
set_target_properties(${GA_GPU_FAKES} PROPERTIES C_VISIBILITY_PRESET default CXX_VISIBILITY_PRESET default)

if(TARGET test_probes)
  add_dependencies(test_probes ${GA_GPU_FAKES})
  foreach(f ${GA_GPU_FAKES})
    string(TOUPPER ${f} F)
    target_compile_definitions(test_probes PRIVATE GA_${F}="$<TARGET_FILE:${f}>")
  endforeach()
endif()

add_custom_target(gpu_fakes DEPENDS ${GA_GPU_FAKES} nccl_ring_bytes)
ga_integration_test(gpu_paths gpu_paths.sh TIMEOUT 240 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)

# resume-gpu through the whole program on the fakes (the PTX interpreted, NCCL over TCP between
# the ranks): this host and fake hosts, clean and with a miscomputing NCCL.
ga_integration_test(gpu.resume_local_clean resume_gpu.sh TIMEOUT 240
  ARGS local clean $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
ga_integration_test(gpu.resume_local_wrong resume_gpu.sh TIMEOUT 240
  ARGS local wrong $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl_wrong>)
ga_integration_test(gpu.resume_fake_hosts resume_gpu.sh TIMEOUT 240 SERIAL
  ARGS fake clean $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)

# The fake NCCL on fake hosts: the ring's bytes on each interface, one rail and two.
ga_integration_test(gpu.nccl_ring_bytes gpu_nccl_bytes.sh TIMEOUT 120 SERIAL
  ARGS $<TARGET_FILE:fake_nccl> $<TARGET_FILE:nccl_ring_bytes>)
# 4 fake hosts x 2 ranks: the nccl sweep's every collective over TCP, checked, and six GPU
# faults (GA_FAKE_GPU_FAULTS) each named at its GPU.
ga_integration_test(gpu.cluster_fakes gpu_cluster_fakes.sh TIMEOUT 420 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>
       $<TARGET_FILE:fake_nccl_old>)
# A hang or a death inside NCCL at 4 fake hosts x 2 ranks: a rank that never enters a
# collective (named, exit 3, within the deadline), a peer killed mid-collective (named), rank 0
# killed mid-run (the deputy writes the report, naming rank 0).
foreach(mode never_enter kill_peer kill_rank0)
  ga_integration_test(gpu.nccl_${mode} gpu_nccl_hang.sh TIMEOUT 150 SERIAL
    ARGS ${mode} $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)
endforeach()
# NCCL localization: the isolation pass on 4 fake hosts x 2 ranks, 2 rails: a clean run, a slow
# NIC, a slow host and a slow link, each named alone.
ga_integration_test(gpu.nccl_isolation gpu_nccl_isolation.sh TIMEOUT 600 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)
# The transport audit: the fake NCCL's NET/Socket on 2 fake hosts, one of them with RDMA ports.
ga_integration_test(gpu.nccl_transport gpu_nccl_transport.sh TIMEOUT 240 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nccl>)
# The soak (burn-in suite) on 2 fake hosts x 2 ranks: a clean 10 s soak passes; slow, mem_creep
# and throttle on three GPUs each fail there alone (the slow one named the straggler); a soak
# interrupted by SIGINT still writes a judged report.
ga_integration_test(gpu.soak gpu_soak.sh TIMEOUT 240 SERIAL
  ARGS $<TARGET_FILE:fake_cuda_ok> $<TARGET_FILE:fake_nvml> $<TARGET_FILE:fake_cublas> $<TARGET_FILE:fake_nccl>)
# The sdc probe on the fake CUDA's PTX interpreter: 1 and 4 fake hosts x 2 ranks, clean and with
# one GPU's second repetition one bit wrong (named alone at that GPU, with the element).
ga_integration_test(gpu.sdc gpu_sdc.sh TIMEOUT 180 SERIAL ARGS $<TARGET_FILE:fake_cuda_ok>)
