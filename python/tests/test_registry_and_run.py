"""The registry and runs: the same reports as the command line for the same seed, and bad input
refused with the parameter's name and range."""
import math

import numpy as np
import pytest

import shufflempc


def as_json(value):
    """What the command line's JSON would hold: NaN (which JSON cannot carry) prints as null."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def without_time(report):
    return as_json({k: v for k, v in report.items() if k != "seconds"})


def test_list_is_the_command_lines(cli):
    # The package's registry is the command line's, and after it the protocols this session
    # registered from Python (test_python_protocol.py), which the command line does not know.
    theirs = cli("list", "--json", json_output=True)
    built_in = {p["name"] for p in theirs}
    everything = shufflempc.list()
    mine = [p for p in everything if p["name"] in built_in]
    assert mine == theirs
    assert all(p["name"].startswith("py-") for p in everything if p["name"] not in built_in)
    names = [p["name"] for p in mine]
    assert "counting" in names and "split-mix-sum" in names
    for p in mine:
        for param in p["params"]:
            assert {"name", "default", "range", "help"} <= set(param)


def test_describe():
    d = shufflempc.describe("counting", 2000, epsilon=1, delta=1e-6)
    assert d["rounds"] == 1 and d["trust_model"] == "shuffle"
    assert d["shapes"][0]["width"] >= 1 and d["shapes"][0]["delivery"] == "analyzer_only"
    assert d["predicted_sd"] > 0
    assert d["details"] == shufflempc.Protocol("counting", 2000, epsilon=1, delta=1e-6).describe()


@pytest.mark.parametrize("protocol,parties,params", [
    ("counting", 500, {"epsilon": 0.5, "noise": "calibrated"}),
    ("randomized-response", 300, {}),
    ("histogram", 2000, {"domain": 8}),
    ("split-mix-sum", 20, {}),
    ("ikos-key-exchange", 4, {}),
])
def test_run_is_the_command_lines(cli, protocol, parties, params):
    mine = shufflempc.run(protocol, parties=parties, seed=7, **params)
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in params.items()]
    theirs = cli("run", protocol, "--parties", parties, "--seed", 7, "--json", *flags, json_output=True)
    assert without_time(mine) == without_time(theirs)


def test_run_with_inputs_from_numpy():
    bits = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1] * 200)
    report = shufflempc.run("counting", bits, seed=3)
    assert report["parties"] == 2000 and report["truth"] == int(bits.sum())
    assert report["error"] == report["output"] - report["truth"]
    # The inputs a seed draws are the ones run draws with that seed.
    p = shufflempc.Protocol("counting", 2000)
    assert without_time(shufflempc.run("counting", p.random_inputs(seed=9), seed=9)) == \
        without_time(shufflempc.run("counting", parties=2000, seed=9))


def test_run_with_dropouts_and_a_mix_chain():
    report = shufflempc.run("counting", parties=200, seed=1, dropouts=5, noise="calibrated")
    assert len(report["dropped"]) == 5
    chained = shufflempc.run("randomized-response", parties=100, seed=2, mix_servers=3)
    assert len(chained["mix_chain"]["rounds"][0]["hops"]) == 3
    plain = shufflempc.run("randomized-response", parties=100, seed=2)
    assert chained["output"] == plain["output"]


def test_counts_take_exact_floats_and_numpy_integers_and_refuse_the_rest_naming_the_argument():
    by_int = shufflempc.run("counting", parties=100000, seed=3)
    by_float = shufflempc.run("counting", parties=1e5, seed=3)
    assert by_float["parties"] == 100000 and by_float["output"] == by_int["output"]
    assert shufflempc.run("counting", parties=np.int64(2000), min_parties=np.uint16(1000), seed=1)["parties"] == 2000
    assert shufflempc.Protocol("counting", 1e4).parties == 10000
    assert shufflempc.account_amplify(parties=1e5, epsilon0=1)["parties"] == 100000
    for kwargs, name in [({"parties": 2.5}, "parties"), ({"parties": True}, "parties"), ({"parties": "100"}, "parties"),
                         ({"parties": -3}, "parties"), ({"parties": float("nan")}, "parties"),
                         ({"parties": 1000, "min_parties": 2.5}, "min_parties"), ({"parties": 1000, "dropouts": -1}, "dropouts")]:
        with pytest.raises(ValueError, match=f"^{name} must be a non-negative whole number, got "):
            shufflempc.run("counting", **kwargs)
    with pytest.raises(ValueError, match="^parties must be a non-negative whole number, got 1000.1"):
        shufflempc.Protocol("counting", 1000.1)
    with pytest.raises(ValueError, match="^k must be a non-negative whole number"):
        shufflempc.account_local(parties=1000, epsilon=1, k=2.5)


def test_a_mistyped_name_is_answered_with_the_nearest():
    with pytest.raises(ValueError, match="unknown protocol 'countng': did you mean 'counting'[?]"):
        shufflempc.run("countng", parties=100)
    with pytest.raises(ValueError, match="unknown keyword argument 'epsilom': did you mean 'epsilon'[?] .counting's parameters: "
                                         "epsilon, delta, noise."):
        shufflempc.run("counting", parties=1000, epsilom=1)
    with pytest.raises(ValueError, match="unknown keyword argument 'min_partys': did you mean 'min_parties'[?]"):
        shufflempc.run("counting", parties=1000, min_partys=10)
    with pytest.raises(ValueError, match="unknown keyword argument 'input_bit': did you mean 'input_bits'[?]"):
        shufflempc.Protocol("split-mix-sum", 10, input_bit=8)
    with pytest.raises(ValueError, match="'noise' = calibratd is not accepted: must be one of: lecture, calibrated; "
                                         "did you mean 'calibrated'[?]"):
        shufflempc.run("counting", parties=1000, noise="calibratd")


def test_bad_parameters_name_themselves():
    with pytest.raises(ValueError, match="epsilon"):
        shufflempc.run("counting", parties=100, epsilon=-1)
    with pytest.raises(ValueError, match="unknown protocol|no protocol"):
        shufflempc.run("no-such-protocol", parties=10)
    with pytest.raises(ValueError, match="needs inputs or parties"):
        shufflempc.run("counting")
    with pytest.raises(ValueError, match="500 values for 10 parties|holds 500"):
        shufflempc.run("counting", [0] * 500, parties=10)
    with pytest.raises(ValueError, match="input of party 1 must be 0 or 1, got 7"):
        shufflempc.run("randomized-response", [0, 7, 1])
    with pytest.raises(ValueError, match="seed"):
        shufflempc.run("counting", parties=10, seed=-1)
    with pytest.raises(ValueError, match="an input must be a number in .-2.63, 2.64 - 1."):
        shufflempc.run("split-mix-sum", [2**200] * 5)
