#!/usr/bin/env python3
"""The SASS instructions where a kernel's warps stall most, from Nsight Compute's source page.

  ncu --import REPORT --page source --csv --print-source sass > page.csv
  scripts/ncu_top_stalls.py page.csv [N]

Prints the total of the stall samples, then the N (default 40) instructions with the most samples: their
address, the instruction, the share of all samples, and the non-zero per-reason columns the page has
(long scoreboard, barrier, ...). Used by scripts/device_shapes_proof_run.sh (elementwise v9, kernels/PERF.md),
so a device call brings back a few kilobytes instead of the report.
"""
import csv
import sys


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return 0.0


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if "Source" in l and "Address" in l), None)
    if start is None:
        print("no source table in %s; its first lines:" % path)
        print("\n".join(lines[:15]))
        return 1
    rows = list(csv.reader(lines[start:]))
    head = rows[0]
    total_col = next((i for i, h in enumerate(head) if h.startswith("Warp Stall Sampling (All")), None)
    if total_col is None:
        print("no stall sampling column; columns: " + " | ".join(head))
        return 1
    reason_cols = [i for i, h in enumerate(head) if h.startswith("stall_") or "Stall" in h and i != total_col
                   and "Not-issued" not in h and "All" not in h]
    body = [r for r in rows[1:] if len(r) == len(head)]
    total = sum(number(r[total_col]) for r in body)
    print("stall samples: %d over %d instructions (columns: %s)" % (total, len(body), head[total_col]))
    src = head.index("Source")
    addr = head.index("Address") if "Address" in head else 0
    for r in sorted(body, key=lambda r: -number(r[total_col]))[:top]:
        share = 100.0 * number(r[total_col]) / total if total else 0.0
        reasons = ", ".join("%s %d" % (head[i].replace("stall_", ""), number(r[i])) for i in reason_cols
                            if number(r[i]) > 0.05 * number(r[total_col]) and number(r[i]) > 0)
        print("%5.1f %%  %s  %-48s %s" % (share, r[addr], r[src].strip()[:48], reasons))
    return 0


if __name__ == "__main__":
    sys.exit(main())
