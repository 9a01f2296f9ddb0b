#!/usr/bin/env bash
# The Debian packages on a fresh machine: makes them in BUILD_DIR
# (cpack -G DEB), installs lumen_<version>_amd64.deb with apt-get in a fresh,
# minimal Debian 12 (debootstrap into a scratch directory, entered with
# chroot), collects and prints an experiment of a program built here, then
# installs lumen-dev_<version>_amd64.deb with a compiler and builds the
# out-of-tree example plugin (examples/fsync-plugin) against it and collects
# with that plugin.
#
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DLUMEN_REQUIRED_PLUGINS=all
#   cmake --build build-deb -j2
#   tools/package-test.sh build-deb          # KEEP=1: keep the system (path printed)
#   BASE=/tmp/bookworm tools/package-test.sh build-deb   # copy an untouched
#                                            # debootstrap --variant=minbase bookworm
#
# Needs root, debootstrap and Debian's package mirror (as apt-get does); not
# run by ctest. Takes about five minutes besides the build; cpack first builds
# what the build directory's `all` has not (with LUMEN_BUILD_TESTS, every test). The log of each
# step inside is <scratch>/root/root/NAME.log.
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "package-test: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
arch=$(dpkg --print-architecture)
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }

echo "package-test: cpack -G DEB in $build"
rm -f "$build"/lumen_*.deb "$build"/lumen-dev_*.deb
(cd "$build" && cpack -G DEB >"$build/cpack.log" 2>&1) || { tail -20 "$build/cpack.log"; exit 1; }
runtime_deb=$build/lumen_${version}_${arch}.deb
dev_deb=$build/lumen-dev_${version}_${arch}.deb
for deb in "$runtime_deb" "$dev_deb"; do
  [ -f "$deb" ] || { echo "package-test: cpack made no $deb" >&2; ls "$build"/*.deb >&2; exit 1; }
  echo "--- $(basename "$deb"):"
  dpkg-deb -f "$deb" Package Version Depends | sed 's/^/    /'
done
# What each package must hold, and what it must not.
expect() {  # expect DEB PATTERN...: each pattern matches a path in DEB
  local deb=$1 listing; shift
  listing=$(dpkg-deb -c "$deb" | awk '{print $6}')
  for pattern in "$@"; do
    grep -qE "^\./usr/$pattern\$" <<<"$listing" || { echo "package-test: $(basename "$deb") has no usr/$pattern" >&2; exit 1; }
  done
}
expect "$runtime_deb" bin/collect bin/er_print bin/er_html bin/analyzer lib/lumen/liblumen_collector.so \
  'lib/libcollectorAPI\.so\.1' 'lib/lumen/plugins/clock/(collector|analysis)\.so' lib/lumen/plugins/clock/manifest.yaml \
  'share/lumen/profiles/.*\.yaml' 'share/man/man1/collect\.1(\.gz)?' 'share/man/man1/analyzer\.1(\.gz)?' \
  share/bash-completion/completions/collect
# analyzer links cpp-httplib's shared library: the package must bring it.
dpkg-deb -f "$runtime_deb" Depends | grep -q 'libcpp-httplib' ||
  { echo "package-test: $(basename "$runtime_deb") does not depend on libcpp-httplib, which analyzer needs" >&2; exit 1; }
expect "$dev_deb" include/lumen/plugin_abi.h include/collectorAPI.h lib/libcollectorAPI.so lib/cmake/lumen/lumenConfig.cmake \
  lib/cmake/lumen/lumenConfigVersion.cmake lib/cmake/lumen/LumenPlugin.cmake lib/lumen/lumen-describe-plugin
if dpkg-deb -c "$runtime_deb" | grep -qE '\./usr/(include/|lib/cmake/|lib/libcollectorAPI\.so$)'; then
  echo "package-test: the SDK is in $(basename "$runtime_deb")" >&2; exit 1
fi
# No installed ELF file may look for libraries in the build tree.
unpacked=$(mktemp -d)
dpkg-deb -x "$runtime_deb" "$unpacked"; dpkg-deb -x "$dev_deb" "$unpacked"
if find "$unpacked" -type f -exec sh -c 'readelf -d "$1" 2>/dev/null | grep -E "R(UN)?PATH"' _ {} \; | grep -F "$build"; then
  echo "package-test: an installed file's RPATH names the build tree" >&2; exit 1
fi
rm -rf "$unpacked"

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
scratch=$(mktemp -d /tmp/package-test.XXXXXX)
root=$scratch/root
mounts=(proc sys dev)
cleanup() {
  local m
  for m in "${mounts[@]}"; do umount "$root/$m" 2>/dev/null || umount -l "$root/$m" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "package-test: kept $root"; return; fi
  # Never remove through a mount point into the host's /dev, /proc or /sys.
  if findmnt -rn -o TARGET | grep -q "^$root/"; then
    echo "package-test: $root still has mounts; not removed" >&2
  else
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT
if [ -n "${BASE:-}" ]; then
  echo "package-test: copying $BASE into $root"
  cp -a "$BASE" "$root"
else
  echo "package-test: debootstrap bookworm (minbase) into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$scratch/debootstrap.log" 2>&1 \
    || { tail -5 "$scratch/debootstrap.log"; exit 1; }
fi
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" && rm -f "$root/etc/apt/sources.list"
fi
mount -t proc proc "$root/proc"; mount --bind /sys "$root/sys"; mount --bind /dev "$root/dev"

# What goes in: the packages, a program built here (dynamically linked:
# collect refuses a static one; both systems are Debian 12), the example.
work=$root/root/work
mkdir -p "$work"
cp "$runtime_deb" "$dev_deb" "$work/"
cp -r "$top/examples/fsync-plugin" "$work/fsync-plugin"
rm -rf "$work/fsync-plugin/build"
cat >"$scratch/spin.c" <<'EOF'
#include <stdio.h>
__attribute__((noinline)) double spin_inner(long n) {
  double x = 0;
  for (long i = 1; i <= n; i++) x += 1.0 / (double)i;
  return x;
}
/* A different n each call: the compiler cannot reuse one call's result. */
__attribute__((noinline)) double spin_outer(int rounds) {
  double x = 0;
  for (int i = 0; i < rounds; i++) x += spin_inner(5000000 + i);
  return x;
}
int main(int argc, char** argv) { (void)argv; printf("%f\n", spin_outer(100 + argc)); return 0; }
EOF
cc -O1 -g -o "$work/spin" "$scratch/spin.c"

run() {  # run NAME SCRIPT: one step inside the fresh system, timed
  local start rc; start=$(date +%s)
  if chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
       DEBIAN_FRONTEND=noninteractive /bin/bash -euo pipefail -c "cd /root/work && $2" >"$root/root/$1.log" 2>&1; then
    rc=0
  else
    rc=$?
  fi
  echo "package-test: $1 exited $rc after $(( $(date +%s) - start )) s"
  [ $rc = 0 ] || { echo "--- last lines of $1.log:"; tail -25 "$root/root/$1.log"; }
  return $rc
}
show() { sed 's/^/    /' "$root/root/$1.log" | head -"${2:-40}"; }

run install-runtime "apt-get update -qq && apt-get install -y -q ./lumen_${version}_${arch}.deb"
grep -E '^(Setting up|The following NEW)' "$root/root/install-runtime.log" | sed 's/^/    /' | head -30
run collect "command -v collect er_print && collect -o /tmp/t.er ./spin && er_print -functions /tmp/t.er \
  && test -f /usr/share/bash-completion/completions/er_print && test -f /usr/share/man/man1/collect.1"
show collect 20
grep -q spin_inner "$root/root/collect.log" || { echo "package-test: er_print -functions shows no spin_inner" >&2; exit 1; }
# The analyzer from /usr: its page and a view, asked over loopback with the
# token it printed (bash's /dev/tcp: the minimal system has no HTTP client).
run analyzer 'analyzer --no-browser --port 0 /tmp/t.er >/tmp/analyzer.out 2>&1 & server=$!
  for i in $(seq 50); do grep -q "^analyzer: http" /tmp/analyzer.out && break; sleep 0.2; done
  url=$(sed -n "s/^analyzer: //p" /tmp/analyzer.out); port=${url#http://127.0.0.1:}; port=${port%%/*}
  token=${url##*token=}
  ask() { exec 3<>/dev/tcp/127.0.0.1/$port
    printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nX-Lumen-Token: %s\r\n\r\n" "$1" "$port" "$token" >&3
    cat <&3; exec 3<&-; }
  page=$(ask /); functions=$(ask "/api/view?cmd=functions")
  [[ $page == *assets/analyzer.js* ]] && grep -o "\"name\": \"spin_inner\"" <<<"$functions"
  kill $server; wait $server || true'
show analyzer 5
grep -q spin_inner "$root/root/analyzer.log" || { echo "package-test: the analyzer's functions show no spin_inner" >&2; exit 1; }
run install-dev "apt-get install -y -q ./lumen-dev_${version}_${arch}.deb build-essential"
run example "cmake -S fsync-plugin -B fsync-plugin/build && cmake --build fsync-plugin/build -j2 \
  && grep -q '^lumen_DIR:PATH=/usr/lib/cmake/lumen\$' fsync-plugin/build/CMakeCache.txt \
  && mkdir -p /tmp/fs && collect --plugin fsync-plugin/build/lumen-plugins/fsync -o /tmp/fs.er \
       fsync-plugin/build/fsync_target /tmp/fs /tmp/fs/truth.json \
  && er_print --plugin fsync-plugin/build/lumen-plugins/fsync -fsyncs /tmp/fs.er"
tail -12 "$root/root/example.log" | sed 's/^/    /'
# A program using the collector API, built as users build one: the header
# and -lcollectorAPI from the installed packages, no path given.
cat >"$work/api.c" <<'EOF'
#include <collectorAPI.h>
int main(void) { collector_sample("marked_here"); return 0; }
EOF
run api "cc -o api api.c -lcollectorAPI && ./api && collect -o /tmp/api.er ./api && er_print -samples /tmp/api.er"
grep -q 'API marked_here' "$root/root/api.log" || { echo "package-test: the API program's sample is not listed" >&2; show api; exit 1; }
echo "package-test: lumen $version installed and used on a fresh Debian 12; the example plugin built against lumen-dev"
