#!/bin/sh
set -eu
case "${1:-redis-server}" in
  -*) set -- redis-server "$@" ;;
esac
if [ "${1:-redis-server}" = redis-server ]; then
  [ "$#" -gt 0 ] && shift
  exec redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
