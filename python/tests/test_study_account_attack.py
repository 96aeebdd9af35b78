"""Studies, the accountant and the XOR-sum attack: the command line's numbers, as columns."""
import csv
import io
import math
import threading

import numpy as np
import pytest

import shufflempc

STUDY = dict(protocols=["counting", "randomized-response"], axes={"epsilon": [0.5, 1]}, parties=3000, trials=6, seed=3)


def cli_study_rows(cli, per_trial=False):
    args = ["study", "--protocol", "counting", "--protocol", "randomized-response", "--vary", "epsilon=0.5,1",
            "--parties", 3000, "--trials", 6, "--seed", 3, "--quiet", "--csv", "-"]
    if per_trial:
        args.append("--per-trial")
    return list(csv.DictReader(io.StringIO(cli(*args))))


def same_number(text, value):
    if text == "":
        return math.isnan(value)
    return float(text) == pytest.approx(value, rel=1e-9)


def test_study_columns_are_the_csvs(cli):
    table = shufflempc.study(**STUDY, progress=False, as_frame=False)
    rows = cli_study_rows(cli)
    assert list(table) == list(rows[0])
    assert len(table["rmse"]) == len(rows) == 4
    assert table["rmse"].dtype == np.float64 and table["parties"].dtype == np.int64 and table["feasible"].dtype == bool
    assert table["epsilon"].dtype == np.float64  # a varied number is a number, a choice stays text
    for i, row in enumerate(rows):
        for key in ("epsilon", "bias", "rmse", "rmse_low", "rmse_high", "predicted_sd", "max_error", "messages_per_user"):
            assert same_number(row[key], table[key][i]), key
        for key in ("series", "protocol", "inputs", "path", "settings"):
            assert row[key] == table[key][i], key
        assert int(row["parties"]) == table["parties"][i]


def test_study_per_trial_and_as_a_dataframe(cli):
    pandas = pytest.importorskip("pandas")
    frame = shufflempc.study(**STUDY, per_trial=True, progress=False)
    rows = cli_study_rows(cli, per_trial=True)
    assert isinstance(frame, pandas.DataFrame) and len(frame) == len(rows) > 0
    for i, row in enumerate(rows):
        assert same_number(row["error"], frame["error"][i])
    # The numbers do not depend on how many trials run at once.
    one_job = shufflempc.study(**STUDY, per_trial=True, progress=False, jobs=1)
    assert list(one_job["error"]) == list(frame["error"])


def test_study_presets_progress_and_errors():
    calls = []
    table = shufflempc.study(preset="demo", parties=2000, trials=2, progress=lambda *a: calls.append(a), as_frame=False)
    assert len(table["series"]) >= 5 and calls and calls[-1][2] == calls[-1][3]
    choice = shufflempc.study(protocols="histogram", axes={"variant": ["inverted", "parallel"]}, parties=2000, trials=2,
                              progress=False, as_frame=False)
    assert list(choice["variant"]) == ["inverted", "parallel"]
    top_seed = shufflempc.study(protocols="counting:noise=calibrated", parties=200, trials=1, seed=2**64 - 1, progress=False,
                                as_frame=False)
    assert int(top_seed["seed"][0]) == 2**64 - 1  # exact, past double's 2^53
    with pytest.raises(ValueError, match="^trials must be in"):
        shufflempc.study(protocols="counting", trials=0, progress=False)
    with pytest.raises(ValueError, match="trials must be a non-negative whole number, got -1"):
        shufflempc.study(protocols="counting", trials=-1, progress=False)
    with pytest.raises(ValueError, match="parties must be a non-negative whole number, got 2.5"):
        shufflempc.study(protocols="counting", parties=2.5, progress=False)
    with pytest.raises(ValueError, match="unknown protocol"):
        shufflempc.study(protocols="no-such", progress=False)
    with pytest.raises(ValueError, match="no parameter 'bins'"):
        shufflempc.study(protocols="counting:bins=3", progress=False)


def test_long_calls_release_the_gil():
    done = threading.Event()
    thread = threading.Thread(target=lambda: (shufflempc.study(protocols="counting", parties=200000, trials=40, seed=1,
                                                                progress=False, as_frame=False), done.set()))
    ticks = 0
    thread.start()
    while not done.is_set():
        ticks += 1
    thread.join()
    # Held, the GIL would let this loop run only between bytecodes of a call that never yields.
    assert ticks > 1000


def test_account_is_the_command_lines(cli):
    assert shufflempc.account_amplify(100000, 4) == cli("account", "amplify", "--epsilon0", 4, "--json", json_output=True)
    assert shufflempc.account_local(10000, 1, delta=1e-7) == \
        cli("account", "local", "--parties", 10000, "--epsilon", 1, "--delta", 1e-7, "--json", json_output=True)
    assert shufflempc.account_noise("discrete-laplace", epsilon=1, delta=1e-6) == \
        cli("account", "noise", "--noise", "discrete-laplace", "--epsilon", 1, "--delta", 1e-6, "--json", json_output=True)
    composed = shufflempc.account_amplify(100000, 1, rounds=4)
    assert [c["name"] for c in composed["composed"]] == ["fmt-numeric", "blanket-exact", "ldp-blanket", "tightest"]
    assert composed["composed"][3]["epsilon"] == min(c["epsilon"] for c in composed["composed"][:3])
    bounds = {b["name"]: b["epsilon"] for b in shufflempc.account_amplify(100000, 4)["bounds"]}
    lower = shufflempc.account_amplify(100000, 4)["lower_bound"][0]["epsilon"]
    assert lower <= bounds["blanket-exact"] <= bounds["fmt-numeric"]
    assert bounds["ldp-blanket"] == bounds["blanket-exact"]
    assert lower <= bounds["rr-exact-all"] <= bounds["ldp-blanket"]


def test_account_refuses_bad_values():
    with pytest.raises(ValueError, match=r"epsilon0 must be in \[1e-06, 50\], got 60"):
        shufflempc.account_amplify(1000, 60)
    with pytest.raises(ValueError, match="parties must be in"):
        shufflempc.account_local(1, 1)
    with pytest.raises(ValueError, match="noise must be"):
        shufflempc.account_noise("gaussian", delta=1e-6)
    # What would take minutes is refused up front, as on the command line.
    with pytest.raises(ValueError, match="rounds = 100 at pld step 0.0001 and epsilon0 = 8 would take minutes"):
        shufflempc.account_amplify(100000, 8, rounds=100)
    with pytest.raises(ValueError, match=r"parties must be in \[2, 1000000000\]"):
        shufflempc.account_amplify(10**10, 4)


def test_xor_sum_study_is_the_command_lines(cli):
    table = shufflempc.xor_sum_study(parties=[16], protocols=["rr", "exact"], alphas=[0.5], queries=[1, 4], runs=2,
                                     epsilon=0, seed=5, progress=False, as_frame=False)
    rows = list(csv.DictReader(io.StringIO(cli("study", "xor-sum", "-n", 16, "--protocols", "rr,exact", "--alpha", 0.5,
                                               "--queries", "1,4", "--runs", 2, "--epsilon", 0, "--seed", 5, "--quiet",
                                               "--csv", "-"))))
    assert list(table) == list(rows[0]) and len(rows) == len(table["recovered"])
    for i, row in enumerate(rows):
        assert same_number(row["recovered"], table["recovered"][i])
        assert row["strategy"] == table["strategy"][i]


def test_xor_sum_decode_recovers_the_secret_from_exact_answers():
    rng = np.random.default_rng(1)
    h = 24
    x = rng.integers(0, 2, h, dtype=np.uint8)
    queries = rng.integers(0, 2, (4 * h, h), dtype=np.uint8)
    answers = (queries != x).sum(axis=1).astype(float)  # d_H(x, y): what an exact XOR-sum answers
    for decoder in ("ls", "lp"):
        assert np.array_equal(shufflempc.xor_sum_decode(queries, answers, decoder), x)
    with pytest.raises(ValueError, match="one number per query"):
        shufflempc.xor_sum_decode(queries, answers[:-1])
    with pytest.raises(ValueError, match="bits"):
        shufflempc.xor_sum_decode(queries * 2, answers)
    with pytest.raises(ValueError, match="answers must be finite numbers: answer 0 is not"):
        shufflempc.xor_sum_decode(queries, np.full(len(answers), np.nan))


def test_rounds_study_is_the_command_lines(cli):
    table = shufflempc.rounds_study(functions=["and", "xor-sum"], parties=3, trials=2, seed=4, progress=False, as_frame=False)
    rows = list(csv.DictReader(io.StringIO(cli("study", "rounds", "--functions", "and,xor-sum", "-n", 3, "--trials", 2,
                                               "--seed", 4, "--quiet", "--csv", "-"))))
    assert list(table) == list(rows[0]) and len(rows) == len(table["protocol"])
    for i, row in enumerate(rows):
        assert row["protocol"] == table["protocol"][i]
        assert int(row["rounds"]) == table["rounds"][i]
        assert float(row["bytes_per_party"]) == pytest.approx(table["bytes_per_party"][i], rel=1e-5)  # the CSV keeps 6 digits
    with pytest.raises(ValueError, match="^functions: 'median' is not one of"):
        shufflempc.rounds_study(functions=["median"], progress=False)


def test_rounds_study_at_a_round_trip_time_runs_over_shaped_links():
    # One function, 0 and 50 ms: every row holds its rounds' round trips, and the model is beside it.
    table = shufflempc.rounds_study(functions=["and"], parties=3, trials=1, rtt=[50], progress=False, as_frame=False)
    assert sorted(set(table["rtt_ms"])) == [0, 50]
    for i, rtt in enumerate(table["rtt_ms"]):
        assert table["seconds"][i] >= table["rounds"][i] * rtt / 1000
        assert table["model_seconds"][i] > 0
    with pytest.raises(ValueError, match="^mbps needs rtt"):
        shufflempc.rounds_study(functions=["and"], mbps=10, progress=False)


def test_errors_name_the_keyword_arguments_not_the_command_line_s_flags():
    cases = [(lambda: shufflempc.run("counting", parties=1000, noise="lecture"), "noise='calibrated'"),
             (lambda: shufflempc.study(["counting"], {"epsilon": [0.5, 1]}, fixed={"noise": "loud"}, trials=2, progress=False),
              "fixed['noise']: 'loud' is not one of"),
             (lambda: shufflempc.study(["counting"], {"epsilon": ["x"]}, trials=2, progress=False), "axes['epsilon']: 'x' is not a number"),
             (lambda: shufflempc.run("counting", parties=2000, random_inputs="gauss"), "random_inputs='gauss' is not understood"),
             (lambda: shufflempc.run("counting", parties=2000, min_parties=5000), "min_parties = 5000 is out of range"),
             (lambda: shufflempc.run("counting", parties=2000, mix_servers=3, decryption_threshold=2),
              "decryption_threshold needs mix='verifiable'")]
    for call, words in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert words in str(e.value)
        assert "--" not in str(e.value)

