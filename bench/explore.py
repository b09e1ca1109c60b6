#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/explore.py: mockrun explore against the hand loop it replaces.

The loop: count the calls of F in a clean run (--trace), then for k = 1..N
run `mockrun -e 'will_call_real(F, k-1); will_fail(F)' PROG` and keep the
crashing runs' crash sites (the JSON report's).  explore: `mockrun explore
--fns F` on the same program, same machine, same -j.  Printed as a
markdown table: wall time, runs, distinct crash sites, the ratios, and
whether explore found every crash site the loop found.

  python3 bench/explore.py --mockrun build/runner/mockrun \\
      --planted build/tests/explore/planted [--jq] [-j 2] [-o results.md]
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


CRASH_MARKS = [m.encode() for m in (
    "Assertion `", "assertion failed", "double free", "free(): ", "malloc(): ", "realloc(): ",
    "corrupted ", "munmap_chunk(): ", "stack smashing detected", "buffer overflow detected",
    "AddressSanitizer", "UndefinedBehaviorSanitizer")]


def count_calls(mockrun, fns, argv, cwd):
    tr = os.path.join(cwd, ".trace")
    subprocess.run([mockrun, "--trace=" + ",".join(fns), "--trace-file", tr, "--"] + argv,
                   cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    n = {f: 0 for f in fns}
    with open(tr) as t:
        for line in t:
            rest = line.split(": ", 1)[1] if ": " in line else ""
            f = rest.split("(", 1)[0]
            if f in n:
                n[f] += 1
    os.unlink(tr)
    return n


def loop_run(mockrun, fn, k, argv, workdir, timeout):
    d = tempfile.mkdtemp(prefix="loop.")
    try:
        if workdir:
            shutil.copytree(workdir, d, dirs_exist_ok=True)
        stmt = (f"will_call_real({fn}, {k - 1}); " if k > 1 else "") + f"will_fail({fn})"
        rep = os.path.join(d, ".r.json")
        p = subprocess.run([mockrun, "--report", "json", "-o", rep, "--timeout", str(timeout), "-e", stmt,
                            "--"] + argv, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with open(rep) as f:
            r = json.load(f)
        sig = r.get("signal", 0)
        # SIGABRT is a crash with a glibc heap, assertion or sanitizer
        # message (as explore's oracle says), else a deliberate abort
        if sig == 6 and not any(m in p.stderr for m in CRASH_MARKS):
            sig = -6
        site = ""
        for p in r.get("processes", []):
            if p.get("crash"):
                site = p["crash"].get("site", "")
                break
        return sig, site
    finally:
        shutil.rmtree(d, ignore_errors=True)


def hand_loop(mockrun, fns, argv, workdir, jobs, timeout):
    t0 = time.monotonic()
    cwd = tempfile.mkdtemp(prefix="count.")
    if workdir:
        shutil.copytree(workdir, cwd, dirs_exist_ok=True)
    counts = count_calls(mockrun, fns, argv, cwd)
    shutil.rmtree(cwd, ignore_errors=True)
    work = [(f, k) for f in fns for k in range(1, counts[f] + 1)]
    crashing, sites = 0, set()
    with cf.ThreadPoolExecutor(jobs) as ex:
        for sig, site in ex.map(lambda w: loop_run(mockrun, w[0], w[1], argv, workdir, timeout), work):
            if sig in (4, 6, 7, 8, 11):
                crashing += 1
                sites.add(site or "?")
    return time.monotonic() - t0, len(work), crashing, sites


def explore(mockrun, fns, argv, workdir, jobs, timeout, files):
    out = tempfile.mkdtemp(prefix="explore.")
    t0 = time.monotonic()
    cmd = [mockrun, "explore", "--fns", ",".join(fns), "--timeout", str(timeout), "-o", out]
    if workdir:
        cmd += ["--workdir", workdir, "-j", str(jobs)]
    for f in files:
        cmd += ["--files", f]
    subprocess.run(cmd + ["--"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=workdir or None)
    wall = time.monotonic() - t0
    with open(os.path.join(out, "explore.json")) as f:
        j = json.load(f)
    shutil.rmtree(out, ignore_errors=True)
    runs = sum(r["attempts"] for r in j["runs"])
    crash = [f for f in j["findings"] if f["outcome"] == "crash"]
    sites = {r["crash_site"] or "?" for r in j["runs"] if r["outcome"] == "crash"}
    return wall, len(j["runs"]), runs, len(crash), len(j["findings"]), sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mockrun", required=True)
    ap.add_argument("--planted", required=True)
    ap.add_argument("--jq", action="store_true", help="also jq . FILE with malloc (minutes)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    rows = []
    tmp = tempfile.mkdtemp(prefix="bench-explore.")
    pw = os.path.join(tmp, "planted")
    os.makedirs(pw)
    with open(os.path.join(pw, "conf.txt"), "w") as f:
        f.write("world\n")
    cases = [("planted (6 functions)", ["malloc", "open", "write", "fsync", "fopen", "close"],
              [os.path.abspath(a.planted), "conf.txt", "out.txt"], pw, ["out.txt"], 2)]
    if a.jq and shutil.which("jq"):
        jw = os.path.join(tmp, "jq")
        os.makedirs(jw)
        with open(os.path.join(jw, "in.json"), "w") as f:
            f.write('{"name": "mockshim", "tags": ["preload", "mock"], "version": 1}\n')
        cases.append(("jq . in.json (malloc)", ["malloc"], ["jq", ".", "in.json"], jw, [], 5))
    for name, fns, argv, wd, files, timeout in cases:
        print(f"{name}: explore...", file=sys.stderr)
        ew, ework, eruns, ecrash, efind, esites = explore(a.mockrun, fns, argv, wd, a.j, timeout, files)
        print(f"{name}: the hand loop...", file=sys.stderr)
        lw, lruns, lcrashing, lsites = hand_loop(a.mockrun, fns, argv, wd, a.j, timeout)
        missed = sorted(lsites - esites)
        rows.append((name, lw, lruns, lcrashing, len(lsites), ew, ework, eruns, ecrash, esites, missed))
    shutil.rmtree(tmp, ignore_errors=True)
    lines = [f"explore against the hand loop (same machine, -j {a.j}, each run a mockrun):", "",
             "| program | loop: wall s | loop: runs | loop: crashing runs | loop: distinct crash sites "
             "| explore: wall s | explore: sites x errors | explore: runs with confirmations "
             "| explore: crash findings | loop / explore time | loop / explore runs | crash sites the loop found and explore missed |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (name, lw, lruns, lcrashing, nls, ew, ework, eruns, ecrash, esites, missed) in rows:
        lines.append(f"| {name} | {lw:.1f} | {lruns} | {lcrashing} | {nls} | {ew:.1f} | {ework} | {eruns} | "
                     f"{ecrash} | {lw / ew:.1f}x | {lruns / max(eruns, 1):.1f}x | "
                     f"{len(missed)}{': ' + ', '.join(missed[:6]) if missed else ''}{' ...' if len(missed) > 6 else ''} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
