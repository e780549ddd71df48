#!/usr/bin/env python3
"""The decode bench at several split counts, one markdown row per measurement (issue 33, v6).

scripts/decode_table.py keys its rows by shape and keeps one time per variant; a sweep over `--splits`
(and over the grid, FUSIONLAB_DECODE_GRID=waves|persistent, one JSON each) needs every point: this
prints each with its split count as chosen (the note's "N splits of K keys"), its median, the cache
bytes over that time and their share of the copy ceiling measured in the same run.

  python3 scripts/decode_grid_table.py grid-waves-b8.json grid-persistent-b8.json ...
"""
import json
import sys


def cache_bytes(p):
    return 2 * int(p["batch"]) * int(p["kv_heads"]) * int(p["kv_len"]) * int(p["d"]) * 2


def split_of(p):
    """kernels/decode/decode_model.cpp's split_of at d = 64 or 128: (splits, chunk)."""
    b, n, h, g, d = (int(p[k]) for k in ("batch", "kv_len", "heads", "kv_heads", "d"))
    mma = g < h
    group = h // g
    gp = max(x for x in range(1, min(group, 16) + 1) if group % x == 0) if mma else 1
    items = b * g * (group // gp if mma else 1)
    per_sm = (2 if d > 64 else 4) if mma else 4
    tile = 64 if mma else 4 * (32 // (d // 8)) * 4
    asked = int(p.get("splits", 0)) or min(max(132 * per_sm // items, 1), max(1, n // 256))
    per = -(-n // asked)
    chunk = -(-per // tile) * tile
    return -(-n // chunk), chunk


def main(paths):
    print("| file | variant | batch | kv_len | heads / kv_heads | page | splits asked | splits (keys) | median | cache GB/s (% of copy) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        name = path.rsplit("/", 1)[-1].removesuffix(".json")
        for m in data.get("measurements", []):
            p = m.get("params", {})
            if not m.get("ok") or "time" not in m:
                print(f"| {name} | {m.get('variant')} | {p.get('batch')} | {p.get('kv_len')} | | {p.get('page')} | {p.get('splits')} | "
                      f"| {'refused' if m.get('refused') else 'failed'}: {m.get('error', '')[:80]} | |")
                continue
            ms = m["time"]["median_ms"]
            copy = m.get("device", {}).get("measured_copy_gbps") or 0
            gbps = cache_bytes(p) / (ms * 1e-3) / 1e9
            splits, chunk = split_of(p)
            chosen = f"{splits} ({chunk})" if m["variant"].startswith("split") else "—"
            pct = f" ({100 * gbps / copy:.0f} %)" if copy else ""
            print(f"| {name} | {m['variant']} | {p['batch']} | {p['kv_len']} | {p['heads']} / {p['kv_heads']} | {p.get('page', 0)} | "
                  f"{p.get('splits', 0)} | {chosen} | {ms * 1e3:.1f} µs | {gbps:.0f}{pct} |")


if __name__ == "__main__":
    main(sys.argv[1:])
