#!/usr/bin/env python3
"""Measure what a user would run instead of fusionlab's kernels, on this GPU, the way fusionlab does.

For every configuration (a workload and its parameters, as `fusionlab bench` names them) this times
the PyTorch equivalents:

  chain      LayerNorm -> GELU -> dropout -> residual add     eager, torch.compile
  bias_gelu  GELU(x + bias)                                   eager, torch.compile
  attention  softmax(Q K^T / sqrt(d)) V (causal or not)       eager (the math written out), SDPA flash,
                                                              SDPA cuDNN, SDPA memory-efficient,
                                                              torch.compile of the math written out (the
                                                              row says what inductor made of it: its
                                                              compile seconds, whether its attention
                                                              pattern pass matched SDPA, the kernels of
                                                              one call)
  skip       c_skip(t) x + c_out(t) attention(q, k, v)        eager attention + skip, SDPA flash + skip
  launch     K dependent steps y = y * a + b                  eager (2 kernels a step), CUDA graph replay,
                                                              torch.compile
  ffn        GELU(x W1 + b1) W2 + b2 (F.linear with bias)     eager, torch.compile
  decode     one query row per (sequence, head) against a     SDPA flash, SDPA mem-efficient, SDPA math
             KV cache of kv_len keys, GQA (kv_heads)          (GQA by enable_gqa where the backend takes
                                                              it, else K and V repeated in the timed call,
                                                              as a user would); page > 0 is timed on the
                                                              contiguous cache (SDPA takes no page table)

Timing follows fusionlab's harness: warm-up runs, then each repetition timed by a pair of CUDA events,
median (with min and max) of the repetitions; random inputs (torch.randn, never zeros) in the same dtype
and shapes; the L2 flushed before each repetition (outside the timed region) when the data would fit in
it, except for launch, whose point is a vector that stays in L2 (fusionlab keeps it there too). fp32 is
true fp32: TF32 is switched off, as in fusionlab's kernels.

Input: a `fusionlab bench ... --json F` export (--from-json F: every parameter set and dtype in it, its
repetition count), or configurations given here (--config 'attention N=1024,4096 d=64 heads=64
causal=0,1 dtype=fp16': each comma list is swept, as bench does). Output: one reference file (JSON,
--out) that `fusionlab --reference FILE`, `fusionlab shot --reference FILE` and `fusionlab bench
--reference FILE` read and draw as reference rows beside fusionlab's own, never mixed with them. The
file is rewritten after every configuration, so a run cut short keeps what it measured.

--dry-run prints the plan (configurations, implementations, FLOPs and minimum bytes as fusionlab counts
them) without importing torch, so it runs anywhere.

Examples:
  python3 scripts/torch_reference.py --from-json bench.json --out reference.json
  python3 scripts/torch_reference.py --config 'chain rows=8192 hidden=8192 dtype=bf16' \\
      --config 'launch steps=1,10,100,1000 elements=65536 dtype=fp32' --out reference.json
"""

import argparse
import datetime
import itertools
import json
import math
import os
import shlex
import subprocess
import sys

FORMAT = "fusionlab-reference"
FORMAT_VERSION = 1

# The parameters that define each workload's computation for PyTorch, with fusionlab's defaults
# (the ParamSpec tables in kernels/<workload>/*_def.cpp). The tile sizes (br, bc) and the seed of
# fusionlab's Philox inputs have no PyTorch counterpart: they are not part of a reference row.
PARAMS = {
    "chain": {"rows": 4096, "hidden": 4096, "dropout": 0.1},
    "bias_gelu": {"rows": 4096, "hidden": 4096},
    "attention": {"N": 1024, "d": 64, "heads": 16, "causal": 0},
    "skip": {"N": 1024, "d": 64, "heads": 16, "batch": 4, "t": 1.0, "sigma_d": 0.5, "causal": 0},
    "launch": {"steps": 100, "elements": 65536},
    "ffn": {"M": 2048, "d_model": 4096, "d_ff": 0},
    "decode": {"batch": 8, "kv_len": 8192, "heads": 32, "kv_heads": 8, "d": 128, "page": 0},
}
# Parameters a bench export carries that do not change what PyTorch computes.
IGNORED = {"seed", "br", "bc", "splits"}
INTEGER = {"rows", "hidden", "N", "d", "heads", "causal", "batch", "steps", "elements", "M", "d_model", "d_ff",
           "kv_len", "kv_heads", "page"}

IMPLS = {
    "chain": ["eager", "compile"],
    "bias_gelu": ["eager", "compile"],
    "attention": ["eager", "sdpa_flash", "sdpa_cudnn", "sdpa_mem_efficient", "compile"],
    "skip": ["eager", "sdpa_flash"],
    "launch": ["eager", "cuda_graph", "compile"],
    "ffn": ["eager", "compile"],
    "decode": ["sdpa_flash", "sdpa_mem_efficient", "sdpa_math"],
}
IMPL_WORDS = {
    "eager": "eager",
    "compile": "torch.compile",
    "sdpa_flash": "SDPA flash",
    "sdpa_cudnn": "SDPA cuDNN",
    "sdpa_mem_efficient": "SDPA mem-efficient",
    "cuda_graph": "CUDA graph",
    "sdpa_math": "SDPA math",
}
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}

# fusionlab's launch workload: y = y * a + b (kernels/launch/launch.h).
LAUNCH_A, LAUNCH_B = 0.999, 0.0005


class PlanError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Configurations
# ---------------------------------------------------------------------------------------------
def number(text, name):
    try:
        v = float(text)
    except ValueError:
        raise PlanError(f"{name}: '{text}' is not a number")
    if not math.isfinite(v):
        raise PlanError(f"{name}: '{text}' is not a number")
    if name in INTEGER:
        if v != int(v):
            raise PlanError(f"{name}: '{text}' is not a whole number")
        return int(v)
    return v


def complete(workload, params, dtype):
    """Fills defaults, drops what PyTorch does not use, checks what fusionlab would refuse."""
    if workload not in PARAMS:
        raise PlanError(f"'{workload}' is not a workload (legal: {', '.join(PARAMS)})")
    if dtype not in DTYPE_BYTES:
        raise PlanError(f"dtype '{dtype}' is not fp32, fp16 or bf16")
    p = dict(PARAMS[workload])
    for k, v in params.items():
        if k in IGNORED:
            continue
        if k not in p:
            raise PlanError(f"{workload} takes no parameter '{k}' (legal: {', '.join(PARAMS[workload])})")
        p[k] = number(v, k) if isinstance(v, str) else (int(v) if k in INTEGER else float(v))
    for k, v in p.items():
        if k in INTEGER and v < (0 if k in ("causal", "d_ff", "page") else 1):
            raise PlanError(f"{workload} {k}={v} is out of range")
    if workload == "skip" and p["heads"] % p["batch"]:
        raise PlanError(f"skip: batch {p['batch']} does not divide heads (batch x heads) {p['heads']}")
    if workload == "decode":
        if p["heads"] % p["kv_heads"]:
            raise PlanError(f"decode: kv_heads {p['kv_heads']} does not divide heads {p['heads']}")
        if p["page"] not in (0, 16, 32, 64, 128, 256) or p["d"] not in (64, 128):
            raise PlanError(f"decode: page {p['page']} or d {p['d']} is not offered (page 0, 16 .. 256; d 64, 128)")
    if "causal" in p and p["causal"] not in (0, 1):
        raise PlanError(f"causal must be 0 or 1, not {p['causal']}")
    return {"workload": workload, "params": p, "dtype": dtype}


def parse_config(text):
    """'attention N=1024,4096 d=64 dtype=fp16' -> the configurations of the product of the lists."""
    words = shlex.split(text)
    if not words:
        raise PlanError("--config is empty")
    workload, lists = words[0], []
    dtypes, reps = ["bf16"], None
    for w in words[1:]:
        if "=" not in w:
            raise PlanError(f"--config '{text}': '{w}' is not NAME=VALUES")
        k, v = w.split("=", 1)
        items = [s.strip() for s in v.split(",")]
        if any(not s for s in items):
            raise PlanError(f"--config '{text}': {k} has an empty value")
        if k == "dtype":
            dtypes = items
        elif k == "reps":
            if len(items) != 1 or not items[0].isdigit() or not 1 <= int(items[0]) <= 1000:
                raise PlanError(f"--config '{text}': reps must be one whole number 1..1000")
            reps = int(items[0])
        else:
            lists.append((k, items))
    out = []
    for dtype in dtypes:
        for combo in itertools.product(*[items for _, items in lists]):
            c = complete(workload, {k: v for (k, _), v in zip(lists, combo)}, dtype)
            if reps:
                c["reps"] = reps
            out.append(c)
    return out


def same(a, b):
    return a["workload"] == b["workload"] and a["params"] == b["params"] and a["dtype"] == b["dtype"]


def configs_from_export(path):
    """Every distinct (workload, parameters, dtype) of a fusionlab JSON export, with its reps."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise PlanError(f"{path}: {e}")
    if not isinstance(doc, dict) or doc.get("tool") != "fusionlab" or not isinstance(doc.get("measurements"), list):
        raise PlanError(f"{path}: not a fusionlab export (no tool: fusionlab and measurements list)")
    out = []
    for i, m in enumerate(doc["measurements"]):
        where = f"{path}: measurements[{i}]"
        if not isinstance(m, dict) or not isinstance(m.get("params"), dict) or not isinstance(m.get("workload"), str):
            raise PlanError(f"{where}: needs workload and params")
        params = dict(m["params"])
        dtype = params.pop("dtype", "bf16")
        try:
            c = complete(m["workload"], params, dtype)
        except PlanError as e:
            raise PlanError(f"{where}: {e}")
        t = m.get("time") or {}
        if isinstance(t.get("reps"), int) and t["reps"] > 0:
            c["reps"] = t["reps"]  # as many as fusionlab timed
        if all(not same(c, o) for o in out):
            out.append(c)
    return out


# ---------------------------------------------------------------------------------------------
# FLOPs and minimum bytes, counted as fusionlab counts them (kernels/*/..._model.cpp)
# ---------------------------------------------------------------------------------------------
def counts(c):
    w, p, es = c["workload"], c["params"], DTYPE_BYTES[c["dtype"]]
    if w in ("chain", "bias_gelu"):
        n, h = p["rows"] * p["hidden"], p["hidden"]
        if w == "chain":  # LayerNorm 7, GELU 5, dropout 1, add 1 per element; read x, residual, gamma, beta; write out
            return 14.0 * n, (3 * n + 2 * h) * es
        return 6.0 * n, (2 * n + h) * es  # bias add 1 + GELU 5; read x, bias; write out
    if w in ("attention", "skip"):
        N, d, bh = p["N"], p["d"], p["heads"]
        flops = bh * (2.0 * N * (N + 1) * d if p["causal"] else 4.0 * N * N * d)
        tensor = bh * N * d * es
        if w == "attention":
            return flops, 4 * tensor  # read Q, K, V; write O
        return flops + 3.0 * bh * N * d, 5 * tensor  # + the skip's 3 per element; read q, k, v, x; write out
    if w == "decode":  # q Kᵀ and P V; read q, the cache (and the page table), write out
        b, n, h, g, d = p["batch"], p["kv_len"], p["heads"], p["kv_heads"], p["d"]
        table = b * (-(-n // p["page"])) * 4 if p["page"] else 0
        return 4.0 * b * h * n * d, 2 * b * h * d * es + 2 * b * g * n * d * es + table
    if w == "launch":
        return 2.0 * p["steps"] * p["elements"], 2 * p["elements"] * es
    if w == "ffn":
        M, dm, dff = p["M"], p["d_model"], p["d_ff"] or 4 * p["d_model"]  # d_ff 0: 4 x d_model, as fusionlab
        flops = 2.0 * M * dm * dff * 2 + M * dff * 6.0 + M * dm  # two GEMMs, bias + GELU, bias
        return flops, (2 * M * dm + 2 * dm * dff + dff + dm) * es  # x, W1, b1, W2, b2, out
    raise PlanError(f"no counts for {w}")


def describe(c):
    return c["workload"] + " " + " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                                          for k, v in c["params"].items()) + " " + c["dtype"]


# ---------------------------------------------------------------------------------------------
# Measuring (imports torch only here)
# ---------------------------------------------------------------------------------------------
class Bench:
    def __init__(self, args):
        import torch
        import torch.nn.functional as F
        self.torch, self.F = torch, F
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.dev = torch.device("cuda")
        self.props = torch.cuda.get_device_properties(0)
        self.warmup = args.warmup
        self.queued = args.queued
        self.l2 = getattr(self.props, "L2_cache_size", 50 << 20) or (50 << 20)
        self.flush_buf = None

    def dtype(self, name):
        t = self.torch
        return {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16}[name]

    def randn(self, *shape, dtype):
        return self.torch.randn(*shape, device=self.dev, dtype=dtype)

    def flush_l2(self):
        if self.flush_buf is None:
            self.flush_buf = self.torch.empty(2 * self.l2 // 4 + 1, device=self.dev, dtype=self.torch.float32)
        self.flush_buf.fill_(1.0)

    def time(self, fn, flush, reps):
        """Median, min, max of CUDA-event times of fn (ms), after warm-up."""
        torch = self.torch
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        ts, pairs = [], []
        for _ in range(reps):
            if flush:
                self.flush_l2()
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            if self.queued:
                pairs.append((a, b))  # no sync: the next rep queues behind this one, as fusionlab's reps do
            else:
                torch.cuda.synchronize()
                ts.append(a.elapsed_time(b))
        if self.queued:
            torch.cuda.synchronize()
            ts = [a.elapsed_time(b) for a, b in pairs]
        ts.sort()
        n = len(ts)
        median = ts[n // 2] if n % 2 else 0.5 * (ts[n // 2 - 1] + ts[n // 2])
        return {"median_ms": median, "min_ms": ts[0], "max_ms": ts[-1], "reps": n}

    def compiled(self, fn):
        return self.torch.compile(fn, dynamic=False)

    # Each returns {impl: (callable, note)}; a callable that cannot run raises when first called.
    def chain(self, p, dt):
        F = self.F
        rows, hidden, pdrop = p["rows"], p["hidden"], p["dropout"]
        x = self.randn(rows, hidden, dtype=dt)
        res = self.randn(rows, hidden, dtype=dt)
        w = self.randn(hidden, dtype=dt)
        b = self.randn(hidden, dtype=dt)

        def chain(x, res, w, b):
            h = F.layer_norm(x, (x.shape[-1],), w, b)
            h = F.gelu(h)
            h = F.dropout(h, p=pdrop, training=True)
            return h + res
        cchain = self.compiled(chain)
        return {"eager": (lambda: chain(x, res, w, b), "F.layer_norm, F.gelu, F.dropout(training=True), +: 4 ops"),
                "compile": (lambda: cchain(x, res, w, b), "torch.compile(dynamic=False) of the same function")}

    def bias_gelu(self, p, dt):
        F = self.F
        x = self.randn(p["rows"], p["hidden"], dtype=dt)
        b = self.randn(p["hidden"], dtype=dt)

        def bg(x, b):
            return F.gelu(x + b)
        cbg = self.compiled(bg)
        return {"eager": (lambda: bg(x, b), "F.gelu(x + bias): 2 ops"),
                "compile": (lambda: cbg(x, b), "torch.compile(dynamic=False) of the same function")}

    def sdpa(self, backend_name, q, k, v, causal):
        torch, F = self.torch, self.F
        try:
            from torch.nn.attention import sdpa_kernel, SDPBackend
            backend = {"sdpa_flash": SDPBackend.FLASH_ATTENTION,
                       "sdpa_cudnn": getattr(SDPBackend, "CUDNN_ATTENTION", None),
                       "sdpa_mem_efficient": SDPBackend.EFFICIENT_ATTENTION}[backend_name]
            if backend is None:
                raise RuntimeError("this PyTorch has no cuDNN SDPA backend")

            def run():
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            return run
        except ImportError:  # PyTorch < 2.3
            flags = {"sdpa_flash": (True, False, False), "sdpa_mem_efficient": (False, False, True)}
            if backend_name not in flags:
                raise RuntimeError("this PyTorch has no cuDNN SDPA backend")
            f, m, e = flags[backend_name]

            def run():
                with torch.backends.cuda.sdp_kernel(enable_flash=f, enable_math=m, enable_mem_efficient=e):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            return run

    def eager_attention(self, q, k, v, causal):
        torch = self.torch
        N, d = q.shape[-2], q.shape[-1]
        mask = torch.ones(N, N, device=self.dev, dtype=torch.bool).triu(1) if causal else None

        def run():
            s = (q @ k.transpose(-1, -2)) * (d ** -0.5)
            if mask is not None:
                s = s.masked_fill(mask, float("-inf"))
            return torch.softmax(s, dim=-1) @ v
        return run

    def math_attention(self, causal):
        """softmax(Q K^T / sqrt(d)) V written out, the causal mask made inside: what a user hands torch.compile."""
        torch = self.torch

        def attention(q, k, v):
            N, d = q.shape[-2], q.shape[-1]
            s = (q @ k.transpose(-1, -2)) * (d ** -0.5)
            if causal:
                s = s.masked_fill(torch.ones(N, N, device=q.device, dtype=torch.bool).triu(1), float("-inf"))
            return torch.softmax(s, dim=-1) @ v
        return attention

    def attention(self, p, dt):
        q = self.randn(1, p["heads"], p["N"], p["d"], dtype=dt)
        k, v = self.randn(*q.shape, dtype=dt), self.randn(*q.shape, dtype=dt)
        c = p["causal"]
        out = {"eager": (self.eager_attention(q, k, v, c),
                         "Q K^T, scale" + (", masked_fill" if c else "") + ", softmax, P V: S and P in HBM")}
        for impl in ("sdpa_flash", "sdpa_cudnn", "sdpa_mem_efficient"):
            out[impl] = (self.sdpa(impl, q, k, v, c), f"F.scaled_dot_product_attention(is_causal={bool(c)}), "
                         f"{IMPL_WORDS[impl]} backend only")
        compiled = self.compiled(self.math_attention(c))
        out["compile"] = (lambda: compiled(q, k, v), "torch.compile(dynamic=False) of Q K^T, scale" +
                          (", masked_fill (mask made inside)" if c else "") + ", softmax, P V")
        return out

    def inductor_made(self, fn):
        """What torch.compile made of fn, after its first call: whether inductor's attention pattern pass
        (fuse_attention) rewrote it to SDPA, and the GPU kernels of one call (torch.profiler), by name."""
        torch = self.torch
        made = {}
        try:
            from torch._dynamo.utils import counters
            made["fuse_attention_matches"] = int(counters["inductor"].get("fuse_attention", 0))
        except Exception as e:  # a PyTorch without the counter: say so
            made["fuse_attention_matches"] = f"unavailable: {type(e).__name__}"
        try:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                fn()
                torch.cuda.synchronize()
            kernels = {}
            for e in prof.events():
                if getattr(e, "device_type", None) is not None and "CUDA" in str(e.device_type):
                    kernels[e.name] = kernels.get(e.name, 0) + 1
            made["kernels"] = [{"name": n[:160], "calls": c} for n, c in sorted(kernels.items())]
        except Exception as e:
            made["kernels"] = f"unavailable: {type(e).__name__}: {e}"[:200]
        return made

    def skip(self, p, dt):
        torch = self.torch
        batch, bh, N, d = p["batch"], p["heads"], p["N"], p["d"]
        hpb, C = bh // batch, (bh // batch) * d
        q = self.randn(batch, hpb, N, d, dtype=dt)
        k, v = self.randn(*q.shape, dtype=dt), self.randn(*q.shape, dtype=dt)
        x = self.randn(batch, N, C, dtype=dt)
        sd = p["sigma_d"]
        t = torch.tensor([p["t"] * (b + 1) / batch for b in range(batch)], dtype=torch.float64)
        c_skip = (sd * sd / (t * t + sd * sd)).to(self.dev, dt).view(batch, 1, 1)
        c_out = (sd * t / torch.sqrt(sd * sd + t * t)).to(self.dev, dt).view(batch, 1, 1)

        def with_skip(attn):
            def run():
                f = attn().transpose(1, 2).reshape(batch, N, C)  # [batch, N, heads x d], as fusionlab's x and out
                return c_skip * x + c_out * f
            return run
        note = "; then transpose to [batch, N, C] and c_skip * x + c_out * F (eager ops)"
        return {"eager": (with_skip(self.eager_attention(q, k, v, p["causal"])), "eager attention" + note),
                "sdpa_flash": (with_skip(self.sdpa("sdpa_flash", q, k, v, p["causal"])), "SDPA flash" + note)}

    def decode(self, p, dt):
        """SDPA at one query row a head: q [batch, heads, 1, d] against K, V [batch, kv_heads, kv_len, d]."""
        torch, F = self.torch, self.F
        b, n, h, g, d = p["batch"], p["kv_len"], p["heads"], p["kv_heads"], p["d"]
        q = self.randn(b, h, 1, d, dtype=dt)
        k = self.randn(b, g, n, d, dtype=dt)
        v = self.randn(b, g, n, d, dtype=dt)
        from torch.nn.attention import sdpa_kernel, SDPBackend
        backends = {"sdpa_flash": SDPBackend.FLASH_ATTENTION, "sdpa_mem_efficient": SDPBackend.EFFICIENT_ATTENTION,
                    "sdpa_math": SDPBackend.MATH}
        paged = f"; page {p['page']} timed on the contiguous cache (SDPA takes no page table)" if p["page"] else ""
        out = {}
        for impl, backend in backends.items():
            def gqa(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

            def repeated(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k.repeat_interleave(h // g, dim=1),
                                                          v.repeat_interleave(h // g, dim=1))
            if h == g:
                out[impl] = (repeated, "F.scaled_dot_product_attention, one query row a head" + paged)
                continue
            try:  # enable_gqa where this backend takes it; else K and V repeated, as a user would
                gqa()
                torch.cuda.synchronize()
                out[impl] = (gqa, f"F.scaled_dot_product_attention(enable_gqa=True), {h // g} query heads a KV head" + paged)
            except Exception:
                out[impl] = (repeated, f"K and V repeat_interleave'd {h // g}x in the timed call (this backend refused "
                                       "enable_gqa), then F.scaled_dot_product_attention" + paged)
        return out

    def launch(self, p, dt):
        torch = self.torch
        K = p["steps"]
        x = self.randn(p["elements"], dtype=dt)

        def steps(x):
            y = x
            for _ in range(K):
                y = y * LAUNCH_A + LAUNCH_B
            return y
        csteps = self.compiled(steps)
        static_x = x.clone()
        graph = {}

        def replay():
            if "g" not in graph:
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        steps(static_x)
                torch.cuda.current_stream().wait_stream(s)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    graph["out"] = steps(static_x)
                graph["g"] = g
            graph["g"].replay()
        return {"eager": (lambda: steps(x), f"y = y * a + b, {K} times: {2 * K} kernels (mul, add)"),
                "cuda_graph": (replay, f"the eager steps captured once in a CUDA graph ({2 * K} kernel nodes), replayed"),
                "compile": (lambda: csteps(x), "torch.compile(dynamic=False) of the K steps")}

    def ffn(self, p, dt):
        F = self.F
        M, dm, dff = p["M"], p["d_model"], p["d_ff"] or 4 * p["d_model"]
        x = self.randn(M, dm, dtype=dt)
        w1, b1 = self.randn(dff, dm, dtype=dt) * dm ** -0.5, self.randn(dff, dtype=dt)
        w2, b2 = self.randn(dm, dff, dtype=dt) * dff ** -0.5, self.randn(dm, dtype=dt)

        def ffn(x):
            return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)
        cffn = self.compiled(ffn)
        return {"eager": (lambda: ffn(x), "F.linear(x, W1, b1), F.gelu, F.linear(., W2, b2)"),
                "compile": (lambda: cffn(x), "torch.compile(dynamic=False) of the same function")}

    def measure(self, c, impls):
        """One configuration: a row per implementation (a time, or the error that stopped it)."""
        torch = self.torch
        dt = self.dtype(c["dtype"])
        torch.manual_seed(1234)
        fns = getattr(self, c["workload"])(c["params"], dt)
        _, min_bytes = counts(c)
        flush = c["workload"] != "launch" and min_bytes < 2 * self.l2
        rows = []
        for impl in impls:
            fn, note = fns[impl]
            row = {"impl": impl, "note": note}
            try:
                if impl == "compile":
                    # The first call compiles (untimed, its seconds reported); the timed reps follow warm-ups as
                    # for every implementation. Attention also says what inductor made of the math.
                    import time as host_time
                    # A fresh compile per configuration: dynamo keys its cache on the function's code, which
                    # every configuration shares, and past its recompile limit (8) it would run eager unsaid.
                    torch._dynamo.reset()
                    if c["workload"] == "attention":
                        from torch._dynamo.utils import counters
                        counters["inductor"].clear()
                    start = host_time.perf_counter()
                    fn()
                    torch.cuda.synchronize()
                    row["compile_s"] = round(host_time.perf_counter() - start, 2)
                    if c["workload"] == "attention":
                        row["inductor"] = self.inductor_made(fn)
                row["time"] = self.time(fn, flush, c["reps"])
            except Exception as e:  # a backend that refuses these shapes: say why, measure the rest
                row["error"] = " ".join(f"{type(e).__name__}: {e}".split())[:300]
            torch.cuda.synchronize()
            rows.append(row)
        del fns
        torch.cuda.empty_cache()
        return rows, flush


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def short_version(v):
    parts = v.split("+")[0].split(".")
    return ".".join(parts[:2])


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------
def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--from-json", action="append", default=[], metavar="FILE",
                    help="a fusionlab bench --json export: measure each of its parameter sets")
    ap.add_argument("--config", action="append", default=[], metavar="SPEC",
                    help="'WORKLOAD NAME=V[,V...] ... dtype=D[,D]' (repeatable)")
    ap.add_argument("--impl", default="", metavar="LIST",
                    help="only these implementations (comma list of " + ", ".join(IMPL_WORDS) + ")")
    ap.add_argument("--reps", type=int, default=None,
                    help="timed repetitions (default: the export's, or --config's reps=N, else 50)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs first (default 5)")
    ap.add_argument("--queued", action="store_true",
                    help="keep the timed reps queued on the GPU, no sync between them, as fusionlab's harness "
                         "times kernel workloads: the host's time to issue a call (PyTorch's dispatch) then stays "
                         "outside the events unless it is longer than the GPU's work (default: sync after each rep)")
    ap.add_argument("--out", default="torch_reference.json", help="reference file to write")
    ap.add_argument("--dry-run", action="store_true", help="print the plan; import nothing, measure nothing")
    args = ap.parse_args(argv)

    try:
        configs = []
        for c in [c for path in args.from_json for c in configs_from_export(path)] + \
                 [c for text in args.config for c in parse_config(text)]:
            if all(not same(c, o) for o in configs):
                configs.append(c)
        if not configs:
            raise PlanError("nothing to measure: give --from-json FILE or --config SPEC")
        only = [s for s in args.impl.split(",") if s]
        for s in only:
            if s not in IMPL_WORDS:
                raise PlanError(f"--impl: '{s}' is not one of {', '.join(IMPL_WORDS)}")
        if args.reps is not None and not 1 <= args.reps <= 1000 or not 0 <= args.warmup <= 100:
            raise PlanError("--reps must be 1..1000 and --warmup 0..100")
        for c in configs:  # --reps wins; else the export's or the config's reps=; else fusionlab's 50
            c["reps"] = args.reps or c.get("reps") or 50
    except PlanError as e:
        print(f"torch_reference.py: {e}", file=sys.stderr)
        return 2

    plan = [(c, [i for i in IMPLS[c["workload"]] if not only or i in only]) for c in configs]
    if args.dry_run:
        print(f"plan: {len(plan)} configurations, {sum(len(i) for _, i in plan)} rows, "
              f"{args.warmup} warm-up runs each, CUDA events, median; out {args.out}")
        for c, impls in plan:
            flops, min_bytes = counts(c)
            print(f"{describe(c)}: {', '.join(impls) or '(none selected)'}; {c['reps']} reps; "
                  f"FLOPs {flops:.6g}, min bytes {min_bytes}")
        return 0

    bench = Bench(args)
    torch = bench.torch
    version = torch.__version__
    device, driver = bench.props.name, driver_version()
    command = "python3 scripts/torch_reference.py " + " ".join(shlex.quote(a) for a in argv)
    doc = {"tool": FORMAT, "format": FORMAT_VERSION, "command": command, "rows": []}
    print(f"device {device}, driver {driver}, PyTorch {version}, CUDA {torch.version.cuda}; "
          f"{args.warmup} warm-up runs", flush=True)
    for c, impls in plan:
        flops, min_bytes = counts(c)
        rows, flushed = bench.measure(c, impls)
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        for r in rows:
            row = {"label": f"PyTorch {short_version(version)} {IMPL_WORDS[r['impl']]}",
                   "framework": "PyTorch", "framework_version": version, "impl": r["impl"],
                   "device": device, "driver": driver, "cuda": torch.version.cuda or "", "date": date,
                   "command": command, "workload": c["workload"], "params": c["params"], "dtype": c["dtype"],
                   "warmup": args.warmup, "l2_flushed": flushed, "flops": flops, "min_bytes": min_bytes,
                   "note": r["note"]}
            for extra in ("compile_s", "inductor"):
                if extra in r:
                    row[extra] = r[extra]
            if "inductor" in r:
                made = r["inductor"]
                names = made["kernels"] if isinstance(made["kernels"], str) else \
                    "; ".join(f"{k['name']} x{k['calls']}" for k in made["kernels"])
                print(f"{describe(c)} {r['impl']:>18}: compiled in {r.get('compile_s', '?')} s; fuse_attention matches "
                      f"{made['fuse_attention_matches']}; kernels of one call: {names}", flush=True)
            if "time" in r:
                row["time"] = r["time"]
                t = r["time"]
                print(f"{describe(c)} {r['impl']:>18}: {t['median_ms']:.4f} ms ({t['min_ms']:.4f}-{t['max_ms']:.4f})"
                      f" {min_bytes / (t['median_ms'] * 1e6):8.1f} GB/s {flops / (t['median_ms'] * 1e9):8.1f} TFLOP/s",
                      flush=True)
            else:
                row["error"] = r["error"]
                print(f"{describe(c)} {r['impl']:>18}: unavailable: {r['error']}", flush=True)
            doc["rows"].append(row)
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, args.out)
    print(f"wrote {args.out} ({len(doc['rows'])} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
