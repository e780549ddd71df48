#!/usr/bin/env python3
"""The rooms of docs/ARCHITECTURE.md and the includes between them: every `#include "..."` of a
file under app/, viz/ or kernels/ that names a file of another room must name one lower in ROOMS.
Exits 1 listing each include that runs up (or sideways into a room not listed), 0 when there is none.

Usage: scripts/include_rooms.py [--graph] [REPO]   (--graph: print every room's arrows as well)
"""
import collections
import os
import re
import sys

# Lowest first; a room may include only rooms before it. docs/ARCHITECTURE.md draws the same order.
ROOMS = [
    "kernels/core",        # the vocabulary, the Backend interface
    "kernels/cuda",        # CUDA errors and device memory, for every .cu file
    "kernels/profiling",   # DRAM counters, CUPTI trace and detach, measured ceilings
    "kernels/sim",         # the simulator
    "kernels/gpu",         # the GPU harness
    "kernels/<workload>",  # one folder per workload (skip reuses attention's, ffn elementwise's)
    "viz/model",           # the memory player and its frames, the roofline's arithmetic
    "viz",                 # drawing
    "app/platform",        # operating-system calls
    "app/files",           # exports, imports, reference files
    "app/exercises",       # kernel exercises
    "app/recordings",      # recordings of real GPUs, the recorded backend
    "app/lessons/model",   # the lesson's data and a student's answers
    "app/core",            # runner, jobs, settings, sweep, the GUI's state
    "app/lessons",         # the lesson engine
    "app/cli",             # the command line
    "app/gui",             # the GUI
    "app",                 # main.cpp
]
SHARED = {"core", "cuda", "profiling", "sim", "gpu"}
SOURCE = re.compile(r"\.(h|cpp|cu|cuh|inc|in)$")
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def room_of(path):
    parts = path.split("/")
    if parts[0] == "kernels" and len(parts) > 2:
        return "kernels/" + parts[1] if parts[1] in SHARED else "kernels/<workload>"
    if parts[0] == "viz":
        return "viz/model" if len(parts) > 2 and parts[1] == "model" else "viz"
    if parts[0] == "app":
        if len(parts) > 3 and parts[2] == "model":
            return "app/" + parts[1] + "/model"
        return "app/" + parts[1] if len(parts) > 2 else "app"
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    rank = {r: i for i, r in enumerate(ROOMS)}
    arrows = collections.defaultdict(list)
    for top in ("app", "viz", "kernels"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not SOURCE.search(name):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                with open(os.path.join(root, path), errors="replace") as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or not os.path.exists(os.path.join(root, m.group(1))):
                            continue  # a header beside the file, or a generated one
                        a, b = room_of(path), room_of(m.group(1))
                        if a and b and a != b:
                            arrows[(a, b)].append(f"{path}:{line_no} includes {m.group(1)}")
    bad = []
    for (a, b), where in sorted(arrows.items()):
        if a not in rank or b not in rank:
            bad += [f"{w} (room {a if a not in rank else b} is not in ROOMS)" for w in where]
        elif rank[b] >= rank[a]:
            bad += [f"{w}: {a} is below {b}" for w in where]
    if "--graph" in sys.argv:
        for (a, b), where in sorted(arrows.items(), key=lambda e: (rank.get(e[0][0], 99), rank.get(e[0][1], 99))):
            print(f"{a} -> {b} ({len(where)})")
    for line in bad:
        print(line)
    print(f"{len(bad)} includes run up" if bad else "every include points down (scripts/include_rooms.py ROOMS)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
