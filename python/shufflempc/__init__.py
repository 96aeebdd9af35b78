"""shufflempc from Python: secure multiparty computation and differential privacy in the shuffle model.

The same C++ library as the ``shufflempc`` command line, so a seed gives the same numbers here and
there. What it offers:

* ``list()`` -- every registered protocol with its parameters (``shufflempc list --json``).
* ``describe(name, parties, **params)`` -- a configured protocol's derived facts.
* ``run(name, inputs=None, *, parties=None, seed=None, **params)`` -- one run with every party in
  this process; the dict ``shufflempc run --json`` prints (output, truth, error, messages, ...).
* ``Protocol(name, parties, **params)`` -- a configured protocol whose randomizer (``encode``,
  ``encode_all``), shuffle and analyzer (``analyze``) a researcher calls one by one, and ``trial``,
  one simulated execution as a study runs it.
* ``study(...)`` -- a grid of seeded trials (``shufflempc study``): a pandas DataFrame when pandas
  is installed, else a dict of numpy columns, with the CSV's columns.
* ``account_amplify``, ``account_local``, ``account_noise`` -- the privacy accountant.
* ``xor_sum_study(...)`` and ``xor_sum_decode(...)`` -- the XOR-sum lower bound executed, and the
  attack's decoder for attacks of your own.
* ``rounds_study(...)`` -- what each round buys: the same functions in one, two and many rounds.

Parameters are the protocol's own (``shufflempc list``); a name with a dash on the command line
takes an underscore here (``min_parties``). A bad value raises ValueError naming it and its range.
Long calls release the GIL.
"""

from ._core import (  # noqa: F401
    Protocol,
    Rng,
    __version__,
    account_amplify,
    account_local,
    account_noise,
    list,
    register_protocol,
    run,
    xor_sum_decode,
)
from . import _core

__all__ = [
    "Protocol",
    "account_amplify",
    "account_local",
    "account_noise",
    "describe",
    "list",
    "register_protocol",
    "rounds_study",
    "run",
    "study",
    "xor_sum_decode",
    "xor_sum_study",
]


def describe(name, parties, *, min_parties=0, **params):
    """A configured protocol's facts: rounds, each round's shape, trust model, predicted error sd,
    and what ``describe`` reports (noise rates, epsilon, ...)."""
    p = Protocol(name, parties, min_parties=min_parties, **params)
    return {
        "name": p.name,
        "parties": p.parties,
        "rounds": p.rounds,
        "shapes": [p.shape(r) for r in range(p.rounds)],
        "trust_model": p.trust_model,
        "predicted_sd": p.predicted_sd,
        "details": p.describe(),
    }


def _table(columns, as_frame):
    if as_frame is False:
        return columns
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise
        return columns
    return pandas.DataFrame(columns)


def study(protocols=None, axes=None, *, preset=None, fixed=None, parties=None, inputs=None, honest=None,
          dropouts=None, trials=None, seed=None, jobs=0, per_trial=False, progress=True, as_frame=None):
    """Runs a study, as ``shufflempc study`` does, and returns its table.

    protocols: a series or a list of them, each ``NAME`` or ``NAME:KEY=V:KEY=V`` (replaces the
        preset's series).
    axes: ``{key: [values]}`` or ``{key: "geom:A:B:K"}`` (or ``lin:A:B:K``), or a list of
        ``"KEY=V1,V2"`` strings; a key is a parameter, ``parties``, ``inputs``, ``honest`` or
        ``dropouts`` (replaces the preset's axes).
    preset: start from a named preset (``shufflempc study --list-presets``).
    fixed: ``{parameter: value}`` for every series that declares the parameter.
    parties, inputs, honest, dropouts, trials, seed: as the command line's options.
    jobs: trials run at once (0: every core). The numbers do not depend on it.
    per_trial: one row per trial instead of one per cell.
    progress: True draws the progress bar on stderr; a callable gets
        ``(done, total, trials_done, trials_total)``; False shows nothing.
    as_frame: None gives a DataFrame when pandas is installed, else a dict of numpy columns;
        True insists on the DataFrame, False on the dict.

    The columns are the CSV's (docs/study.md): series, protocol, the varied parameters, parties,
    min_parties, submitters, inputs, then per cell feasible, reason, trials, bias, rmse, rmse_low,
    rmse_high, predicted_sd, max_error, seconds, seconds_sd, messages_per_user, bytes_per_user,
    path, settings (JSON text) and seed. Missing numbers are NaN.
    """
    columns = _core._study(protocols=protocols, axes=axes, preset=preset, fixed=fixed, parties=parties,
                           inputs=inputs, honest=honest, dropouts=dropouts, trials=trials, seed=seed,
                           jobs=jobs, per_trial=per_trial, progress=progress)
    return _table(columns, as_frame)


def rounds_study(functions=("sum", "xor-sum", "and", "inner-product", "aes-128"), parties=5, trials=20, *, length=16, seed=1,
                 rtt=(), mbps=0, progress=True, as_frame=None):
    """What each round buys (``shufflempc study rounds``): every function through the one-round
    protocols where they exist, the two-round ones and the many-round ones, with the CSV's 13
    columns: error against the function in the clear, the rounds each ran, bytes and messages per
    party, seconds and the threat model (docs/study.md). With ``rtt`` (round-trip times in ms, as
    ``--rtt``), every row runs over the TCP transport with shaped links at each, and ``rtt_ms`` and
    ``model_seconds`` say where and what the model predicts; ``mbps`` shapes the rate too."""
    columns = _core._rounds_study([str(f) for f in functions], int(parties), int(trials), int(length), int(seed),
                                  [float(r) for r in rtt], float(mbps), progress)
    return _table(columns, as_frame)


def xor_sum_study(parties=(64, 128, 256), protocols=("rr", "noise-ids", "exact"), alphas=(0.1, 0.5, 1, 2),
                  queries=(1, 4, 16), *, decoder="ls", runs=3, epsilon=1.0, executions=("h/2", "h", "4n"), mpc=False,
                  seed=1, jobs=0, progress=True, as_frame=None):
    """The XOR-sum lower bound executed (``shufflempc study xor-sum``): the pause-and-replay attack
    on the one-round protocols (rows with rounds = 1) and the two-round escape (rounds = 2, skipped
    when epsilon is 0), with the CSV's 17 columns (docs/xor-sum.md)."""
    columns = _core._xor_sum_study([int(n) for n in parties], [str(p) for p in protocols],
                                   [float(a) for a in alphas], [int(q) for q in queries], decoder, runs,
                                   float(epsilon), [str(e) for e in executions], mpc, seed, jobs, progress)
    return _table(columns, as_frame)
