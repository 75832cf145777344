#!/usr/bin/env bash
# Host-side load for guest tests: freezes every qemu-system-x86_64 process
# for ON seconds in every PERIOD seconds (SIGSTOP, SIGCONT), as a hypervisor
# stealing the whole VM's time does on a loaded CI host. The guest's timers
# then fire late in bursts (vkms logs "vblank timer overrun"), which CPU
# hogs beside the guest do not cause. Runs until killed.
#
# usage: stutter.sh [ON [PERIOD]]   (default 0.03 0.1: 30 ms in every 100 ms)
#   tests/vm/stutter.sh & s=$!; meson test -C build fifo-commit-timing; kill $s
set -u
on=${1:-0.03} period=${2:-0.1}
off=$(awk -v a="$on" -v b="$period" 'BEGIN { print b - a }')
trap 'pkill -CONT -f qemu-system-x86_64; exit 0' INT TERM
while :; do
  if pkill -STOP -f qemu-system-x86_64; then
    sleep "$on"
    pkill -CONT -f qemu-system-x86_64
  fi
  sleep "$off"
done
