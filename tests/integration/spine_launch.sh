#!/usr/bin/env bash
# gpuaccept launch (issue 13 item 2): the line it prints is the line it runs, a run through it
# ends in a judged report, and its bad usage is exit 2 naming what is wrong.
source "$(dirname "$0")/lib.sh"
out=$GA_TMP/run
opts=(--ranks-per-host 2 --oversubscribe --no-bind --mca btl=self,vader,tcp)
line=$("$GA_BIN" launch "${opts[@]}" --dry-run -- --suite quick --out "$out")
check "dry run: the mpirun line, this gpuaccept, the run's options after it" \
  bash -c "[[ '$line' == 'mpirun -np 2 --map-by ppr:2:node --oversubscribe --mca mpi_yield_when_idle 1 '*'--bind-to none --mca btl self,vader,tcp '*'$GA_BIN run --suite quick --out $out' ]]"
check "dry run ran nothing" test ! -e "$out"
line=$("$GA_BIN" launch "${opts[@]}" --dry-run -- run --suite quick)
check "run options that start with run keep one run ($line)" bash -c "[[ '$line' == *'$GA_BIN run --suite quick' ]]"
NCCL_DEBUG=WARN "$GA_BIN" launch "${opts[@]}" --dry-run -- --suite quick | grep -q -- "-x NCCL_DEBUG "
check "NCCL_* variables are forwarded by name, never by value" [ $? -eq 0 ]
"$GA_BIN" launch "${opts[@]}" -- --suite quick --out "$out" >"$GA_TMP/launch.out" 2>&1
rc=$?
check "a run through gpuaccept launch: exit 0" [ $rc -eq 0 ]
check "  its report judged 2 ranks" [ "$(jqr "$out/report.json" '.run.ranks | length')" = 2 ]
printf 'h1 slots=8\n' >"$GA_TMP/hosts"
"$GA_BIN" launch --hostfile "$GA_TMP/hosts" --hosts h2 --dry-run >/dev/null 2>"$GA_TMP/bad.err"
check "--hostfile with --hosts: exit 2" [ $? -eq 2 ]
check "  saying which" grep -q "excludes" "$GA_TMP/bad.err"
"$GA_BIN" launch --hostfile "$GA_TMP/absent" --dry-run >/dev/null 2>"$GA_TMP/nofile.err"
check "a hostfile that is not there: exit 2 naming it" bash -c "[ $? -eq 2 ] && grep -q '$GA_TMP/absent' '$GA_TMP/nofile.err'"
line=$("$GA_BIN" launch --hostfile "$GA_TMP/hosts" --ranks-per-host 8 --dry-run -- --suite default)
check "a hostfile's host slots=N line reads as the host" bash -c "[[ '$line' == 'mpirun -np 8 --host h1:8 '* ]]"
finish
