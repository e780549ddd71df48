# shellcheck shell=bash
# Sourced by scripts/device_gui.sh and scripts/device_diagnose.sh on the GPU machine: unpacks
# .gx/gx.tar.xz (scripts/device_gui_prepare.sh) into /tmp/gx once, puts the X files where the carried
# Xvfb and the app look for them (only where nothing is there: Xvfb runs xkbcomp from its build-time
# path; the app loads fonts from Debian's paths), and exports what the carried binaries need.
# Sets G (the unpacked folder) and F (the GUI build of fusionlab); returns 2 when .gx is missing.
G=/tmp/gx
if [ ! -x $G/bin/fusionlab ]; then
  mkdir -p $G
  if ! tar xJf .gx/gx.tar.xz -C $G; then echo "${0##*/}: cannot unpack .gx/gx.tar.xz (carry .gx)"; return 2; fi
fi
[ -e /usr/bin/xkbcomp ] || cp $G/bin/xkbcomp /usr/bin/xkbcomp
[ -d /usr/share/X11/xkb ] || { mkdir -p /usr/share/X11; cp -r $G/xkb /usr/share/X11/xkb; }
mkdir -p /usr/share/fonts/opentype/inter /usr/share/fonts/truetype/dejavu
for f in "$G"/fonts/inter/*; do [ -e "/usr/share/fonts/opentype/inter/${f##*/}" ] || cp "$f" /usr/share/fonts/opentype/inter/; done
for f in "$G"/fonts/dejavu/*; do [ -e "/usr/share/fonts/truetype/dejavu/${f##*/}" ] || cp "$f" /usr/share/fonts/truetype/dejavu/; done
export LD_LIBRARY_PATH=$G/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
export LIBGL_DRIVERS_PATH=$G/lib/dri FUSIONLAB_LESSONS=$PWD/lessons
# shellcheck disable=SC2034 # used by the scripts that source this file
F=$G/bin/fusionlab
# shellcheck disable=SC2034 # the soak test tool (tests/tools/soak_main.cpp), beside it
S=$G/bin/fusionlab_soak
