#!/usr/bin/env bash
# Builds CUDA C++ exporting the lab's entries with nvcc: by default nvcc's twin of the lab's kernels
# (twin.cu beside this script). The one nvcc recipe of the lab: `cargo xtask build --nvcc` and
# `cargo xtask sweep --compare-nvcc [FILE.cu]` run it too; on a machine without Rust run it by hand.
#
#   nvcc/build.sh OUT [ARCH] [FILE.cu]
#
# ARCH: sm_80, sm_90, ... or native (the compute capability of GPU 0, read by nvidia-smi); default
# native. nvcc: $NVCC, else nvcc on PATH. Writes, for STEM the source's name without .cu:
#   OUT/STEM.ptx                the PTX, launch bounds on (its parameter lists are checkable)
#   OUT/STEM.cubin              ptxas's build of that PTX      + OUT/STEM.ptxas.txt (ptxas -v)
#   OUT/STEM_cap{N}.cubin       -DNO_LAUNCH_BOUNDS -DLAB_REGS_ONLY -maxrregcount=N, for each cap
#                               of the register experiment     + OUT/STEM_cap{N}.ptxas.txt
# (ptxas ignores -maxrregcount on an entry with launch bounds, hence NO_LAUNCH_BOUNDS.) The host
# reads a cubin's registers and spills from the .ptxas.txt beside it. With the twin as the source,
# also the twin's sm_90a module (twin_sm90a.cu), for sm_90a whatever ARCH, as xtask builds the Rust
# sm_90a module beside the main one (skipped, with a note, by an nvcc that does not take sm_90a):
#   OUT/twin_sm90a.ptx, OUT/twin_sm90a.cubin  + OUT/twin_sm90a.ptxas.txt
# where the host, given --compare OUT/twin.cubin, finds it. LAB_TWIN_SM90A=skip leaves that module
# out (and removes an old one from OUT): the tests build the twin for two architectures and need it once.
#
# ptxas runs with --split-compile=0 (its entries on every CPU) where nvcc takes the flag, on the
# PTX of the twin and of its sm_90a module: there it gives the same SASS and the same report,
# sooner. The front end (cicc) is not split, as that changes the PTX it writes; so the capped
# modules, which nvcc builds from the source in one step, are not split at all (split, a capped
# entry's spills and SASS change).
set -euo pipefail
usage="usage: nvcc/build.sh OUT [ARCH] [FILE.cu]"
out=${1:?$usage}
arch=${2:-native}
here=$(cd "$(dirname "$0")" && pwd)
source=${3:-$here/twin.cu}
nvcc=${NVCC:-nvcc}
stem=$(basename "$source" .cu)

if [ "$arch" = native ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0) ||
    { echo "build.sh: ARCH native needs nvidia-smi and a GPU; give sm_XX instead" >&2; exit 2; }
  arch=sm_${cc/./}
fi
# The caps come from the variant table, through the generated header.
caps=$(sed -n 's/^#define LAB_REGS_CAPS "\(.*\)"$/\1/p' "$here/variants.h")
[ -n "$caps" ] || { echo "build.sh: no LAB_REGS_CAPS in $here/variants.h" >&2; exit 1; }
mkdir -p "$out"
# nvcc's answers are read whole before grep looks at them: under pipefail, `nvcc ... | grep -q`
# fails when grep exits at its first match and nvcc, still writing, dies of SIGPIPE.
help=$("$nvcc" --help 2>/dev/null || true)
split=()
if grep -q -- '--split-compile' <<<"$help"; then split=(--split-compile=0); fi

# nvcc OUTPUT_STEM FLAGS...: one cubin and its ptxas report; on failure, the report is nvcc's errors.
cubin() {
  local name=$1
  shift
  if ! "$nvcc" -cubin -O3 -arch="$arch" -Xptxas -v "$@" -o "$out/$name.cubin" \
    2>"$out/$name.ptxas.txt"; then
    cat "$out/$name.ptxas.txt" >&2
    echo "build.sh: nvcc failed on $source ($name)" >&2
    exit 1
  fi
}

# The twin's sm_90a module, for sm_90a whatever ARCH (sm_90a comes with sm_90: nvcc lists only the
# latter). It depends on nothing else here, so it is built beside the main module.
hopper=$here/twin_sm90a.cu
sm90a() {
  local codes
  codes=$("$nvcc" --list-gpu-code 2>/dev/null || true)
  if ! grep -qx 'sm_90' <<<"$codes"; then
    echo "build.sh: note: $nvcc does not take sm_90a; the twin's sm_90a module is not built" >&2
    return 0
  fi
  "$nvcc" -ptx -O3 -arch=sm_90a "$hopper" -o "$out/twin_sm90a.ptx"
  if ! "$nvcc" -cubin -O3 -arch=sm_90a -Xptxas -v ${split[@]+"${split[@]}"} "$out/twin_sm90a.ptx" \
    -o "$out/twin_sm90a.cubin" 2>"$out/twin_sm90a.ptxas.txt"; then
    cat "$out/twin_sm90a.ptxas.txt" >&2
    echo "build.sh: nvcc failed on $hopper" >&2
    return 1
  fi
  echo "build.sh: $out/twin_sm90a.cubin for sm_90a"
}
hopper_pid=
if [ "$source" -ef "$here/twin.cu" ]; then
  rm -f "$out"/twin_sm90a.{ptx,cubin,ptxas.txt}
  if [ "${LAB_TWIN_SM90A:-}" = skip ]; then
    echo "build.sh: LAB_TWIN_SM90A=skip: the twin's sm_90a module is not built" >&2
  else
    sm90a &
    hopper_pid=$!
  fi
fi

# The launch-bounded module: the front end once to PTX, then ptxas on that PTX.
"$nvcc" -ptx -O3 -arch="$arch" "$source" -o "$out/$stem.ptx"
cubin "$stem" ${split[@]+"${split[@]}"} "$out/$stem.ptx"
# The capped modules are small (-DLAB_REGS_ONLY: the twin's capped modules hold only the register
# experiment's entry and its traced twin, as the Rust ones do; another file may ignore it): build them
# side by side.
pids=()
for cap in $caps; do
  cubin "${stem}_cap$cap" -DNO_LAUNCH_BOUNDS -DLAB_REGS_ONLY -maxrregcount="$cap" "$source" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "build.sh: $out/$stem.cubin and $(wc -w <<<"$caps") capped modules for $arch ($("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*'))"

if [ -n "$hopper_pid" ]; then
  wait "$hopper_pid" || exit 1
fi
