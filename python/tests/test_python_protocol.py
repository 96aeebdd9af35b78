"""Protocols written in Python (shufflempc.register_protocol): a counting mechanism defined here gives
the built-in counting's outputs for the same seed (its randomizer draws the same stream), runs in
study beside built-in protocols with its predicted error, and every misuse is a ValueError naming
the argument; a Python exception inside a callable reaches the caller as itself."""
import math

import pytest

import shufflempc as smpc

# The lectures' counting protocol, in Python: each user sends its bit and a Bernoulli(p) noise bit;
# the analyzer subtracts the expected noise.


def _configure(params, parties, guaranteed):
    p = 48 * math.log(2 / params["delta"]) / (params["epsilon"] ** 2 * guaranteed)
    if p > 0.5:
        raise ValueError("too few parties for this epsilon and delta")
    return {"p": p, "epsilon": params["epsilon"]}


def _encode(x, s, rng):
    return [x, int(rng.bernoulli(s["p"]))]


def _analyze(messages, submitted, s, rng):
    return float(messages.sum()) - submitted * s["p"]


smpc.register_protocol(
    "py-counting",
    encode=_encode,
    analyze=_analyze,
    truth=sum,
    width=1,
    messages=2,
    params={"epsilon": 1.0, "delta": 1e-6},
    configure=_configure,
    predicted_sd=lambda s, n: math.sqrt(n * s["p"] * (1 - s["p"])),
    summary="counting bits as in the lectures, defined in Python",
)


def test_a_python_counting_mechanism_gives_the_built_in_outputs_for_the_same_seed():
    for seed in (1, 2, 3):
        ours = smpc.run("py-counting", parties=2000, seed=seed)
        built_in = smpc.run("counting", parties=2000, seed=seed, noise="lecture")
        assert ours["output"] == pytest.approx(built_in["output"], abs=1e-9)
        assert ours["truth"] == built_in["truth"]
        assert ours["messages"] == built_in["messages"] == 4000
    # Given inputs, too, and the protocol is listed and described like a built-in one.
    inputs = [1, 0, 1, 1] * 500
    assert smpc.run("py-counting", inputs=inputs, seed=9)["output"] == pytest.approx(
        smpc.run("counting", inputs=inputs, seed=9, noise="lecture")["output"], abs=1e-9)
    assert "py-counting" in [p["name"] for p in smpc.list()]
    d = smpc.describe("py-counting", 2000)
    assert d["details"]["defined_in"] == "python"
    assert d["predicted_sd"] == pytest.approx(smpc.describe("counting", 2000, noise="lecture")["predicted_sd"], rel=1e-12)


def test_a_python_protocol_runs_in_a_study_beside_the_built_in_ones():
    table = smpc.study(["py-counting", "counting:noise=lecture"], {"parties": [2000, 4000]}, trials=100, seed=1,
                       progress=False, as_frame=False)
    rows = dict(zip(zip(table["series"], table["parties"]), table["rmse"]))
    for n in (2000, 4000):
        ours, theirs = rows[("py-counting", n)], rows[("counting noise=lecture", n)]
        sd = smpc.describe("py-counting", n)["predicted_sd"]
        # 100 trials: the RMSE's square is the predicted variance times chi-square(100)/100, in
        # [0.44, 2.25] but with probability below 1e-9; so each RMSE is within 1.5x of the predicted
        # sd, and the two protocols' within 2x of each other.
        assert sd / 1.5 < ours < 1.5 * sd
        assert sd / 1.5 < theirs < 1.5 * sd
        assert theirs / 2 < ours < 2 * theirs


def test_misuse_is_a_value_error_naming_the_argument_and_a_callable_s_exception_is_its_own():
    def ok(*a):
        return [0]

    with pytest.raises(ValueError, match="name 'counting' is registered already"):
        smpc.register_protocol("counting", encode=ok, analyze=ok, truth=sum)
    with pytest.raises(ValueError, match="encode must be a callable"):
        smpc.register_protocol("py-bad", encode=3, analyze=ok, truth=sum)
    with pytest.raises(ValueError, match=r"width must be in \[1, 65536\]"):
        smpc.register_protocol("py-bad", encode=ok, analyze=ok, truth=sum, width=0)
    with pytest.raises(ValueError, match="inputs must be 'bits'"):
        smpc.register_protocol("py-bad", encode=ok, analyze=ok, truth=sum, inputs="floats")
    with pytest.raises(ValueError, match=r"params\['x'\] must be a bool, an int, a float or a str"):
        smpc.register_protocol("py-bad", encode=ok, analyze=ok, truth=sum, params={"x": [1]})
    # A message count other than declared, a message of another width, and the configure's own error.
    smpc.register_protocol("py-three", encode=lambda x, s, rng: [1, 2, 3], analyze=lambda m, n, s, rng: 0, truth=sum, messages=2)
    with pytest.raises(ValueError, match="py-three: encode returned more than 2 messages, the protocol sends 2 per party"):
        smpc.run("py-three", parties=4, seed=1)
    smpc.register_protocol("py-wide", encode=lambda x, s, rng: [b"ab"], analyze=lambda m, n, s, rng: 0, truth=sum)
    with pytest.raises(ValueError, match="py-wide: encode returned a message of 2 bytes, the protocol's width is 1"):
        smpc.run("py-wide", parties=4, seed=1)
    with pytest.raises(ValueError, match="too few parties"):
        smpc.run("py-counting", parties=10, seed=1)
    # A parameter is checked like a built-in one's.
    with pytest.raises(ValueError, match="epsilon"):
        smpc.run("py-counting", parties=2000, seed=1, epsilon="loud")

    class Oops(Exception):
        pass

    def boom(messages, submitted, s, rng):
        raise Oops("the analyzer's own error")

    smpc.register_protocol("py-boom", encode=lambda x, s, rng: [x], analyze=boom, truth=sum)
    with pytest.raises(Oops, match="the analyzer's own error"):
        smpc.run("py-boom", parties=4, seed=1)
    # The Rng given to a call is not valid after it.
    kept = []
    smpc.register_protocol("py-keeps", encode=lambda x, s, rng: kept.append(rng) or [x], analyze=lambda m, n, s, rng: 0, truth=sum)
    smpc.run("py-keeps", parties=2, seed=1)
    with pytest.raises(RuntimeError, match="no longer valid"):
        kept[0].random()


def test_account_local_takes_a_python_protocol_that_chooses_its_local_epsilon():
    # A randomized response whose epsilon0 is the accountant's numeric bound at (n, epsilon, delta).
    def configure(params, parties, guaranteed):
        bounds = smpc.account_local(guaranteed, params["epsilon"], params["delta"])
        return {"epsilon0": bounds["fmt_numeric_epsilon0"], "bound": "fmt-numeric"}

    smpc.register_protocol("py-rr", encode=lambda x, s, rng: [x], analyze=lambda m, n, s, rng: float(m.sum()), truth=sum,
                           params={"epsilon": 1.0, "delta": 1e-6}, configure=configure)
    out = smpc.account_local(10000, 1.0, protocol="py-rr")
    choice = out["protocol"]
    assert choice["name"] == "py-rr" and choice["bound"] == "fmt-numeric"
    assert 1.0 < choice["epsilon0"] and choice["central_epsilon_at_least"] <= 1.0
    with pytest.raises(ValueError, match="protocol py-three: it has no epsilon and delta parameters"):
        smpc.account_local(10000, 1.0, protocol="py-three")


def test_hostile_values_are_value_errors_not_crashes():
    # Nesting without a bottom (a list that holds itself) or 100000 levels deep, as inputs or as what
    # a registered protocol's callables return: a ValueError, where the conversion used to recurse
    # until the interpreter crashed.
    deep = []
    for _ in range(100000):
        deep = [deep]
    looped = []
    looped.append(looped)
    for bad in (deep, looped):
        with pytest.raises(ValueError, match="deeper than 256 levels"):
            smpc.run("randomized-response", inputs=[bad, 1], seed=1)
    smpc.register_protocol("py-deep", encode=lambda x, s, rng: [x], analyze=lambda m, n, s, rng: deep, truth=sum)
    with pytest.raises(ValueError, match="py-deep: analyze's output nests lists or dicts deeper"):
        smpc.run("py-deep", parties=4, seed=1)
    smpc.register_protocol("py-loop", encode=lambda x, s, rng: [x], analyze=lambda m, n, s, rng: 0, truth=lambda xs: looped)
    with pytest.raises(ValueError, match="py-loop: truth's output nests"):
        smpc.run("py-loop", parties=4, seed=1)
    # NaN is no JSON number: an analyzer that returns it is named, not printed as nan.
    smpc.register_protocol("py-nan", encode=lambda x, s, rng: [x], analyze=lambda m, n, s, rng: float("nan"), truth=sum)
    with pytest.raises(ValueError, match="py-nan: analyze's output holds nan"):
        smpc.run("py-nan", parties=4, seed=1)

    # An endless generator from encode is stopped at the first message too many.
    def endless(x, s, rng):
        while True:
            yield x

    smpc.register_protocol("py-endless", encode=endless, analyze=lambda m, n, s, rng: 0, truth=sum)
    with pytest.raises(ValueError, match="py-endless: encode returned more than 1 messages"):
        smpc.run("py-endless", parties=4, seed=1)
    # An error that echoes a 60 KB string: a ValueError, cut, where the rewriting of its words used
    # to overflow the stack.
    with pytest.raises(ValueError) as e:
        smpc.run("counting", parties=4, seed=1, noise="x" * 60000)
    assert "more bytes" in str(e.value) and len(str(e.value)) < 3000


def test_a_study_of_a_registered_protocol_as_the_first_call_of_a_process_completes():
    # pybind11 imports numpy's C API on the first array it makes; made first on a study's thread it
    # used to deadlock with the thread that held the GIL. A fresh interpreter, nothing called before.
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import shufflempc as smpc
        smpc.register_protocol("py-first", encode=lambda x, s, rng: [x], analyze=lambda m, n, s, rng: float(m.sum()), truth=sum)
        t = smpc.study(["py-first"], {"parties": [50, 60]}, trials=4, seed=1, progress=False, as_frame=False)
        print(len(t["series"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
