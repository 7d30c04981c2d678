#!/bin/sh
# Sourced first by the host's study drivers (host/rt-report.sh, host/matrix-armhf.sh): strict
# mode, the project folder as the working directory, the results folder and its raw/ made, the
# start time (for the "in N s" line at the end).
set -eu
cd "$(dirname "$0")/.."
results=out/results
raw=$results/raw
mkdir -p "$raw"
start=$(date +%s)
