#!/usr/bin/env python3
"""The survey's Fig. 9 from Python: the error of counting bits against the number of parties, for
every counting protocol (local randomized response, the shuffle-model counters, central Laplace),
drawn with matplotlib from the study table shufflempc returns.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/counting_parties.py --out fig9.png

The numbers are those of `shufflempc study --preset counting-parties` with the same --trials and
--seed (docs/study.md); --largest cuts the grid for a quick look.
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import shufflempc  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20, help="trials per cell (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the study (default 1)")
    parser.add_argument("--largest", type=int, default=1_000_000, help="largest n on the axis (default 10^6)")
    parser.add_argument("--out", default="counting-parties.png", help="the figure (PNG, SVG or PDF)")
    args = parser.parse_args()

    parties = [n for n in (10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000) if n <= args.largest]
    if not parties:
        parser.error("--largest must be at least 10000")
    table = shufflempc.study(preset="counting-parties", axes={"parties": parties}, trials=args.trials, seed=args.seed,
                             as_frame=False)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for series in dict.fromkeys(table["series"]):
        rows = (table["series"] == series) & table["feasible"]
        n, rmse = table["parties"][rows], table["rmse"][rows]
        low, high = table["rmse_low"][rows], table["rmse_high"][rows]
        line, = ax.plot(n, rmse, marker="o", label=series)
        ax.fill_between(n, low, high, color=line.get_color(), alpha=0.15)
        predicted = table["predicted_rmse"][rows]
        if not np.all(np.isnan(predicted)):
            ax.plot(n, predicted, linestyle="--", color=line.get_color(), linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("parties n")
    ax.set_ylabel("RMSE of the count (dashed: predicted RMSE)")
    ax.set_title(f"Counting bits, epsilon = 0.9: RMSE against n ({args.trials} trials, 95% band)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}: {len(table['series'])} cells", file=sys.stderr)
    for i in range(len(table["series"])):
        print(f"{table['series'][i]:<40} n={table['parties'][i]:>8}  rmse={table['rmse'][i]:.4g}")


if __name__ == "__main__":
    main()
