#!/usr/bin/env bash
# mpirun's remote shell for fake hosts: called like ssh, `rsh.sh [ssh options] HOST command...`,
# it runs the command inside HOST's network namespace with HOST as its hostname.
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
  case "$1" in
    -o|-p|-l|-i|-F) shift 2 ;;
    *) shift ;;
  esac
done
host=$1; shift
exec nsenter --net="/run/netns/$host" unshare --uts sh -c 'hostname "$0"; eval "exec $*"' "$host" "$@"
