#!/usr/bin/env python3
"""The shape sweep of the elementwise kernels (issue 34, point 1; kernels/PERF.md "Every shape").

Runs `fusionlab bench` over hidden = 768 ... 65536, rows chosen so the data is below and above
64 MiB, fp16 / bf16 / fp32: the fused chain (LayerNorm -> GELU -> Dropout -> add), bias+GELU
(unfused, whose bias_add and gelu kernels are ffn's, and fused), each at the configuration
kernels/elementwise/elementwise_shapes.cpp picks ("default"), then alternative configurations
forced through FUSIONLAB_ROW_CONFIG / FUSIONLAB_FLAT_CONFIG at the shapes where the choice matters.
Writes, as it goes, under OUT:
  csv/<job>.csv        each bench call's own export
  sweep.csv            one line per measurement: shape, config forced, time, % of the copy ceiling
  table.md             the same as a Markdown table
Percent of copy = minimum bytes (each input read once, the output written once) / median time,
over the copy ceiling that the same bench process measured at its start.

  scripts/elementwise_sweep.py --fusionlab build/fusionlab --out OUT [--phase default,alts,unfused]
                               [--deadline UNIX_SECONDS] [--reps 20] [--sim H100]
--sim runs the same sweep on a simulated GPU (to check the script without one).
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import time

# rows per hidden: one point below 64 MiB of data, two at or above (bf16 chain: 3 tensors)
SHAPES = {  # the shapes issue 34 names first (the sweep may stop at its deadline)
    16384: [256, 2048, 8192],
    7168: [512, 3000, 8192],
    65536: [256, 1024, 4096],
    8192: [512, 2048, 8192],
    768: [4096, 16384, 65536],
    1024: [4096, 16384, 65536],
    3072: [1024, 4096, 16384],
    4096: [1024, 4096, 16384],
}
DTYPES = "fp16,bf16,fp32"

# Alternative row layouts for the fused chain: (hidden, rows, dtypes, FUSIONLAB_ROW_CONFIG)
ROW_ALTS = [  # session 4 round 2 (2026-11-28): fp32 65536 staged (the pick) against register clusters at 4096 rows,
    # where round 1 measured 64.7 % (74.4 the last session); round 1 (H200) kept the other picks: clusters of 2 at
    # hidden 4096-16384 lost 5-22 points to one block per row, a cluster of 4 at 65536 2-3 points to 8
    (65536, 4096, "fp32", "cpt=4,tpr=512,ctas=4"), (65536, 4096, "fp32", "cpt=2,tpr=512,ctas=8"),
    (65536, 4096, "bf16", "cpt=4,tpr=512,ctas=4"),
]
# Alternative flat layouts for fused bias+GELU: (hidden, rows, dtypes, FUSIONLAB_FLAT_CONFIG)
FLAT_ALTS = []  # the evict-first hint (round 4 of the last session): +0.5 to +1.7 in bias+GELU bf16, not swept again

# The experiments of the staged row kernel and the evict-first hint (2026-11-28, round 3 of
# kernels/PERF.md), each forced layout beside the picked one in its own process: (workload, hidden,
# rows, dtypes, env name, forced config or "" for the picked layout). The persistent staged layouts
# it also ran (persist=1) lost by 10-20 points on an H200 and were removed.
EXPERIMENTS = [  # in order of importance: the deadline cuts the tail
    ("chain", 65536, "256,1024,4096", "bf16,fp16,fp32", "row", ""),
    ("chain", 65536, "1024", "bf16,fp32", "row", "cpt=4,tpr=256,ctas=8"),
    ("chain", 8192, "2048,8192", "bf16,fp32", "row", ""),
    ("chain", 8192, "2048,8192", "bf16", "row", "smem=1,tpr=256"),
    ("chain", 16384, "2048,8192", "bf16,fp32", "row", ""),
    ("chain", 16384, "2048,8192", "bf16,fp32", "row", "smem=1"),
    ("chain", 4096, "4096,16384", "bf16", "row", ""),
    ("chain", 4096, "4096,16384", "bf16", "row", "smem=1,tpr=128"),
    ("chain", 7168, "3000,8192", "bf16", "row", ""),
    ("chain", 1024, "16384,65536", "bf16", "row", ""),
    ("chain", 8192, "2048,8192", "bf16", "row", "cs=1"),
    ("bias_gelu", 8192, "2048,8192", "bf16,fp32", "flat", ""),
    ("bias_gelu", 8192, "2048,8192", "bf16,fp32", "flat", "cs=1"),
    ("chain", 65536, "1024", "bf16", "row", "smem=1,ctas=2"),
    ("chain", 7168, "3000,8192", "bf16", "row", "smem=1,tpr=224"),
    ("chain", 16384, "2048,8192", "bf16", "row", "smem=1,tpr=256"),
    ("chain", 1024, "16384,65536", "bf16", "row", "cs=1"),
]

ES = {"fp16": 2, "bf16": 2, "fp32": 4}


def jobs(phases):
    out = []
    if "default" in phases:
        for hidden, rows in SHAPES.items():
            rl = ",".join(str(r) for r in rows)
            out.append(dict(name="chain_fused_h%d" % hidden, workload="chain", variant="fused", dtype=DTYPES,
                            rows=rl, hidden=hidden, env={}, forced="", kernels=False, counters=True))
            out.append(dict(name="bias_gelu_h%d" % hidden, workload="bias_gelu", variant="all", dtype=DTYPES,
                            rows=rl, hidden=hidden, env={}, forced="", kernels=True, counters=True))
    if "proof" in phases:  # a short call: the picked layouts at the largest rows of each hidden, both fused kernels
        for hidden, rows in SHAPES.items():
            out.append(dict(name="proof_h%d" % hidden, workload="chain,bias_gelu", variant="fused", dtype=DTYPES,
                            rows=str(rows[-1]), hidden=hidden, env={}, forced="", kernels=False, counters=False))
    if "experiments" in phases:
        for i, (w, hidden, rows, dt, kind, cfg) in enumerate(EXPERIMENTS):
            var = "FUSIONLAB_ROW_CONFIG" if kind == "row" else "FUSIONLAB_FLAT_CONFIG"
            out.append(dict(name="exp%02d_%s_h%d" % (i, w, hidden), workload=w, variant="fused", dtype=dt, rows=rows,
                            hidden=hidden, env={var: cfg} if cfg else {}, forced=(kind + " " + cfg) if cfg else "",
                            kernels=False, counters=False))
    if "alts" in phases:
        for i, (hidden, rows, dt, cfg) in enumerate(ROW_ALTS):
            out.append(dict(name="chain_alt%02d_h%d" % (i, hidden), workload="chain", variant="fused", dtype=dt,
                            rows=str(rows), hidden=hidden, env={"FUSIONLAB_ROW_CONFIG": cfg}, forced="row " + cfg,
                            kernels=False, counters=False))
        for i, (hidden, rows, dt, cfg) in enumerate(FLAT_ALTS):
            out.append(dict(name="bias_gelu_alt%02d_h%d" % (i, hidden), workload="bias_gelu", variant="fused",
                            dtype=dt, rows=str(rows), hidden=hidden, env={"FUSIONLAB_FLAT_CONFIG": cfg},
                            forced="flat " + cfg, kernels=False, counters=False))
    if "pull" in phases:  # v6 (2026-11-28): the clusters' reductions pushed (the default) and pulled as v4 did, same process kind
        for reduction in ("push", "pull"):
            out.append(dict(name="cluster_%s_h65536" % reduction, workload="chain", variant="fused", dtype=DTYPES,
                            rows="1024,4096", hidden=65536,
                            env={"FUSIONLAB_CLUSTER_REDUCTION": "pull"} if reduction == "pull" else {},
                            forced="cluster reduction: pull (v4)" if reduction == "pull" else "",
                            kernels=False, counters=False))
    if "bounds" in phases:  # v6: the row kernel's bounds-checked path forced (FUSIONLAB_ROW_BOUNDS=checked) beside the picked one
        for hidden, rows in ((8192, "8192"), (65536, "4096"), (1024, "65536")):
            out.append(dict(name="bounds_checked_h%d" % hidden, workload="chain", variant="fused", dtype="fp16,bf16",
                            rows=rows, hidden=hidden, env={"FUSIONLAB_ROW_BOUNDS": "checked"},
                            forced="bounds checked per chunk", kernels=False, counters=False))
    if "fp32wide" in phases:  # v7 (2026-11-28): fp32 at hidden 65536 (the picked staged cluster of 2, 76 %) against
        # the register and staged clusters with the v6 push (the register clusters were last timed pulling)
        for i, cfg in enumerate(("", "cpt=2,tpr=512,ctas=8", "cpt=4,tpr=512,ctas=4", "cpt=4,tpr=256,ctas=8",
                                 "smem=1,tpr=512,ctas=4", "smem=1,tpr=256,ctas=8")):
            out.append(dict(name="fp32wide%d_h65536" % i, workload="chain", variant="fused", dtype="fp32",
                            rows="1024,4096", hidden=65536, env={"FUSIONLAB_ROW_CONFIG": cfg} if cfg else {},
                            forced=("row " + cfg) if cfg else "", kernels=False, counters=False))
    if "biasgelu16" in phases:  # v7: fused bias+GELU 16-bit at 192 and 256 MiB (87-90 % at v6) with 64 B per thread or evict-first
        for hidden, rows in ((3072, 16384), (8192, 8192)):
            for cfg in ("bytes=64", "cs=1"):
                out.append(dict(name="bias_gelu16_%s_h%d" % (cfg.replace("=", ""), hidden), workload="bias_gelu",
                                variant="fused", dtype="bf16,fp16", rows=str(rows), hidden=hidden,
                                env={"FUSIONLAB_FLAT_CONFIG": cfg}, forced="flat " + cfg, kernels=False, counters=False))
    if "alts7" in phases:  # v7 round 2: the 16-bit chain's slowest picks against other layouts (same process kind)
        for hidden, rows, cfg in ((16384, 8192, "cpt=4,tpr=256,ctas=2"), (7168, 8192, "cpt=2,tpr=448"),
                                  (8192, 8192, "cpt=2,tpr=512"), (65536, 4096, "cpt=2,tpr=512,ctas=8")):
            out.append(dict(name="alt7_%s_h%d" % (cfg.replace("=", "").replace(",", "_"), hidden), workload="chain",
                            variant="fused", dtype="bf16,fp16", rows=str(rows), hidden=hidden,
                            env={"FUSIONLAB_ROW_CONFIG": cfg}, forced="row " + cfg, kernels=False, counters=False))
    if "alts8" in phases:  # v8 (2026-11-28): rows in sequence against one row a block (v7), and other sequence lengths
        for hidden, rows, dt, cfg in ((16384, 8192, "bf16,fp16", "seq=1"), (16384, 8192, "bf16,fp16", "seq=2"),
                                      (65536, 4096, "bf16,fp16,fp32", "seq=1"), (65536, 4096, "bf16,fp16,fp32", "seq=2"),
                                      (65536, 1024, "bf16,fp32", "seq=1"), (65536, 1024, "bf16,fp32", "seq=4"),
                                      (8192, 8192, "bf16,fp16", "seq=4"), (16384, 8192, "fp32", "seq=4"),
                                      (7168, 8192, "bf16,fp16", "seq=4"), (1024, 65536, "bf16,fp16", "seq=4")):
            out.append(dict(name="alt8_%s_h%d_r%d" % (cfg.replace("=", ""), hidden, rows), workload="chain",
                            variant="fused", dtype=dt, rows=str(rows), hidden=hidden,
                            env={"FUSIONLAB_ROW_CONFIG": cfg}, forced="row " + cfg, kernels=False, counters=False))
    if "alts8b" in phases:  # v8 round 2: rows in sequence where round 1's launches were refused (the 48 KiB opt-in)
        for hidden, rows, cfg in ((65536, 4096, "seq=4"), (8192, 8192, "seq=4")):
            out.append(dict(name="alt8b_%s_h%d" % (cfg.replace("=", ""), hidden), workload="chain", variant="fused",
                            dtype="bf16,fp16", rows=str(rows), hidden=hidden, env={"FUSIONLAB_ROW_CONFIG": cfg},
                            forced="row " + cfg, kernels=False, counters=False))
    if "v9" in phases:  # v9 (2026-11-28): the leader warp's reduction (the default) against every warp's (v8), each in its
        # own process, twice in turn (leader, every_warp, leader, every_warp) at the rows of several warps and the clusters
        for rep in (1, 2):
            for hidden, rows in ((16384, 8192), (65536, 4096), (8192, 8192), (7168, 8192), (3072, 16384)):
                for reduction in ("leader", "every_warp"):
                    out.append(dict(name="v9_%s%d_h%d" % (reduction, rep, hidden), workload="chain", variant="fused",
                                    dtype="bf16,fp16,fp32", rows=str(rows), hidden=hidden,
                                    env={"FUSIONLAB_ROW_REDUCTION": reduction},
                                    forced="reduction: %s (%d)" % (reduction, rep), kernels=False, counters=False))
    if "alts9" in phases:  # v9 round 1: layouts that lost while every warp reduced, again with the leader's reduction
        for hidden, rows, cfg in ((65536, 4096, "cpt=4,tpr=512,ctas=4"), (16384, 8192, "cpt=4,tpr=256,ctas=2"),
                                  (16384, 8192, "cpt=4,tpr=128,ctas=4"), (8192, 8192, "cpt=4,tpr=128,ctas=2"),
                                  (7168, 8192, "cpt=3"), (3072, 16384, "cpt=3"), (768, 65536, "rpb=8"),
                                  (768, 65536, "rpb=2"), (3072, 16384, "rpb=2"), (7168, 8192, "rpb=2")):
            out.append(dict(name="alt9_%s_h%d" % (cfg.replace("=", "").replace(",", "_"), hidden), workload="chain",
                            variant="fused", dtype="bf16,fp16", rows=str(rows), hidden=hidden,
                            env={"FUSIONLAB_ROW_CONFIG": cfg}, forced="row " + cfg, kernels=False, counters=False))
    if "unfused" in phases:
        for hidden, rows in SHAPES.items():
            out.append(dict(name="chain_unfused_h%d" % hidden, workload="chain", variant="unfused", dtype="bf16",
                            rows=str(rows[-1]), hidden=hidden, env={}, forced="", kernels=True, counters=False))
    return out


def kernel_times(text):
    """'bias_add=0.0702ms/268435456B;gelu=0.0687ms/268435456B' -> {name: ms}"""
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"(\w+)=([0-9.eE+-]+)ms", text)}


def shapes_printed(stdout):
    """The bench table's shape column (rows x hidden and the layout the kernels launch with), keyed
    by (workload, variant, dtype, rows, hidden)."""
    out = {}
    for line in stdout.splitlines():
        m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+((\d+) x (\d+).*?)\s{2,}", line)
        if m:
            out[(m.group(1), m.group(2), m.group(3), int(m.group(5)), int(m.group(6)))] = m.group(4).strip()
    return out


def kernel_min_bytes(name, rows, hidden, es):
    n = rows * hidden
    return {"bias_add": (2 * n + hidden) * es, "gelu": 2 * n * es, "layernorm": (2 * n + 2 * hidden) * es,
            "dropout": 2 * n * es, "add": 3 * n * es}.get(name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fusionlab", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--phase", default="default,alts,unfused")
    ap.add_argument("--deadline", type=float, default=0, help="stop starting bench calls after this time (epoch s)")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--sim", default="")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "csv"), exist_ok=True)
    sweep_path, table_path = os.path.join(a.out, "sweep.csv"), os.path.join(a.out, "table.md")
    fields = ["phase", "workload", "variant", "kernel", "dtype", "rows", "hidden", "shape_and_config", "forced",
              "median_ms", "min_bytes", "data_mib", "ceiling_gbps", "pct_of_copy", "rel_l2", "measured_bytes", "ok",
              "error"]
    new = not os.path.exists(sweep_path)
    sweep = open(sweep_path, "a", newline="")
    writer = csv.DictWriter(sweep, fieldnames=fields)
    if new:
        writer.writeheader()
    table = open(table_path, "a")
    if new:
        table.write("| workload | variant | dtype | rows x hidden, configuration | forced | data MiB | ms | % of copy |\n"
                    "|---|---|---|---|---|---:|---:|---:|\n")
    phases = a.phase.split(",")
    for job in jobs(phases):
        if a.deadline and time.time() > a.deadline:
            print("deadline reached: stopping before %s" % job["name"], flush=True)
            break
        csv_path = os.path.join(a.out, "csv", job["name"] + ".csv")
        cmd = [a.fusionlab, "bench", "--workload", job["workload"], "--variant", job["variant"], "--dtype",
               job["dtype"], "--rows", job["rows"], "--hidden", str(job["hidden"]), "--reps", str(a.reps),
               "--csv", csv_path]
        if job["kernels"]:
            cmd.append("--kernels")
        cmd += ["--sim", a.sim] if a.sim else ["--backend", "gpu"]  # never a silent fallback to the simulator
        env = dict(os.environ)
        env.update(job["env"])
        if not job["counters"]:
            env["FUSIONLAB_COUNTERS"] = "off"
        left = (a.deadline - time.time()) if a.deadline else 600
        t0 = time.time()
        try:
            run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=max(5, min(120, left)))
            log = run.stdout + run.stderr
            printed = shapes_printed(run.stdout)
        except subprocess.TimeoutExpired as e:
            log = "TIMEOUT\n" + (e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else str(e.stdout or ""))
            printed = {}
        with open(os.path.join(a.out, "csv", job["name"] + ".log"), "w") as f:
            f.write(" ".join(cmd) + "\n" + " ".join("%s=%s" % kv for kv in job["env"].items()) + "\n" + log)
        print("%-24s %5.1f s  %s" % (job["name"], time.time() - t0, job["forced"] or "default"), flush=True)
        if not os.path.exists(csv_path):
            print("  no csv: " + log.strip().splitlines()[-1] if log.strip() else "  no csv", flush=True)
            continue
        for m in csv.DictReader(open(csv_path, newline="")):
            rows, hidden, dt = int(float(m["rows"])), int(float(m["hidden"])), m["dtype"]
            ok = m.get("ok", "") in ("1", "true", "yes")
            ms = float(m["median_ms"]) if m.get("median_ms") else 0.0
            ceiling = float(m["ceiling_gbps"]) if m.get("ceiling_gbps") else 0.0
            min_bytes = int(m["min_bytes"]) if m.get("min_bytes") else 0
            lines = [(m["variant"], "", ms, min_bytes)]
            if job["kernels"] and m.get("kernel_times"):
                for k, kms in kernel_times(m["kernel_times"]).items():
                    b = kernel_min_bytes(k, rows, hidden, ES.get(dt, 2))
                    if b:
                        lines.append((m["variant"], k, kms, b))
            for variant, kernel, t, b in lines:
                pct = 100.0 * b / (t * 1e-3) / 1e9 / ceiling if ok and t > 0 and ceiling > 0 else 0.0
                row = dict(phase=job["name"], workload=m["workload"], variant=variant, kernel=kernel, dtype=dt,
                           rows=rows, hidden=hidden, shape_and_config=printed.get((m["workload"], m["variant"], dt, rows, hidden), ""), forced=job["forced"],
                           median_ms="%.4f" % t, min_bytes=b, data_mib="%.1f" % (b / 2**20),
                           ceiling_gbps="%.0f" % ceiling, pct_of_copy="%.1f" % pct, rel_l2=m.get("rel_l2_error", ""),
                           measured_bytes=m.get("measured_bytes", ""), ok=int(ok), error=m.get("error", ""))
                writer.writerow(row)
                table.write("| %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                    m["workload"], variant + ("/" + kernel if kernel else ""), dt,
                    row["shape_and_config"] or "%d x %d" % (rows, hidden), job["forced"], row["data_mib"],
                    row["median_ms"] if ok else "-", row["pct_of_copy"] if ok else (m.get("error", "")[:60] or "failed")))
        sweep.flush()
        table.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
