"""A one-round protocol's randomizer, shuffle and analyzer called one by one from Python."""
import itertools

import numpy as np
import pytest

import shufflempc


def test_split_mix_is_exact_on_all_small_inputs():
    p = shufflempc.Protocol("split-mix-sum", 3)
    for xs in itertools.product(range(3), repeat=3):
        messages, senders = p.encode_all(list(xs), seed=sum(xs))
        assert messages.dtype == np.uint8 and messages.shape[1] == p.shape()["width"]
        assert list(np.bincount(senders, minlength=3)) == [p.shape()["max_messages"]] * 3
        shuffled = p.shuffle(messages, seed=1)
        assert p.analyze(shuffled) == p.truth(list(xs)) == sum(xs)


def test_shuffle_permutes_rows():
    p = shufflempc.Protocol("randomized-response", 2000)
    messages, _ = p.encode_all(p.random_inputs(seed=4), seed=5)
    shuffled = p.shuffle(messages, seed=6)
    assert sorted(map(bytes, shuffled)) == sorted(map(bytes, messages))
    assert np.array_equal(shuffled, p.shuffle(messages, seed=6))
    assert not np.array_equal(shuffled, messages)


def test_counting_estimate_within_its_predicted_error():
    # The estimate's error is the binomial noise: sd predicted_sd; 7 sd is exceeded with
    # probability below 1e-11 for a law this close to normal (n = 20000).
    n = 20000
    p = shufflempc.Protocol("counting", n, epsilon=1, delta=1e-6)
    inputs = p.random_inputs(seed=11)
    messages, _ = p.encode_all(inputs, seed=12)
    estimate = p.analyze(p.shuffle(messages, seed=13), seed=14)
    assert abs(estimate - p.truth(inputs)) <= 7 * p.predicted_sd


def test_encode_is_one_partys_messages():
    p = shufflempc.Protocol("counting", 100, noise="calibrated")
    one = p.encode(1, party=3, seed=8)
    assert one.shape[1] == p.shape()["width"] and one.shape[0] == p.shape()["max_messages"]
    assert np.array_equal(one, p.encode(1, party=3, seed=8))
    with pytest.raises(ValueError, match="party must be in \\[0, 99\\]"):
        p.encode(1, party=100)


def test_trial_is_a_studys_execution():
    p = shufflempc.Protocol("counting", 5000, epsilon=1)
    t = p.trial(seed=2)
    assert t["messages"] > 0 and t["error"] is not None and abs(t["error"]) <= 7 * p.predicted_sd
    assert t == p.trial(seed=2)


def test_bad_messages_and_rounds_are_refused():
    p = shufflempc.Protocol("counting", 100, noise="calibrated")
    with pytest.raises(ValueError, match="width"):
        p.analyze(np.zeros((4, p.shape()["width"] + 1), dtype=np.uint8))
    with pytest.raises(ValueError, match="2-dimensional"):
        p.analyze(np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="submitted must be in"):
        p.analyze(np.zeros((0, p.shape()["width"]), dtype=np.uint8), submitted=101)
    with pytest.raises(ValueError, match="round must be in"):
        p.shape(1)
    # Floats are refused, not truncated to bytes; integers are taken only when every one is a byte.
    width = p.shape()["width"]
    with pytest.raises(ValueError, match="array of bytes .uint8., got dtype float64"):
        p.analyze(np.full((4, width), 0.9))
    with pytest.raises(ValueError, match="bytes .0 to 255., got values from 0 to 256"):
        p.shuffle(np.array([[0] * width, [256] * width]))
    assert p.analyze(np.zeros((200, width), dtype=np.int64)) == p.analyze(np.zeros((200, width), dtype=np.uint8))
    # An integer JSON cannot hold is a ValueError naming it, not the JSON library's RuntimeError.
    with pytest.raises(ValueError, match="an input must be a number in .-2.63, 2.64 - 1., .*got 1180591620717411303424"):
        shufflempc.Protocol("split-mix-sum", 3).encode(2**70)


def test_multi_round_protocols_have_no_randomizer_to_call():
    q = shufflempc.Protocol("mpc2", 4)
    assert q.rounds > 1
    with pytest.raises(ValueError, match="one-round protocols"):
        q.encode(0)
    assert q.trial() is None


def test_encode_all_is_every_partys_encode_in_order():
    # encode_all runs blocks of 4096 parties on every core: each party's rows are its own encode,
    # in party order, across the blocks' edges.
    p = shufflempc.Protocol("counting", 10000, noise="calibrated")
    inputs = np.array(p.random_inputs(seed=21))
    messages, senders = p.encode_all(inputs, seed=22)
    assert np.all(np.diff(senders) >= 0) and set(senders) == set(range(10000))
    for party in (0, 4095, 4096, 8191, 8192, 9999):
        assert np.array_equal(messages[senders == party], p.encode(inputs[party], party=party, seed=22))
