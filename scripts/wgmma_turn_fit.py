#!/usr/bin/env python3
"""Fit flash_wgmma's per-turn constants (kernels/attention/attention_model.cpp, flash_wgmma_sfu_hidden_share).

    scripts/wgmma_turn_fit.py [--fusionlab build/fusionlab] [--card H200]

A turn (one key tile of one consumer warpgroup) runs its products (T) and its softmax: X (1 + FIXED / Bc), X its
exp2, FIXED the per-row steps that do not grow with Bc, in exp2s. PARTNER of each partner warpgroup's turn hides
it. Then the rescale of Oi, d multiplies a row, RESCALE exp2s' worth each, which no partner hides. The schedule adds
exposed = max(0, 1 + FIXED / Bc - PARTNER (Br / 64 - 1) T / X) + RESCALE d / Bc times the exp2 time to the tensor
time (T / X = 4 d / kWgmmaFlopsPerExp2, read from attention_model.cpp).

The points: the held-out study's own (`fusionlab info --sim-heldout --repository . --points-csv`), so the turn is
fitted on what the calibration is fitted on, each point priced with its own machine's measured ceilings and the
calibration as built (the exp2 rate held to the SFUs' 16 a clock an SM by fit_calibration): every fitted point of
the card (the two thirds the FNV-1a split leaves in, chosen before any fit; superseded points out) whose time
the turn moves. That is the v14 tile table (assets/measurements/h200-bench-2026-11-28-v14: every tile at N =
1k-16k, d = 64 and 128, 16, 64 and 128 heads, causal and not), the recording's flash_wgmma and skip's wgmma
variants. The held-out third is priced too and printed beside, never fitted.

How: the simulated time of every point is close to linear in the exposed share (it adds to the tensor time,
which sets these compute-bound kernels' time), so three runs of the study with FUSIONLAB_SIM_WGMMA_TURN set give
each point's line and what its partners can hide: "0 0 0" (exposed 1), "64 0 0" (exposed 1 + 64 / Bc) and
"0 0.05 0" (the partners' products over the exp2 time as the model counts them, read rather than recomputed here).
FIXED (whole exp2s), PARTNER and RESCALE (steps of 0.01) are then fitted on those lines: a coarse grid, then
coordinate descent, as fit_calibration fits the calibration. The objective is fit_calibration's, the sum of
|log(simulated / measured)| over the fitted points (the points the turn does not move add a constant), so the two
fits, taken in turn, descend one objective. Prints the best three, the error by tile before and after, and the auto
pick's misses beyond 5 % on the v14 table (tests/auto_tile_test.cpp's bound). Put the three in attention_model.cpp
(kTurnFixedExp2PerRow, kTurnHiddenUnderPartner, kTurnRescaleExp2PerElement), rebuild, refit the calibration
(`fusionlab info --sim-heldout --repository .`), and run this again until neither moves.
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
# The third probe's partner share: small enough that no tile's softmax is hidden whole (the most a tile hides is two
# partners at d = 128, 5.5 exp2 times), so its exposed share reads the partners' products exactly.
PROBE_PARTNER = 0.05
REPO = os.path.dirname(HERE)
V14 = "h200-bench-2026-11-28-v14"


def model_constants():
    text = open(os.path.join(REPO, "kernels", "attention", "attention_model.cpp"), encoding="utf-8").read()

    def const(name):
        m = re.search(r"inline constexpr double " + name + r" = ([\d.]+);", text)
        if not m:
            sys.exit(f"wgmma_turn_fit: {name} not found in kernels/attention/attention_model.cpp")
        return float(m.group(1))

    return (const("kTurnFixedExp2PerRow"), const("kTurnHiddenUnderPartner"), const("kTurnRescaleExp2PerElement")), \
        const("kWgmmaFlopsPerExp2")


def study_points(fusionlab, turn, folder, name):
    path = os.path.join(folder, name)
    cmd = [fusionlab, "info", "--sim-heldout", "--repository", REPO, "--points-csv", path]
    env = dict(os.environ)
    if turn is None:
        env.pop("FUSIONLAB_SIM_WGMMA_TURN", None)
    else:
        env["FUSIONLAB_SIM_WGMMA_TURN"] = turn
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"wgmma_turn_fit: {' '.join(cmd)} failed: {r.stderr.strip()[-400:]}")
    rows = {}
    for row in csv.DictReader(open(path, encoding="utf-8")):
        rows[(row["card"], row["source"], row["key"])] = row
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--fusionlab", default=os.path.join(REPO, "build", "fusionlab"))
    ap.add_argument("--card", default="H200")
    a = ap.parse_args()
    if not os.access(a.fusionlab, os.X_OK):
        sys.exit(f"wgmma_turn_fit: no fusionlab binary at {a.fusionlab} (--fusionlab PATH)")
    built, flops_per_exp2 = model_constants()

    def exposed(fixed, partner, rescale, hidable, bc, d):
        # hidable: the partners' products over the exp2 time, (consumer warpgroups on the SM - 1) T / X, as the model
        # has it (a third probe reads it, so two blocks sharing an SM count as partners without this script knowing).
        return max(0.0, 1.0 + fixed / bc - partner * hidable) + rescale * d / bc

    with tempfile.TemporaryDirectory() as folder:
        s0 = study_points(a.fusionlab, "0 0 0", folder, "turn0.csv")
        s1 = study_points(a.fusionlab, "64 0 0", folder, "turn64.csv")
        s2 = study_points(a.fusionlab, f"0 {PROBE_PARTNER} 0", folder, "partner.csv")
    # Each point the turn moves: its line (time at exposed 0, slope), measured time, side of the split.
    points = []
    for key, r0 in s0.items():
        r1, r2 = s1.get(key), s2.get(key)
        if r0["card"] != a.card or r0["superseded"] == "1" or r1 is None or r2 is None or not r0["br"]:
            continue
        t0, t1, t2 = float(r0["simulated_ms"]), float(r1["simulated_ms"]), float(r2["simulated_ms"])
        if t1 == t0:
            continue  # the turn does not price it
        br, bc, d = int(float(r0["br"])), int(float(r0["bc"])), int(float(r0["d"]))
        slope = (t1 - t0) / (64.0 / bc)  # exposed 1 + 64 / Bc against 1
        base = t0 - slope
        hidable = (1.0 - (t2 - base) / slope) / PROBE_PARTNER
        points.append(dict(line=(base, slope), meas=float(r0["measured_ms"]), held=r0["held_out"] == "1",
                           br=br, bc=bc, d=d, hidable=hidable, N=int(float(r0["N"])), heads=int(float(r0["heads"])),
                           causal=int(float(r0["causal"])), v14=V14 in r0["source"] and r0["variant"] == "flash_wgmma",
                           what=r0["variant"] + " " + r0["source"]))
    fitted = [p for p in points if not p["held"]]
    held = [p for p in points if p["held"]]
    if len(fitted) < 100:
        sys.exit(f"wgmma_turn_fit: {len(fitted)} fitted points the turn prices on {a.card} (expected the v14 table's ~200)")

    def pred(p, fixed, partner, rescale):
        a0, b = p["line"]
        return a0 + b * exposed(fixed, partner, rescale, p["hidable"], p["bc"], p["d"])

    def objective(ps, *c):
        return sum(abs(math.log(pred(p, *c) / p["meas"])) for p in ps)

    def mae(ps, *c):
        return sum(abs(pred(p, *c) / p["meas"] - 1) for p in ps) / max(1, len(ps))

    # A coarse grid, then coordinate descent on the fine one (FIXED in whole exp2s, the shares in hundredths).
    coarse = [(f, k / 20, r / 20) for f in range(0, 129, 8) for k in range(0, 21) for r in range(0, 21)]
    best = min(coarse + [tuple(built)], key=lambda c: objective(fitted, *c))
    steps = (1, 0.01, 0.01)
    for _ in range(1000):
        moved = False
        for i, step in enumerate(steps):
            for sign in (1, -1):
                while True:
                    c = list(best)
                    c[i] = round(c[i] + sign * step, 2)
                    if c[i] < 0 or not objective(fitted, *c) < objective(fitted, *best) - 1e-9:
                        break
                    best, moved = tuple(c), True
        if not moved:
            break
    print(f"{a.card}: {len(fitted)} fitted points the turn prices ({sum(p['v14'] for p in fitted)} of the v14 table), "
          f"{len(held)} held out; T / X = 4 d / {flops_per_exp2:g}")
    for name, c in (("built in", built), ("best", best)):
        print(f"  {name:8s} FIXED {c[0]:g}, PARTNER {c[1]:.2f}, RESCALE {c[2]:.2f}: sum |log| {objective(fitted, *c):.4f}; "
              f"mean |error| fitted {100 * mae(fitted, *c):.1f} %, held out {100 * mae(held, *c):.1f} %")

    # The error by tile (d, Br x Bc), every point the turn prices (fitted and held out), before and after.
    by_tile = defaultdict(list)
    for p in points:
        by_tile[(p["d"], p["br"], p["bc"])].append(p)
    print("  mean error by tile (d, Br x Bc: points, built in -> best):")
    for t in sorted(by_tile):
        ps = by_tile[t]
        e0 = sum(pred(p, *built) / p["meas"] - 1 for p in ps) / len(ps)
        e1 = sum(pred(p, *best) / p["meas"] - 1 for p in ps) / len(ps)
        print(f"    d = {t[0]:3d}, {t[1]:3d} x {t[2]:3d}: {len(ps):3d}, {100 * e0:+5.1f} -> {100 * e1:+5.1f} %")

    # The auto pick on the v14 table (every point, both sides: the pick is judged on the measured tiles).
    shapes = defaultdict(dict)
    for p in points:
        if p["v14"]:
            shapes[(p["N"], p["heads"], p["d"], p["causal"])][(p["br"], p["bc"])] = p
    for name, c in (("built in", built), ("best", best)):
        misses = []
        for shape, tiles in sorted(shapes.items()):
            if shape[0] == 1024 and shape[1] == 16:
                continue  # every tile within a few microseconds (the test leaves these out too)
            pick = min(tiles, key=lambda t: pred(tiles[t], *c))
            fastest = min(tiles[t]["meas"] for t in tiles)
            ratio = tiles[pick]["meas"] / fastest
            if ratio > 1.05:
                misses.append(f"N = {shape[0]}, {shape[1]} heads, d = {shape[2]}{', causal' if shape[3] else ''}: "
                              f"{pick[0]} x {pick[1]} measured {ratio:.3f}x the fastest")
        print(f"  auto on the v14 table, {name}: {len(misses)} of {len(shapes) - 4} busy shapes beyond 5 %")
        for m in misses:
            print("    " + m)


if __name__ == "__main__":
    main()
