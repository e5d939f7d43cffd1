# rdma: the probe on recorded sysfs trees under mpirun (tests/data/rdma/), judged end to end.
ga_integration_test(rdma_inventory rdma_inventory.sh TIMEOUT 240)
ga_integration_test(rdma_no_devices rdma_no_devices.sh TIMEOUT 180)
