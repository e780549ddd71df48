#!/usr/bin/env python3
"""PyTorch at the shapes of scripts/elementwise_sweep.py, in the same device call (kernels/PERF.md).

For every (hidden, rows, dtype) of the sweep: the chain LayerNorm -> GELU (erf) -> Dropout(0.1) ->
+ residual and bias + GELU in eager mode, a device-to-device copy of the chain's minimum bytes
(read half, write half: what "the copy at this size" reaches), and with --compile torch.compile of
both while the deadline allows (one compile per shape: dynamic=False, the cache limit raised); the copy
is of each workload's own minimum bytes (chain: 3 tensors, bias+GELU: 2).
Each timed run follows an L2 flush (a 256 MiB write outside the events), median of the reps, CUDA
events. Writes OUT/torch.csv as it goes and prints one line per shape.

  scripts/elementwise_torch_sweep.py --out OUT [--compile] [--deadline UNIX_SECONDS] [--dtypes bf16,fp16,fp32]
                                     [--big-only] [--hiddens 16384,65536]
"""
import argparse
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elementwise_sweep import SHAPES  # noqa: E402  the same grid

DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def chain(x, res, w, b):
    h = F.layer_norm(x, (x.shape[-1],), w, b)
    h = F.gelu(h)
    h = F.dropout(h, p=0.1, training=True)
    return h + res


def bias_gelu(x, b):
    return F.gelu(x + b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--deadline", type=float, default=0)
    ap.add_argument("--dtypes", default="fp16,bf16,fp32")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--big-only", action="store_true", help="only the largest rows of each hidden")
    ap.add_argument("--hiddens", default="", help="only these hiddens (comma-separated; default: every hidden)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "torch_compile.csv" if a.compile else "torch.csv")
    f = open(path, "w", newline="")
    fields = ["mode", "workload", "dtype", "rows", "hidden", "median_ms", "min_bytes", "gbps", "copy_same_bytes_gbps"]
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    dev = "cuda"
    flush = torch.empty(256 * 2**20 // 4, device=dev, dtype=torch.float32)
    print("torch", torch.__version__, torch.cuda.get_device_name(0), flush=True)
    if a.compile:
        import torch._dynamo as dynamo
        for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                     "accumulated_recompile_limit"):
            if hasattr(dynamo.config, name):
                setattr(dynamo.config, name, 1024)

    def bench(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(a.reps):
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            ts.append(s.elapsed_time(e))
        ts.sort()
        return ts[len(ts) // 2]

    for dname in a.dtypes.split(","):
        dt = DT[dname]
        es = torch.tensor([], dtype=dt).element_size()
        for hidden, rows_list in SHAPES.items():
            if a.hiddens and str(hidden) not in a.hiddens.split(","):
                continue
            for rows in (rows_list[-1:] if a.big_only else rows_list):
                if a.deadline and time.time() > a.deadline:
                    print("deadline reached", flush=True)
                    return 0
                n = rows * hidden
                x = torch.randn(rows, hidden, device=dev, dtype=dt)
                res = torch.randn_like(x)
                g = torch.rand(hidden, device=dev, dtype=dt) + 0.5
                b = torch.rand(hidden, device=dev, dtype=dt) * 2 - 1
                chain_bytes, bg_bytes = (3 * n + 2 * hidden) * es, (2 * n + hidden) * es
                copy_gbps = {"chain": "", "bias_gelu": ""}
                if not a.compile:
                    # a device copy of each workload's minimum bytes (half read, half written)
                    for wl, mb in (("chain", chain_bytes), ("bias_gelu", bg_bytes)):
                        # 4-byte words, so the copy kernel moves 16-byte vectors as ours do
                        src = torch.empty(mb // 8, device=dev, dtype=torch.int32)
                        dst = torch.empty_like(src)
                        t = bench(lambda: dst.copy_(src))
                        copy_gbps[wl] = "%.0f" % (2 * 4 * src.numel() / (t * 1e-3) / 1e9)
                        del src, dst
                try:
                    if a.compile:
                        torch._dynamo.reset()
                        fc, fb = torch.compile(chain, dynamic=False), torch.compile(bias_gelu, dynamic=False)
                    else:
                        fc, fb = chain, bias_gelu
                    tc = bench(lambda: fc(x, res, g, b))
                    tb = bench(lambda: fb(x, b))
                except Exception as e:  # out of memory, a compile failure: say so, go on
                    print("%s %s %dx%d: %s" % (dname, "compile" if a.compile else "eager", rows, hidden, e), flush=True)
                    continue
                mode = "torch.compile" if a.compile else "eager"
                for wl, t, mb in (("chain", tc, chain_bytes), ("bias_gelu", tb, bg_bytes)):
                    w.writerow(dict(mode=mode, workload=wl, dtype=dname, rows=rows, hidden=hidden,
                                    median_ms="%.4f" % t, min_bytes=mb, gbps="%.0f" % (mb / (t * 1e-3) / 1e9),
                                    copy_same_bytes_gbps=copy_gbps[wl]))
                f.flush()
                print("%s %-13s %6d x %5d  chain %.4f ms  bias_gelu %.4f ms  copy(same bytes) %s / %s GB/s" % (
                    dname, mode, rows, hidden, tc, tb, copy_gbps["chain"] or "-", copy_gbps["bias_gelu"] or "-"),
                    flush=True)
                del x, res
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
