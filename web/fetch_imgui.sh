#!/usr/bin/env bash
# Fetches Dear ImGui 1.86's sources (Debian's source package `imgui`, the version libimgui-dev
# ships to the desktop build) into DEST, without touching the system's apt configuration: a
# private sources list with one deb-src line for the mirror the system already uses, and private
# list and cache folders under DEST. Idempotent: an unpacked tree already in DEST is kept.
#   web/fetch_imgui.sh DEST      -> DEST/imgui-1.86/{imgui.cpp,backends/...}
set -euo pipefail
dest=${1:?usage: fetch_imgui.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
tree="$dest/imgui-1.86"
if [[ -f "$tree/imgui.cpp" && -f "$tree/backends/imgui_impl_opengl3.cpp" ]]; then
  echo "imgui 1.86 sources: $tree (cached)"; exit 0
fi

# The mirror and suite the system's own apt sources name (deb822 .sources files or one-line .list).
mirror="" suite=""
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -f $f ]] || continue
  m=$(awk '/^URIs:/{print $2; exit}' "$f"); s=$(awk '/^Suites:/{print $2; exit}' "$f")
  if [[ -n $m && $m == *debian* && $m != *security* ]]; then mirror=$m; suite=$s; break; fi
done
if [[ -z $mirror ]]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    read -r m s < <(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if($i ~ /^(https?|file):/){print $i, $(i+1); exit}}' "$f") || true
    if [[ -n ${m:-} ]]; then mirror=$m; suite=$s; break; fi
  done
fi
if [[ -z $mirror ]]; then
  echo "fetch_imgui.sh: no Debian mirror found in /etc/apt/sources.list or /etc/apt/sources.list.d/" >&2
  exit 1
fi
suite=${suite%%-*}   # bookworm-updates -> bookworm

apt_dir="$dest/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb-src $mirror $suite main" > "$apt_dir/sources.list"
opts=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
      -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
echo "imgui 1.86 sources: from $mirror ($suite) through a private sources list in $apt_dir"
apt-get "${opts[@]}" -qq update
(cd "$dest" && apt-get "${opts[@]}" -qq source --download-only imgui)
tarball=$(ls "$dest"/imgui_1.86*.orig.tar.* 2>/dev/null | head -1)
if [[ -z $tarball ]]; then
  echo "fetch_imgui.sh: apt-get source gave no imgui_1.86 tarball (the suite's imgui is not 1.86?)" >&2
  exit 1
fi
rm -rf "$tree" "$dest/unpack"; mkdir -p "$dest/unpack"
tar -xf "$tarball" -C "$dest/unpack"
top=$(find "$dest/unpack" -maxdepth 2 -name imgui.cpp -printf '%h\n' | head -1)
mv "$top" "$tree"; rm -rf "$dest/unpack"
echo "imgui 1.86 sources: $tree"
