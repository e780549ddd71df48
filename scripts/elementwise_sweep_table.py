#!/usr/bin/env python3
"""Markdown tables for kernels/PERF.md from one device run of scripts/device_shapes_run.sh:
the picked configuration at every shape beside PyTorch (eager, torch.compile) and a copy of the same
bytes, then every alternative layout against the picked one at its shape.

  scripts/elementwise_sweep_table.py RUN_DIR      (RUN_DIR holds sweep/sweep.csv and torch/*.csv)
"""
import csv
import os
import sys


def read(path):
    return list(csv.DictReader(open(path, newline=""))) if os.path.exists(path) else []


def main():
    run = sys.argv[1]
    sweep = read(os.path.join(run, "sweep", "sweep.csv"))
    torch_rows = read(os.path.join(run, "torch", "torch.csv")) + read(os.path.join(run, "torch", "torch_compile.csv"))
    torch_ms = {}
    copy_gbps = {}
    for t in torch_rows:
        key = (t["workload"], t["dtype"], int(t["rows"]), int(t["hidden"]))
        torch_ms[key + (t["mode"],)] = float(t["median_ms"])
        if t.get("copy_same_bytes_gbps"):
            copy_gbps[key] = float(t["copy_same_bytes_gbps"])
    ceilings = sorted({float(s["ceiling_gbps"]) for s in sweep if s["ok"] == "1" and float(s["ceiling_gbps"] or 0) > 0})
    print("copy ceilings measured by the bench processes: %s GB/s" % ", ".join("%.0f" % c for c in ceilings))
    print()
    print("| workload | dtype | rows × hidden | data MiB | layout (picked) | ms | **% of copy** | copy of the same bytes, % of ceiling"
          " | **% of the same-size copy** | PyTorch eager ms | torch.compile ms | × eager | × compile |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    picked = {}
    for s in sweep:
        if s["forced"] or s["kernel"] or s["variant"] not in ("fused",):
            continue
        key = (s["workload"], s["dtype"], int(s["rows"]), int(s["hidden"]))
        picked[key] = s
    order = sorted(picked, key=lambda k: (k[0], k[3], k[2], k[1]))
    for key in order:
        s = picked[key]
        wl, dt, rows, hidden = key
        layout = s["shape_and_config"].split(", ", 1)[1] if ", " in s["shape_and_config"] else ""
        ceiling = float(s["ceiling_gbps"] or 0)
        cp = copy_gbps.get(key)
        eager = torch_ms.get(key + ("eager",))
        comp = torch_ms.get(key + ("torch.compile",))
        ok = s["ok"] == "1"
        ms = float(s["median_ms"]) if ok else 0.0
        gbps = int(s["min_bytes"]) / (ms * 1e-3) / 1e9 if ms > 0 else 0.0
        print("| %s | %s | %d × %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            wl, dt, rows, hidden, s["data_mib"], layout, s["median_ms"] if ok else "—",
            ("**%s**" % s["pct_of_copy"]) if ok else (s["error"][:50] or "failed"),
            "%.0f" % (100 * cp / ceiling) if cp and ceiling else "—",
            "**%.0f**" % (100 * gbps / cp) if cp and gbps else "—",
            "%.4f" % eager if eager else "—", "%.4f" % comp if comp else "—",
            "%.2f" % (eager / ms) if eager and ms > 0 else "—", "%.2f" % (comp / ms) if comp and ms > 0 else "—"))
    print()
    print("ffn's elementwise kernels (bias_gelu unfused, per kernel):")
    print()
    print("| dtype | rows × hidden | data MiB | bias_add % | gelu % |")
    print("|---|---|---:|---:|---:|")
    per = {}
    for s in sweep:
        if s["kernel"] in ("bias_add", "gelu") and not s["forced"]:
            per.setdefault((s["dtype"], int(s["rows"]), int(s["hidden"])), {})[s["kernel"]] = s
    for (dt, rows, hidden), k in sorted(per.items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][0])):
        print("| %s | %d × %d | %s | %s | %s |" % (dt, rows, hidden, k.get("bias_add", {}).get("data_mib", ""),
                                                 k.get("bias_add", {}).get("pct_of_copy", "—"),
                                                 k.get("gelu", {}).get("pct_of_copy", "—")))
    print()
    print("Alternatives (forced layouts) against the picked one at the same shape:")
    print()
    print("| workload | dtype | rows × hidden | forced | layout | % of copy | picked % |")
    print("|---|---|---|---|---|---:|---:|")
    for s in sweep:
        if not s["forced"]:
            continue
        key = (s["workload"], s["dtype"], int(s["rows"]), int(s["hidden"]))
        base = picked.get(key)
        layout = s["shape_and_config"].split(", ", 1)[1] if ", " in s["shape_and_config"] else ""
        print("| %s | %s | %d × %d | `%s` | %s | %s | %s |" % (
            s["workload"], s["dtype"], int(s["rows"]), int(s["hidden"]), s["forced"], layout,
            s["pct_of_copy"] if s["ok"] == "1" else (s["error"][:40] or "failed"),
            base["pct_of_copy"] if base else "—"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
