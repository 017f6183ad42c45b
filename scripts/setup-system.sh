#!/usr/bin/env bash
# System packages hexarena needs beyond python3 and make, installed only when missing.
set -euo pipefail

need=()
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
# The replay viewer's tests drive Debian's Chromium with Playwright (no browser download).
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The human-player test plays Small World in a real terminal under tmux.
command -v tmux >/dev/null 2>&1 || need+=(tmux)

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing Debian packages: ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
