#!/bin/sh
# The main job: install what is missing, build everything, run the demo.
# Usage: scripts/run.sh [demo options]   (see `build/tdbf-lab demo --help`)
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh build
make -s -j"$(nproc)" all
exec ./build/tdbf-lab demo "$@"
