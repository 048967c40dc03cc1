#!/usr/bin/env python3
"""Print the benchmark results as Markdown (Python standard library only).

    python3 bench/report.py bench/work/results
    python3 bench/report.py --baseline bench/work/results   # new / base (BENCH_BASELINE_BIN rows)

Reads what bench/run.sh left there: CORPUS.json (hyperfine), CORPUS.size (source bytes, files),
rss.tsv (peak RSS in KiB), tiny.json (start-up), machine.txt, and ../out/check.tsv (bench/check.py).
"""

import json
import os
import statistics
import sys

CORPORA = ["sfx", "music", "huge"]
TARGETS_CP = {"sfx": 2.5, "music": 1.5, "huge": 1.5}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)["results"]
    except OSError:
        return None


def peer(name):
    return name.startswith("sndfile-convert") or name.startswith("ffmpeg")


def baseline(results):
    """The rows timed against BENCH_BASELINE_BIN in the same hyperfine calls: new / base."""
    rss = {}
    if os.path.exists(os.path.join(results, "rss.tsv")):
        for line in open(os.path.join(results, "rss.tsv")):
            corpus, name, kib = line.rstrip("\n").split("\t")
            rss[(corpus, name)] = int(kib) if kib.isdigit() else None
    groups = [(c, c) for c in CORPORA] + [
        ("tiny", "start-up, one file"),
        ("perfile", "300 files, one process each"),
        ("resample", "sfx to -d LEI16@22050 -c 1"),
    ]
    print("New against the baseline, each pair timed in the same hyperfine call (< 1: new is faster):")
    print()
    print("| run | new median s (min-max) | baseline median s (min-max) | new / base median | new / base min | peak RSS new / base |")
    print("| --- | --- | --- | --- | --- | --- |")
    found = False
    for key, label in groups:
        rows = load(os.path.join(results, key + ".json"))
        if not rows:
            continue
        by_name = {r["command"]: r for r in rows}
        for name, base in by_name.items():
            if "(baseline)" not in name:
                continue
            new = by_name.get(name.replace(" (baseline)", ""))
            if new is None:
                continue
            found = True
            a, b = rss.get((key, new["command"])), rss.get((key, name))
            cells = [
                f"{label}: {new['command']}",
                f"{new['median']:.4f} ({new['min']:.4f}-{new['max']:.4f})",
                f"{base['median']:.4f} ({base['min']:.4f}-{base['max']:.4f})",
                f"**{new['median'] / base['median']:.3f}**",
                f"{new['min'] / base['min']:.3f}",
                f"{a / 1024:.1f} / {b / 1024:.1f} MB" if a and b else "",
            ]
            print("| " + " | ".join(cells) + " |")
    if not found:
        print("| no baseline rows (run with BENCH_BASELINE_BIN=PATH or make bench-compare BASE=COMMIT) | | | | | |")
    machine = os.path.join(results, "machine.txt")
    if os.path.exists(machine):
        print()
        print("```")
        print(open(machine).read().rstrip())
        print("```")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--baseline":
        return baseline(sys.argv[2])
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = sys.argv[1]
    rss = {}
    if os.path.exists(os.path.join(results, "rss.tsv")):
        for line in open(os.path.join(results, "rss.tsv")):
            corpus, name, kib = line.rstrip("\n").split("\t")
            rss[(corpus, name)] = int(kib) if kib.isdigit() else None
    checks = {}
    check_path = os.path.join(results, "..", "out", "check.tsv")
    if os.path.exists(check_path):
        for line in open(check_path):
            corpus, name, good, total, _ = line.rstrip("\n").split("\t")
            checks[(corpus, name)] = f"{good}/{total}"

    medians = {}
    print("| corpus | tool | median s (min-max) | MB/s | x cp | x best peer | peak RSS | outputs right |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for corpus in CORPORA:
        rows = load(os.path.join(results, corpus + ".json"))
        if rows is None:
            continue
        size, files = (int(x) for x in open(os.path.join(results, corpus + ".size")).read().split())
        by_name = {r["command"]: r for r in rows}
        cp = by_name.get("cp -r", {}).get("median")
        peers = [r["median"] for r in rows if peer(r["command"])]
        best_peer = min(peers) if peers else None
        label = f"{corpus} ({files} file{'' if files == 1 else 's'}, {size / 1e6:.0f} MB)"
        for r in rows:
            name, median = r["command"], r["median"]
            medians[(corpus, name)] = median
            kib = rss.get((corpus, name))
            cells = [
                label,
                name,
                f"{median:.3f} ({r['min']:.3f}-{r['max']:.3f})",
                f"{size / median / 1e6:.0f}",
                f"{median / cp:.2f}" if cp and name != "cp -r" else "",
                f"{median / best_peer:.2f}" if best_peer and name != "cp -r" else "",
                f"{kib / 1024:.1f} MB" if kib else "",
                checks.get((corpus, name), ""),
            ]
            print("| " + " | ".join(cells) + " |")
            label = ""

    tiny = load(os.path.join(results, "tiny.json"))
    if tiny:
        print()
        tiny_bytes = open(os.path.join(results, "tiny.size")).read().split()[0]
        print(f"Start-up: one 50 ms file ({tiny_bytes} bytes) per process, `hyperfine -N`:")
        print()
        print("| tool | median ms | mean ms +- sd | min ms | runs |")
        print("| --- | --- | --- | --- | --- |")
        for r in tiny:
            medians[("tiny", r["command"])] = r["median"]
            sd = r.get("stddev") or statistics.pstdev(r["times"])
            print(
                f"| {r['command']} | {r['median'] * 1e3:.1f} | {r['mean'] * 1e3:.1f} +- {sd * 1e3:.1f} "
                f"| {r['min'] * 1e3:.1f} | {len(r['times'])} |"
            )

    perfile = load(os.path.join(results, "perfile.json"))
    if perfile:
        print()
        print("Per-file start-up: 300 copies of that file, one process each (a bash loop), `hyperfine`:")
        print()
        print("| tool | median s (min-max) | ms per file | x sndfile-convert | runs |")
        print("| --- | --- | --- | --- | --- |")
        sndfile = next((r["median"] for r in perfile if r["command"] == "sndfile-convert"), None)
        for r in perfile:
            medians[("perfile", r["command"])] = r["median"]
            ratio = f"{r['median'] / sndfile:.2f}" if sndfile else ""
            print(
                f"| {r['command']} | {r['median']:.3f} ({r['min']:.3f}-{r['max']:.3f}) | {r['median'] / 300 * 1e3:.2f} "
                f"| {ratio} | {len(r['times'])} |"
            )

    print()
    print("Targets of issue 6 (cafconv, default -j 2):")
    print()
    print("| target | measured | |")
    print("| --- | --- | --- |")

    def verdict(ok):
        return "met" if ok else "**not met**"

    for corpus, limit in TARGETS_CP.items():
        ours, cp = medians.get((corpus, "cafconv -j 2")), medians.get((corpus, "cp -r"))
        if ours and cp:
            print(f"| {corpus} <= {limit}x cp | {ours / cp:.2f}x | {verdict(ours / cp <= limit)} |")
        else:
            print(f"| {corpus} <= {limit}x cp | not measured | |")
    kib = rss.get(("huge", "cafconv -j 2"))
    if kib:
        print(f"| huge: peak RSS <= 32 MB | {kib / 1024:.1f} MB | {verdict(kib <= 32 * 1024)} |")
    else:
        print("| huge: peak RSS <= 32 MB | not measured | |")
    t = medians.get(("tiny", "cafconv"))
    print(f"| tiny file <= 5 ms | {t * 1e3:.1f} ms | {verdict(t <= 0.005)} |" if t else "| tiny file <= 5 ms | not measured | |")
    c, p = medians.get(("perfile", "cafconv")), medians.get(("perfile", "sndfile-convert"))
    if c and p:
        print(f"| per file (300 processes) <= 2x sndfile-convert (issue 28) | {c / 300 * 1e3:.2f} ms against {p / 300 * 1e3:.2f} ms ({c / p:.2f}x) | {verdict(c <= 2 * p)} |")
    one, two = medians.get(("music", "cafconv -j 1")), medians.get(("music", "cafconv -j 2"))
    if one and two:
        print(f"| music: -j 2 speed-up >= 1.7x | {one / two:.2f}x | {verdict(one / two >= 1.7)} |")
    else:
        print("| music: -j 2 speed-up >= 1.7x | not measured | |")

    machine = os.path.join(results, "machine.txt")
    if os.path.exists(machine):
        print()
        print("```")
        print(open(machine).read().rstrip())
        print("```")


if __name__ == "__main__":
    main()
