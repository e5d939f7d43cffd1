# Collectives (issue 4): mpi-coll under mpirun, clean and with one corrupted element.
foreach(np 2 4)
  ga_integration_test(collectives.mpicoll_np${np} collectives_mpicoll.sh ARGS ${np} clean TIMEOUT 240)
endforeach()
ga_integration_test(collectives.mpicoll_corrupt_np2 collectives_mpicoll.sh ARGS 2 corrupt TIMEOUT 180)
ga_integration_test(collectives.mpicoll_corrupt_np4 collectives_mpicoll.sh ARGS 4 corrupt TIMEOUT 180)
