#!/bin/sh
set -eu
case "${1:-nats-server}" in
  -*) set -- nats-server "$@" ;;
esac
exec "$@"
