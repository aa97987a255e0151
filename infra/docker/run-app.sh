#!/bin/sh
# Container entrypoint: runs the app the image was built for (ARG APP), or the one named as the
# first argument (`docker run svc/keys migrate`). `exec` makes node PID 1, so SIGTERM reaches the
# app's own graceful shutdown.
set -eu
app="${1:-$APP}"
case "$app" in
  migrate) exec node dist/tools/migrate/src/main.js ;;
  gateway|chat|media|audio|billing|keys|wallet) exec node -r ./tools/register-paths.js "dist/apps/$app/src/main.js" ;;
  *) echo "run-app.sh: unknown app '$app'" >&2; exit 64 ;;
esac
