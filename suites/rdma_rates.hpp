// Port error counters over the whole run (issue 11): a judge extension, pure over the
// aggregated metrics, so the live run and `gpuaccept judge DIR` derive the same rates.
//
// The rdma probe reads every port's error counters at the start and at the end of the run
// (Probe::read_run_bound): `rdma.counter.<c>` at HOST/nic:PORT and `rdma.counters_read_at` (the
// host's monotonic clock) at HOST, each with params {read: start|end}. The probe derives
// nothing; from those samples this derives, per port, between the host's first and last
// reading (by its clock, whatever the readings are called):
//   rdma.counter_interval        seconds between the two readings
//   rdma.counter_rise.<c>        last minus first; a counter that went down was reset (or
//                                wrapped) and counts its last value
//   rdma.counter_per_bit.<c>     for symbol_error and port_rcv_errors: the rise per bit the link
//                                carried at its rate (rdma.rate_gbps) over the interval. A link
//                                sends symbols whether or not there is traffic, so this is a
//                                lower bound on its bit error rate (a bad packet holds at least one
//                                bad bit), the quantity the IBTA's 1e-12 bounds.
// A port with one reading (the run died before its end) or none gets nothing derived.
//
// The gpu probe's NVLink error counters (issue 12 item 7) derive the same way:
// `gpu.nvlink_counter.<c>` at HOST/gpu:K (c: replay, recovery, crc_flit, crc_data, each summed
// over the GPU's links) and `gpu.nvlink_counters_read_at` at HOST give, per GPU,
//   gpu.nvlink_counter_interval, gpu.nvlink_counter_rise.<c>, and
//   gpu.nvlink_counter_rate.<c>  for crc_flit and crc_data: the rise per second of the interval,
//                                the rate DCGM's health watch holds NVLink CRC errors to.
// derive_rdma_counter_metrics derives both families (the judge calls it by that name).
#pragma once
#include <vector>

#include "suites/judge.hpp"

namespace ga::judging {

std::vector<Metric> derive_rdma_counter_metrics(const std::vector<Metric>& metrics);
std::vector<Metric> derive_rdma_counter_metrics(const base::ByName<Metric>& by_name);  // the judge's: metrics_by_name

// Hook for the judge (after aggregate): appends the derived metrics, keeping the metrics'
// order (name, place, params), as the judge adds the other analyses' derived metrics.
void add_rdma_counter_metrics(std::vector<Metric>& metrics);

}  // namespace ga::judging
