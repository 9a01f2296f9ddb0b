#!/usr/bin/env bash
# Hosts made on this machine for the tests of parallel jobs across hosts:
# network namespaces joined by a bridge in a namespace of its own (nothing
# changes in this machine's network, where other jobs run meanwhile), each
# with its own host name (a UTS namespace per command run in it), the
# shared file system of this one, and a node-local scratch directory:
# /tmp/lumen-test-scratch is, on host lumen-hN, its own
# /tmp/lumen-test-hosts/lumen-hN (a mount namespace). As hosts booted at
# different times, host lumen-hN's CLOCK_MONOTONIC runs N-1 hours ahead of
# this one's (a time namespace, where the kernel has them); wall clocks agree.
#   tools/test-hosts.sh create N     hosts lumen-h1..lumen-hN at 10.77.0.2..N+1,
#                                    and the launcher's host lumen-h0 at 10.77.0.1
#   tools/test-hosts.sh remove       removes them (and what a failed create left)
#   tools/test-hosts.sh launch COMMAND...
#                                    runs COMMAND (a launcher, or collect around
#                                    one) on the launcher's host
#   tools/test-hosts.sh [agent] [-OPTIONS] HOST COMMAND...
#                                    runs COMMAND in HOST (an address above or a
#                                    name): the launch agent, as ssh is called,
#                                    of Open MPI (--mca plm_rsh_agent) and
#                                    MPICH's Hydra (-launcher ssh -launcher-exec)
# Where sshd is installed, each host also runs one, as cluster nodes do:
# /tmp/lumen-test-hosts/ssh/ssh is then the ssh client with the hosts' key,
# a launch agent in place of this script; a command it runs starts in a
# fresh login environment, nothing inherited from the launcher.
# Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and ip(8).
set -euo pipefail
bridge=lumenbr0
switch=lumen-net
prefix=lumen-h
subnet=10.77.0
scratch=/tmp/lumen-test-scratch
scratch_root=/tmp/lumen-test-hosts
keys=$scratch_root/ssh

remove() {
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^($prefix[0-9]+|$switch)$" || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns delete "$ns"
  done
  # ip mounts its namespaces' directory on first use; left empty, it goes
  # too (inside a chroot it would keep the chroot's /run busy).
  if mountpoint -q /run/netns 2>/dev/null && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then umount /run/netns || true; fi
  rm -rf "$scratch_root"
  rmdir "$scratch" 2>/dev/null || true
  [[ -e /run/sshd.lumen-test-hosts ]] && rm -rf /run/sshd /run/sshd.lumen-test-hosts
  return 0
}

# A key for the hosts, a client configuration that uses it, and an sshd in
# each host (its network, host name, scratch and clock, as agent gives a
# command) that accepts it for root.
start_ssh_servers() {
  local count=$1 i ns
  mkdir -p "$keys"
  ssh-keygen -q -t ed25519 -N "" -f "$keys/host_key"
  ssh-keygen -q -t ed25519 -N "" -f "$keys/id"
  cp "$keys/id.pub" "$keys/authorized_keys"
  printf '%s\n' "HostKey $keys/host_key" "AuthorizedKeysFile $keys/authorized_keys" \
    "PermitRootLogin prohibit-password" "PasswordAuthentication no" "KbdInteractiveAuthentication no" \
    "UsePAM no" "StrictModes no" "PidFile none" >"$keys/sshd_config"
  printf '%s\n' "Host *" "  IdentityFile $keys/id" "  StrictHostKeyChecking no" "  UserKnownHostsFile /dev/null" \
    "  LogLevel ERROR" "  BatchMode yes" >"$keys/config"
  printf '#!/bin/sh\nexec ssh -F %s "$@"\n' "$keys/config" >"$keys/ssh"
  chmod +x "$keys/ssh"
  if [[ ! -d /run/sshd ]]; then mkdir -p /run/sshd && touch /run/sshd.lumen-test-hosts; fi
  for ((i = 1; i <= count; ++i)); do
    ns=$prefix$i
    local clock=()
    [[ -e $scratch_root/clocks-apart ]] && clock=(--time --monotonic $(((i - 1) * 3600)))
    setsid ip netns exec "$ns" unshare --uts --mount --propagation private --fork --kill-child "${clock[@]}" /bin/sh -c \
      'hostname "$0" && mount --bind "$1" "$2" && exec /usr/sbin/sshd -D -f "$3"' \
      "$ns" "$scratch_root/$ns" "$scratch" "$keys/sshd_config" </dev/null >"$keys/sshd-$ns.log" 2>&1 &
  done
  for ((i = 1; i <= count; ++i)); do
    local tries=0
    until ip netns exec "${prefix}0" "$keys/ssh" "$subnet.$((i + 1))" true 2>/dev/null; do
      ((++tries < 50)) || { echo "test-hosts: sshd in $prefix$i did not answer" >&2; cat "$keys/sshd-$prefix$i.log" >&2; return 1; }
      sleep 0.1
    done
  done
}

create() {
  local count=$1 i
  [[ $count =~ ^[0-9]+$ && $count -ge 1 && $count -le 200 ]] || { echo "test-hosts: create takes 1 to 200 hosts" >&2; exit 2; }
  remove
  trap 'echo "test-hosts: creating the hosts failed; removing what was made" >&2; remove' ERR
  ip netns add "$switch"
  ip -n "$switch" link add "$bridge" type bridge
  ip -n "$switch" link set "$bridge" up
  for ((i = 0; i <= count; ++i)); do
    ip netns add "$prefix$i"
    ip -n "$switch" link add "lumenv$i" type veth peer name eth0 netns "$prefix$i"
    ip -n "$switch" link set "lumenv$i" master "$bridge" up
    ip -n "$prefix$i" addr add "$subnet.$((i + 1))/24" dev eth0
    ip -n "$prefix$i" link set eth0 up
    ip -n "$prefix$i" link set lo up
    mkdir -p "$scratch_root/$prefix$i"
  done
  mkdir -p "$scratch"
  if unshare --fork --time --monotonic 3600 true 2>/dev/null; then touch "$scratch_root/clocks-apart"; fi
  if [[ -x /usr/sbin/sshd ]] && command -v ssh-keygen >/dev/null; then start_ssh_servers "$count"; fi
  trap - ERR
}

launch() {
  [[ $# -ge 1 ]] || { echo "test-hosts: launch COMMAND..." >&2; exit 2; }
  exec ip netns exec "${prefix}0" "$@"
}

agent() {
  while [[ $# -gt 0 && $1 == -* ]]; do shift; done  # ssh's options (Hydra passes -x)
  [[ $# -ge 2 ]] || { echo "test-hosts: agent HOST COMMAND..." >&2; exit 2; }
  local host=$1 ns
  shift
  case $host in
    "$subnet".*) ns=$prefix$((${host##*.} - 1)) ;;
    "$prefix"*) ns=$host ;;
    *) echo "test-hosts: no host $host here" >&2; exit 2 ;;
  esac
  # The launcher passes one command line, as ssh would run it in a shell.
  local clock=()
  [[ -e $scratch_root/clocks-apart && ${ns#"$prefix"} -ge 1 ]] &&
    clock=(--fork --kill-child --time --monotonic $(((${ns#"$prefix"} - 1) * 3600)))
  exec ip netns exec "$ns" unshare --uts --mount --propagation private "${clock[@]}" /bin/sh -c \
    'hostname "$0" && mount --bind "$1" "$2" && shift 2 && exec /bin/sh -c "$*"' \
    "$ns" "$scratch_root/$ns" "$scratch" "$@"
}

case ${1:-} in
  create) create "${2:-}" ;;
  remove) remove ;;
  launch) shift; launch "$@" ;;
  agent) shift; agent "$@" ;;
  ""|-h|--help) sed -n '2,24p' "$0" >&2; exit 2 ;;
  *) agent "$@" ;;
esac
