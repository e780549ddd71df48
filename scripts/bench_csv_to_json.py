#!/usr/bin/env python3
"""Turn a `fusionlab bench --csv` file into the JSON export the app reads back (app/files/results_import.h).

    scripts/bench_csv_to_json.py BENCH.csv [BENCH.txt] > BENCH.json

Why: a device call that wrote only `--csv` (and the printed table) leaves measurements that the held-out study
(app/recordings/sim_heldout.cpp, bench_tables) and `fusionlab --results` cannot read. This rewrites each row in
the export's field names, copying every number as its CSV text spells it (a float's shortest repr round-trips
the CSV's %.9g), so no measured number changes:

- the device: what the CSV carries (name, driver, runtime, compute capability, clocks); the measured copy rate
  from `ceiling_gbps` where `ceiling_source` says "measured copy"; the measured fp16 / bf16 GEMM or FP32 FMA rate
  from `compute_roof_tflops` where `compute_roof_source` says that roof was measured; the L2 size from the
  timing note ("the 60.0 MiB L2"). The CSV has no SM count or memory size: those stay out (the reader's
  defaults), and the study takes them from the simulated card.
- per row: params (the workload's non-empty parameter cells, as the CSV's `ran_params`: an auto tile as it
  ran), time (median, min, max, reps), the kernels' median times (`kernel_times`; the CSV has no per-kernel
  min/max), modeled and measured bytes, the check, the notes, ok / refused / error.
- with the printed table (BENCH.txt, one printed row per CSV row, in order): each row's `auto br x bc ...` line as its auto_choice (text only), and the
  table's `ceiling:` line as the device's ceiling note.

Bad input (no such file, not a fusionlab bench CSV, a row that does not parse) stops with a message naming it.
"""
import csv
import json
import re
import sys

# The bench CSV's columns that are not parameters (app/files/export.cpp, fixed_columns_before_params and
# fixed_columns_after_params); every column between `dtype` and `reps` is one parameter of some workload.
BEFORE_PARAMS_END = "dtype"
AFTER_PARAMS_START = "reps"
BOOLEAN_PARAMS = {"causal"}


def die(message):
    sys.stderr.write(f"bench_csv_to_json: {message}\n")
    sys.exit(2)


def number(text):
    """The CSV's number as JSON: an int where it is one, else the float its text spells."""
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


def flag(text):
    return text == "true"


def device_of(row, ceiling_note):
    d = {
        "name": row["device"],
        "simulated": flag(row["simulated"]),
        "driver": row["driver"],
        "runtime": row["runtime"],
        "compute_capability": row["compute_capability"],
        "sm_clock_mhz": number(row["sm_clock_mhz"]),
        "mem_clock_mhz": number(row["mem_clock_mhz"]),
    }
    # The timing note names the L2 the backend read from the device ("... < 2x the 60.0 MiB L2 ..."): the L2
    # reuse model of the modeled DRAM bytes needs it.
    l2 = re.search(r"the ([0-9.]+) MiB L2", row["timing_note"])
    if l2:
        d["l2_bytes"] = int(round(float(l2.group(1)) * 1024 * 1024))
    if row["ceiling_source"] == "measured copy" and row["ceiling_gbps"]:
        d["measured_copy_gbps"] = number(row["ceiling_gbps"])
        if ceiling_note:
            d["ceiling_note"] = ceiling_note
    roof = row["compute_roof_source"]
    if ": measured" in roof and row["compute_roof_tflops"]:
        key = {"tensor GEMM fp16": "measured_fp16_gemm_tflops", "tensor GEMM bf16": "measured_bf16_gemm_tflops",
               "FP32 FMA": "measured_fp32_fma_tflops"}.get(roof.split(":")[0])
        if key:
            d[key] = number(row["compute_roof_tflops"])
            d["compute_ceiling_note"] = roof
    return d


def kernels_of(text):
    """`name=0.0558560006ms/33554432B;...` (export.cpp, kernel_times_text) as the export's kernel objects."""
    out = []
    for part in filter(None, text.split(";")):
        m = re.fullmatch(r"(.+)=([-+0-9.eE]+)ms/(\d+)B", part.strip())
        if not m:
            die(f"kernel_times entry '{part}' is not name=<ms>ms/<bytes>B")
        out.append({"name": m.group(1), "time": {"median_ms": number(m.group(2))}, "modeled_bytes": int(m.group(3))})
    return out


def printed_table(path):
    """The printed table's ceiling line and, per result row in order, its `auto br x bc` line (or None)."""
    ceiling_note, autos = "", []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    in_table = False
    for line in lines:
        if line.startswith("ceiling: ") and " - " in line and not ceiling_note:
            ceiling_note = line.split(" - ", 1)[1]
        if line.startswith("workload "):
            in_table = True
            continue
        if not in_table or not line.strip():
            continue
        if line.startswith("    auto "):
            if not autos or autos[-1] is not None:
                die(f"{path}: an auto line with no result row above it: {line.strip()}")
            autos[-1] = line.strip()
        elif not line.startswith(" ") and not line.startswith("wrote "):
            autos.append(None)  # a result row, measured or refused
    return ceiling_note, autos


def main():
    if len(sys.argv) not in (2, 3):
        die("usage: bench_csv_to_json.py BENCH.csv [BENCH.txt]")
    try:
        with open(sys.argv[1], newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
            header = list(rows[0].keys()) if rows else []
    except OSError as e:
        die(f"{sys.argv[1]}: cannot read: {e.strerror}")
    if not rows or "median_ms" not in header or BEFORE_PARAMS_END not in header or AFTER_PARAMS_START not in header:
        die(f"{sys.argv[1]}: not a fusionlab bench CSV (no rows, or no dtype / reps / median_ms columns)")
    params = header[header.index(BEFORE_PARAMS_END) + 1:header.index(AFTER_PARAMS_START)]
    ceiling_note, autos = printed_table(sys.argv[2]) if len(sys.argv) == 3 else ("", [])
    if len(sys.argv) == 3 and len(autos) != len(rows):
        die(f"{sys.argv[2]}: {len(autos)} result rows printed, {len(rows)} rows in the CSV")
    out = []
    for i, row in enumerate(rows, 1):
        try:
            ok = flag(row["ok"])
            m = {"job_id": i, "ok": ok, "refused": flag(row["refused"]), "error": row["error"],
                 "device": device_of(row, ceiling_note), "build_type": row["build_type"], "backend": row["backend"],
                 "recorded_date": row["recorded_date"], "workload": row["workload"], "variant": row["variant"]}
            p = {"dtype": row["dtype"]}
            for name in params:
                if row[name] != "":
                    p[name] = row[name] == "1" if name in BOOLEAN_PARAMS else number(row[name])
            m["params"] = p
            if autos and autos[i - 1]:
                m["auto_choice"] = autos[i - 1]
            if ok:
                m["time"] = {"median_ms": number(row["median_ms"]), "min_ms": number(row["min_ms"]),
                             "max_ms": number(row["max_ms"]), "reps": number(row["reps"])}
                m["kernels"] = kernels_of(row["kernel_times"])
            m["modeled"] = {"bytes_read": number(row["modeled_bytes_read"]),
                            "bytes_written": number(row["modeled_bytes_written"]),
                            "bytes": number(row["modeled_bytes_read"]) + number(row["modeled_bytes_written"]),
                            "shared_bytes": number(row["modeled_shared_bytes"]), "min_bytes": number(row["min_bytes"]),
                            "flops": number(row["flops"])}
            m["limiter"] = row["limiter"]
            if row["measured_bytes"]:
                m["measured_bytes"] = {"bytes": number(row["measured_bytes"]),
                                       "bytes_read": number(row["measured_bytes_read"]),
                                       "bytes_written": number(row["measured_bytes_written"]),
                                       "note": row["measured_bytes_note"]}
            if row["wall_ms"]:
                m["wall_ms"] = number(row["wall_ms"])
            check = {"checked": flag(row["checked"]), "note": row["check_note"]}
            if row["max_abs_error"]:
                check["max_abs_error"] = number(row["max_abs_error"])
            if row["rel_l2_error"]:
                check["rel_l2_error"] = number(row["rel_l2_error"])
            m["check"] = check
            m["timing_note"] = row["timing_note"]
        except (KeyError, ValueError) as e:
            die(f"{sys.argv[1]}: row {i}: {e}")
        out.append(m)
    doc = {"tool": "fusionlab", "exported_at": rows[0]["timestamp"], "build_type": rows[0]["build_type"],
           "converted_from": sys.argv[1].rsplit("/", 1)[-1] + " by scripts/bench_csv_to_json.py", "measurements": out}
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
