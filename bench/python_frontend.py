#!/usr/bin/env python3
"""What the Python package costs over the command line, in one run on one machine.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_frontend.py --bin build/bin/shufflempc

Rows (median of --repeat runs, wall seconds):
  run      shufflempc.run('counting', parties=N) against the `shufflempc run counting` process
           (which adds a process start) and the report's own seconds (the rounds alone);
  pieces   Protocol.encode_all + shuffle + analyze from Python (numpy arrays between the calls)
           against Protocol.trial, the same work in one C++ call;
  study    shufflempc.study(preset=...) against `shufflempc study --preset ... --csv` (same numbers).
Progress goes to stderr.
"""
import argparse
import statistics
import subprocess
import sys
import time

import shufflempc


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the shufflempc binary of the same build")
    ap.add_argument("--parties", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--preset", default="counting-epsilon")
    ap.add_argument("--trials", type=int, default=20)
    a = ap.parse_args()
    n = a.parties
    rows = []

    print(f"run: counting, {n} parties", file=sys.stderr)
    inner = []
    py_run = timed(lambda: inner.append(shufflempc.run("counting", parties=n, seed=1)["seconds"]), a.repeat)
    cli_run = timed(lambda: subprocess.run([a.bin, "run", "counting", "--parties", str(n), "--seed", "1", "--json"],
                                           check=True, capture_output=True), a.repeat)
    rows.append(("run counting", py_run, cli_run, "CLI process", statistics.median(inner), "rounds alone"))

    print("pieces: encode_all + shuffle + analyze against trial", file=sys.stderr)
    p = shufflempc.Protocol("counting", n)
    inputs = p.random_inputs(seed=2)

    def pieces():
        m, _ = p.encode_all(inputs, seed=3)
        p.analyze(p.shuffle(m, seed=4), seed=5)

    rows.append(("pieces counting", timed(pieces, a.repeat), timed(lambda: p.trial(seed=6), a.repeat), "trial()", None, ""))

    print(f"study: --preset {a.preset} --trials {a.trials}", file=sys.stderr)
    py_study = timed(lambda: shufflempc.study(preset=a.preset, trials=a.trials, progress=False, as_frame=False), 1)
    cli_study = timed(lambda: subprocess.run([a.bin, "study", "--preset", a.preset, "--trials", str(a.trials), "--quiet", "--csv", "-"],
                                             check=True, capture_output=True), 1)
    rows.append((f"study {a.preset}", py_study, cli_study, "CLI process", None, ""))

    print(f"{'what':<28}{'python s':>10}{'baseline s':>12}  baseline{'':<14}{'other s':>9}")
    for what, py, base, base_name, other, other_name in rows:
        extra = f"{other:>9.4f}  {other_name}" if other is not None else ""
        print(f"{what:<28}{py:>10.4f}{base:>12.4f}  {base_name:<22}{extra}")


if __name__ == "__main__":
    main()
