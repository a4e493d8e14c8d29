#!/usr/bin/env bash
# Installs Debian's headless Chromium and its driver when they are missing, so that the
# screenshot scripts and the browser tests need nothing installed by hand. Prints the path of
# the chromium binary. Needs root (or sudo) and Debian's package registry the first time only.
set -euo pipefail
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    echo "installing Debian's chromium and chromium-driver (first time only)..." >&2
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        chromium chromium-driver fonts-dejavu-core >&2
fi
command -v chromium
