"""`python -m shufflempc`: a first look at the package, in a few seconds.

Runs, with every party in this process, a one-round shuffle-model count among 10^4 parties beside its
local and central baselines (the same epsilon), secure summation by split and mix, and the IKOS key
exchange, and prints for each what it output, the truth and the messages it sent. `--parties`,
`--seed` and `--epsilon` change the run; `--protocol NAME` runs one protocol with its defaults;
`--list` names them all.
"""
import argparse
import sys

from . import __version__, list as protocols, run


def _demo(parties, seed, epsilon):
    """(title, name, parameters) of the demo's runs."""
    return [
        ("shuffle model: counting bits (one round)", "counting", {"epsilon": epsilon}),
        ("local baseline: randomized response", "randomized-response", {"epsilon": epsilon}),
        ("central baseline: a trusted curator's Laplace noise", "central-laplace", {"epsilon": epsilon}),
        ("secure summation: split and mix (exact)", "split-mix-sum", {"input_bits": 8}),
        ("IKOS key exchange among 4 parties (MPC mode)", "ikos-key-exchange", {"parties": 4}),
    ]


def _short(value):
    """A run's output or truth in a table cell: numbers rounded, a vector's first values, a dict's
    scalar facts (the key exchange's pairs agreed)."""
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, list):
        head = ", ".join(_short(v) for v in value[:3])
        return f"[{head}{', ...' if len(value) > 3 else ''}] ({len(value)})"
    if isinstance(value, dict):
        if "pairs_agreed" in value:
            return f"{value['pairs_agreed']} of {value['pairs']} pairs agree"
        return ", ".join(f"{k}={v}" for k, v in value.items() if isinstance(v, (int, float, str)))[:40]
    return "" if value is None else str(value)


def _row(title, result):
    return (f"{title:<54} {_short(result['output']):>26} {_short(result.get('truth')):>22} {result['messages']:>9} "
            f"{result['seconds']:>8.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m shufflempc", description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parties", type=int, default=10_000, help="parties of each run but the key exchange (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="the runs' seed (default 1)")
    parser.add_argument("--epsilon", type=float, default=1.0, help="privacy parameter of the DP runs (default 1)")
    parser.add_argument("--protocol", help="run this protocol alone, with its defaults")
    parser.add_argument("--list", action="store_true", help="name every protocol and stop")
    args = parser.parse_args(argv)
    if args.list:
        for p in protocols():
            print(f"{p['name']:<26} {p['summary']}")
        return 0
    print(f"shufflempc {__version__}: every party in this process, seed {args.seed}", flush=True)
    runs = ([(args.protocol, args.protocol, {})] if args.protocol else _demo(args.parties, args.seed, args.epsilon))
    print(f"{'run':<54} {'output':>26} {'truth':>22} {'messages':>9} {'seconds':>8}")
    for title, name, params in runs:
        params = dict(params)
        parties = params.pop("parties", args.parties)
        try:
            result = run(name, parties=parties, seed=args.seed, **params)
        except ValueError as e:
            print(f"python -m shufflempc: {e}", file=sys.stderr)
            return 2
        print(_row(title, result), flush=True)
    print("\nNext: help(shufflempc), docs/python.md; the command line `shufflempc local` runs the parties as "
          "processes over TCP.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
