#!/usr/bin/env python3
"""The fixed cost of a `shufflempc local` run: the smallest circuit end to end over TCP (shuffler,
analyzer and three party processes), against a bare `shufflempc --help` process in the same run.

    /usr/bin/python3 bench/local_fixed_cost.py [BINARY=build/bin/shufflempc] [RUNS=15]

Each figure is the wall clock of `subprocess.run` of the command, median (min, max) of RUNS runs
after 3 warm-up runs. Progress goes to stderr, the result to stdout.
"""
import statistics
import subprocess
import sys
import time


def timed(cmd):
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True)
    elapsed = (time.perf_counter() - start) * 1000
    if r.returncode != 0:
        sys.exit(f"local_fixed_cost: {' '.join(cmd)} failed: {r.stderr.decode()}")
    return elapsed


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "build/bin/shufflempc"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    local = [exe, "local", "circuit", "--circuit", "adder64", "--parties", "3"]
    for _ in range(3):
        timed(local)
    print(f"local_fixed_cost: {runs} runs of each", file=sys.stderr)
    loc = [timed(local) for _ in range(runs)]
    bare = [timed([exe, "--help"]) for _ in range(runs)]
    print(f"local adder64: median {statistics.median(loc):.1f} ms (min {min(loc):.1f}, max {max(loc):.1f}); "
          f"bare --help median {statistics.median(bare):.1f} ms")


if __name__ == "__main__":
    main()
