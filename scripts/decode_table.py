#!/usr/bin/env python3
"""The decode bench beside PyTorch, as kernels/PERF.md's tables show it (issue 33).

Reads `fusionlab bench --workload decode ... --json F` exports and a scripts/torch_reference.py file,
and prints one markdown row per shape: each variant's median time, split_kv_fused's cache bandwidth
(K and V bytes over its time) as a share of the copy ceiling measured in the same run, each SDPA
backend's time, and whether split_kv_fused beat them all.

  python3 scripts/decode_table.py bench-b1.json bench-b8.json ... [--reference reference.json]
"""
import argparse
import json
import math
import sys

VARIANTS = ["naive", "flash", "split_kv", "split_kv_fused"]
TORCH = ["sdpa_flash", "sdpa_mem_efficient", "sdpa_math"]


def key(p):
    return (int(p["batch"]), int(p["kv_len"]), int(p["heads"]), int(p["kv_heads"]), int(p["d"]), int(p.get("page", 0)))


def cache_bytes(k, es=2):
    b, n, h, g, d, _ = k
    return 2 * b * g * n * d * es


def us(ms):
    return "—" if ms is None else (f"{ms * 1e3:.1f} µs" if ms < 1 else f"{ms:.3f} ms")


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--reference", default="")
    a = ap.parse_args(argv)
    ours, ceiling, device, errors = {}, None, "", {}
    for path in a.bench:
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            continue
        for m in doc.get("measurements", []):
            if m.get("workload") != "decode":
                continue
            k = key(m["params"])
            if m.get("ok"):
                ours.setdefault(k, {})[m["variant"]] = m["time"]["median_ms"]
                errors.setdefault(k, {})[m["variant"]] = (m.get("check") or {}).get("rel_l2_error")
                ceiling = m["device"].get("measured_copy_gbps") or ceiling
                device = m["device"]["name"]
            else:
                ours.setdefault(k, {})[m["variant"]] = None
    torch = {}
    if a.reference:
        for r in json.load(open(a.reference)).get("rows", []):
            if r.get("workload") != "decode" or "time" not in r:
                continue
            p = dict(r["params"])
            torch.setdefault(key(p), {})[r["impl"]] = r["time"]["median_ms"]
    print(f"device {device}, copy ceiling {ceiling:.0f} GB/s" if ceiling else f"device {device}")
    print("| batch | kv_len | heads / kv_heads | page | " + " | ".join(VARIANTS) +
          " | split_kv_fused: cache GB/s (% of copy) | " + " | ".join(TORCH) + " | fused fastest? | split_kv / flash |")
    print("|" + "---|" * (5 + len(VARIANTS) + len(TORCH) + 2))
    for k in sorted(ours):
        b, n, h, g, d, page = k
        t = ours[k]
        fused = t.get("split_kv_fused")
        gbps = cache_bytes(k) / (fused * 1e6) if fused else None
        pct = f"{gbps:.0f} ({100 * gbps / ceiling:.0f} %)" if gbps and ceiling else "—"
        tt = torch.get((b, n, h, g, d, 0), {})
        beat = "—"
        if fused and tt:
            others = [v for v in tt.values() if v]
            beat = "yes" if others and all(fused < v for v in others) else "no"
        ratio = f"{t['flash'] / t['split_kv']:.1f}×" if t.get("flash") and t.get("split_kv") else "—"
        print(f"| {b} | {n} | {h} / {g} | {page} | " + " | ".join(us(t.get(v)) for v in VARIANTS) +
              f" | {pct} | " + " | ".join(us(tt.get(i)) for i in TORCH) + f" | {beat} | {ratio} |")
    worst = max((e for v in errors.values() for e in v.values() if e is not None and not math.isnan(e)), default=None)
    if worst is not None:
        print(f"largest relative L2 error against the float64 reference: {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
