# clock probe: one host (fake chronyc), and 4 fake hosts with one clock set wrong by faketime
# (faketime reads "+5ms" as five minutes: 5 ms is written +0.005s). The fake hosts come two
# ways: network namespaces (tests/fakehosts, TCP between hosts) and UTS namespaces only (own
# hostname, shared memory between ranks; no machine-wide state, so they never collide with
# another test's fake hosts).
ga_integration_test(clock.single_host clock_single_host.sh TIMEOUT 180)
foreach(mode netns uts)
  if(mode STREQUAL uts)
    set(flag --uts)
  else()
    set(flag "")
  endif()
  ga_integration_test(clock.${mode}_hosts_clean clock_fake_hosts.sh TIMEOUT 180 SERIAL ARGS ${flag})
  ga_integration_test(clock.${mode}_hosts_skew_5s clock_fake_hosts.sh TIMEOUT 180 SERIAL ARGS ${flag} +5s ga-h4)
  ga_integration_test(clock.${mode}_hosts_skew_5ms clock_fake_hosts.sh TIMEOUT 180 SERIAL ARGS ${flag} +0.005s ga-h4)
  ga_integration_test(clock.${mode}_hosts_reference_skewed clock_fake_hosts.sh TIMEOUT 180 SERIAL ARGS ${flag} +5s ga-h1)
endforeach()
