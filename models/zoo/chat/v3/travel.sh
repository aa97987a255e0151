#!/usr/bin/env bash
# What the `run` tool would send (tracked and untracked-not-ignored files that exist, plus the
# carried paths), against its 64 MiB limit. The tracked tree alone is ~69 MiB (the committed
# models), so around the call the large model files the GPU run does not need are set aside:
#   travel.sh check [carried paths...]   print the size
#   travel.sh hide                       move tracked files of 2 MB or more under models/ (the tokenizer
#                                        is smaller) to tmp/zoo/chat-v3-hidden/, marked skip-worktree so
#                                        that `git status` and `git commit -a` ignore their absence
#   travel.sh restore                    put them back and clear the mark (run it right after the call)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
HID=tmp/zoo/chat-v3-hidden
case "${1:-check}" in
  check)
    shift || true
    tree=$(git ls-files -z --cached --others --exclude-standard | { xargs -0 stat -c %s 2>/dev/null || true; } | awk '{s+=$1} END {print s+0}')
    carried=0
    for p in "$@"; do carried=$((carried + $(du -sb "$p" | cut -f1))); done
    awk -v t="$tree" -v c="$carried" 'BEGIN {printf "tree %.1f MiB + carried %.1f MiB = %.1f MiB (limit 64)\n", t/2^20, c/2^20, (t+c)/2^20; exit (t+c > 64*2^20)}'
    ;;
  hide)
    mkdir -p $HID
    git ls-files -z models | xargs -0 stat -c '%s %n' | awk '$1 >= 2000000 {print $2}' > $HID/list
    git update-index --skip-worktree $(cat $HID/list)
    while read -r f; do mkdir -p "$HID/$(dirname "$f")" && mv "$f" "$HID/$f"; done < $HID/list
    echo "set aside: $(tr '\n' ' ' < $HID/list)"
    ;;
  restore)
    [ -f $HID/list ] || { echo "nothing set aside"; exit 0; }
    # a file written meanwhile at its place (v2's train.sh saving its state) wins over the set-aside copy
    while read -r f; do if [ -e "$f" ]; then rm -f "$HID/$f"; elif [ -f "$HID/$f" ]; then mv "$HID/$f" "$f"; fi; done < $HID/list
    git update-index --no-skip-worktree $(cat $HID/list)
    rm $HID/list
    git status --short models | head
    echo restored
    ;;
esac
