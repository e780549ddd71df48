#!/usr/bin/env python3
"""Writes the register tables of the model from the compiler's own report.

The model shows what ptxas made of the kernels whose register use the lessons and views talk about:
registers, stack frame, spill stores and loads per thread. Those are facts of one compiler and one
architecture, so they come from `nvcc -Xptxas -v` for sm_90 (sm_90a for flash_wgmma, whose wgmma and
setmaxnreg exist only there), never typed by hand. Four tables:

  kernels/elementwise/row_kernel_registers.inc   every row_kernel instance (spill traffic of the
                                                 fused_spill variant, the memory animation's local memory)
  kernels/attention/flash_tc_registers.inc       every flash_tc instance (the register need of each
                                                 tile the user may choose)
  kernels/decode/decode_registers.inc            every key-loop instance of decode (the CUDA-core loop
                                                 of multi-head and the tensor-core loop of GQA)
  kernels/attention/flash_wgmma_registers.inc    every flash_wgmma_kernel instance (its spills: a few
                                                 bytes a thread since v5; tests/attention_model_test.cpp
                                                 holds them to the bounds written there)

  scripts/kernel_registers.py            print the tables
  scripts/kernel_registers.py --write    rewrite the files
  scripts/kernel_registers.py --check    exit 1 if a committed file differs from the compiler,
                                         77 (skipped) when nvcc's CUDA version is not the files'
Environment: NVCC (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc).
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCH = "sm_90"
DTYPES = {"float": "DType::f32", "__half": "DType::f16", "__nv_bfloat16": "DType::bf16"}
# row_kernel<T, kCpt, kVector, kFused> and spill_row_kernel<T, kCpt, kVector, true, true> -> the
# model's kernel name
ROW_NAMES = {"false": "layernorm", "true": "fused_chain"}


def row_kernel_row(name):
    # the last key: rows in sequence (v8's row_sequence_kernel, vector rows only)
    m = re.search(r"spill_row_kernel<([\w:]+), (\d+), (true|false), true, true>", name)
    if m:
        t, cpt, vector = m.groups()
        return '"fused_chain_spill", %s, %s, %s, false' % (DTYPES[t], cpt, vector)
    m = re.search(r"staged_row_kernel<([\w:]+), (true|false), (true|false)>", name)
    if m:  # the staged kernel takes any chunks per thread: the table's 0
        t, vector, fused = m.groups()
        return '"%s", %s, 0, %s, false' % (ROW_NAMES[fused], DTYPES[t], vector)
    m = re.search(r"row_sequence_kernel<([\w:]+), (\d+), (true|false)>", name)
    if m:
        t, cpt, fused = m.groups()
        return '"%s", %s, %s, true, true' % (ROW_NAMES[fused], DTYPES[t], cpt)
    m = re.search(r"(?<!spill_)row_kernel<([\w:]+), (\d+), (true|false), (true|false)>", name)
    if not m:
        return None
    t, cpt, vector, fused = m.groups()
    return '"%s", %s, %s, %s, false' % (ROW_NAMES[fused], DTYPES[t], cpt, vector)


def flash_tc_row(name):
    m = re.search(r"flash_tc_kernel<([\w:]+), (\d+), (\d+), (\d+), (true|false)>", name)
    if not m:
        return None
    t, d, bc, mt, skip = m.groups()
    return "%s, %s, %s, %d, %s" % (DTYPES[t], d, bc, 16 * int(mt), skip)


def flash_wgmma_row(name):
    m = re.search(r"flash_wgmma_kernel<([\w:]+), (\d+), (\d+), (\d), (\d), (true|false), (true|false), (\d+), (true|false)>", name)
    if not m:
        return None
    t, d, bc, wg, stages, skip, v6, producer, v14 = m.groups()
    return "%s, %s, %s, %d, %s, %s, %s, %s, %s" % (DTYPES[t], d, bc, 64 * int(wg), stages, skip, v6, v14, producer)


DECODE_MODES = {"0": "Variant::flash", "1": "Variant::split_kv", "2": "Variant::split_kv_fused"}


def decode_row(name):
    m = re.search(r"decode_loop_mma(_persistent)?<([\w:]+), (\d+), (\d)>", name)
    if m:
        persistent, t, d, mode = m.groups()
        return "true, %s, %s, %s, %s" % ("true" if persistent else "false", DECODE_MODES[mode], DTYPES[t], d)
    m = re.search(r"decode_loop<([\w:]+), (\d+), 1, (\d)>", name)
    if m:
        t, d, mode = m.groups()
        return "false, false, %s, %s, %s" % (DECODE_MODES[mode], DTYPES[t], d)
    return None


TABLES = [
    {
        "source": os.path.join("kernels", "elementwise", "elementwise.cu"),
        "file": os.path.join("kernels", "elementwise", "row_kernel_registers.inc"),
        "row": row_kernel_row,
        "what": "every row_kernel instance in kernels/elementwise/elementwise.cu",
        "key": "{kernel, dtype, chunks per thread (0: staged_row_kernel, any), vector path, rows in sequence (v8)",
        "source_name": "kRowKernelRegistersSource",
        "array": "constexpr RowKernelRegisters kRowKernelRegisters[] = {",
        # The model knows only the row kernels' register use there: any other kernel of the file that
        # spills would be traffic it cannot show, so say so loudly.
        "others_must_not_spill": True,
    },
    {
        "source": os.path.join("kernels", "attention", "attention_tc.cu"),
        "file": os.path.join("kernels", "attention", "flash_tc_registers.inc"),
        "row": flash_tc_row,
        "what": "every flash_tc_kernel instance in kernels/attention/attention_tc.cu",
        "key": "{dtype, d, Bc, rows per warp, skip epilogue",
        "source_name": "kFlashTcRegistersSource",
        "array": "constexpr FlashTcRegisters kFlashTcRegisters[] = {",
        "others_must_not_spill": False,
    },
    {
        "source": os.path.join("kernels", "decode", "decode.cu"),
        "file": os.path.join("kernels", "decode", "decode_registers.inc"),
        "row": decode_row,
        "what": "every key-loop instance in kernels/decode/decode.cu",
        "key": "{tensor cores, persistent grid, variant, dtype, d",
        "source_name": "kDecodeRegistersSource",
        "array": "constexpr DecodeRegisters kDecodeRegisters[] = {",
        "others_must_not_spill": True,
    },
    {
        "source": os.path.join("kernels", "attention", "attention_wgmma.cu"),
        "file": os.path.join("kernels", "attention", "flash_wgmma_registers.inc"),
        "row": flash_wgmma_row,
        "arch": "sm_90a",  # built for sm_90a only (cmake/gpu_module.cmake): for sm_90 the kernel is a __trap()
        "what": "every flash_wgmma_kernel instance in kernels/attention/attention_wgmma.cu",
        "key": "{dtype, d, Bc, Br, ring stages, skip epilogue, v6 softmax, v14 rescale in the turn, producer registers (setmaxnreg)",
        "source_name": "kFlashWgmmaRegistersSource",
        "array": "constexpr FlashWgmmaRegisters kFlashWgmmaRegisters[] = {",
        "others_must_not_spill": True,
    },
]


def nvcc_path():
    found = os.environ.get("NVCC") or shutil.which("nvcc")
    if not found and os.path.exists("/usr/local/cuda/bin/nvcc"):
        found = "/usr/local/cuda/bin/nvcc"
    if not found:
        sys.exit("kernel_registers: nvcc not found (set NVCC)")
    return found


def cuda_version(nvcc):
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else "unknown"


def demangle(names):
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt:
        sys.exit("kernel_registers: c++filt not found (binutils)")
    out = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def ptxas_report(nvcc, source, arch):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [nvcc, "-cubin", "-arch=" + arch, "-O3", "-std=c++20", "--expt-relaxed-constexpr", "-I" + ROOT,
               "-DFUSIONLAB_HAVE_CUDA=1", "-Xptxas", "-v", os.path.join(ROOT, source),
               "-o", os.path.join(tmp, "out.cubin")]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("kernel_registers: nvcc failed:\n" + run.stderr)
        return run.stderr


def parse(report):
    """[(mangled, registers, stack, spill stores, spill loads)] of every entry function."""
    entries, current, props = [], None, {}
    for line in report.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current, props = m.group(1), {}
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            props["stack"], props["stores"], props["loads"] = (int(g) for g in m.groups())
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            entries.append((current, int(m.group(1)), props.get("stack", 0), props.get("stores", 0),
                            props.get("loads", 0)))
            current = None
    return entries


def table(nvcc, spec, version):
    arch = spec.get("arch", ARCH)
    entries = parse(ptxas_report(nvcc, spec["source"], arch))
    rows, other_spills = [], []
    for (mangled, regs, stack, stores, loads), name in zip(entries, demangle([e[0] for e in entries])):
        key = spec["row"](name)
        if key is None:
            if stores or loads:
                other_spills.append(name)
            continue
        rows.append("    {%s, %d, %d, %d, %d}," % (key, regs, stack, stores, loads))
    if other_spills and spec["others_must_not_spill"]:
        sys.exit("kernel_registers: kernels other than the table's spill:\n  " + "\n  ".join(other_spills))
    head = [
        "// Generated by scripts/kernel_registers.py from `nvcc -Xptxas -v` (CUDA %s) for %s; do not edit." %
        (version, arch),
        "// Per thread, for %s:" % spec["what"],
        "// %s, registers, stack frame bytes, spill store bytes," % spec["key"],
        "//  spill load bytes}. ctest kernel_registers_current checks it against the compiler.",
        'constexpr const char* %s = "ptxas (CUDA %s), %s";' % (spec["source_name"], version, arch),
        spec["array"],
    ]
    return "\n".join(head + sorted(rows) + ["};", ""])


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("", "--write", "--check"):
        sys.exit(__doc__)
    nvcc = nvcc_path()
    version = cuda_version(nvcc)
    stale = False
    for spec in TABLES:
        path = os.path.join(ROOT, spec["file"])
        committed = open(path).read() if os.path.exists(path) else ""
        if mode == "--check":
            m = re.search(r"CUDA (\d+\.\d+)", committed)
            if m and m.group(1) != version:
                print("kernel_registers: %s is from CUDA %s, this nvcc is %s: not compared (skipped)" %
                      (spec["file"], m.group(1), version))
                sys.exit(77)
        text = table(nvcc, spec, version)
        if mode == "--write":
            open(path, "w").write(text)
            print("wrote " + path)
        elif mode == "--check":
            if text != committed:
                stale = True
                sys.stdout.write("kernel_registers: %s is out of date; run scripts/kernel_registers.py --write\n" %
                                 spec["file"])
                sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), text.splitlines(True),
                                                           "committed", "compiler"))
            else:
                print("kernel_registers: %s matches the compiler" % spec["file"])
        else:
            sys.stdout.write(text)
    if stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
