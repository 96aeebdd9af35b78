"""A one-round protocol written in Python: the lectures' counting (each user sends its bit and a
Bernoulli(p) noise bit; the analyzer subtracts the expected noise), registered beside the built-in
protocols, run, and studied against them (docs/python.md, "A protocol in Python")."""
import math

import shufflempc as smpc


def configure(params, parties, guaranteed):  # the parameters -> the settings encode and analyze see
    p = 48 * math.log(2 / params["delta"]) / (params["epsilon"] ** 2 * guaranteed)
    if p > 0.5:
        raise ValueError(f"{guaranteed} parties are too few for epsilon = {params['epsilon']}")
    return {"p": p}


smpc.register_protocol(
    "py-counting",
    encode=lambda x, s, rng: [x, int(rng.bernoulli(s["p"]))],  # one party's messages
    analyze=lambda messages, submitted, s, rng: float(messages.sum()) - submitted * s["p"],
    truth=sum,  # what the output estimates, from every input
    width=1, messages=2, inputs="bits",
    params={"epsilon": 1.0, "delta": 1e-6},  # the defaults, and their types
    configure=configure,
    predicted_sd=lambda s, n: math.sqrt(n * s["p"] * (1 - s["p"])),
)

ours = smpc.run("py-counting", parties=10000, seed=1)
theirs = smpc.run("counting", parties=10000, seed=1, noise="lecture")
print(f"py-counting {ours['output']:.3f}, built-in counting {theirs['output']:.3f}, truth {ours['truth']}")
assert abs(ours["output"] - theirs["output"]) < 1e-9  # the same randomness, drawn the same way

table = smpc.study(["py-counting", "counting:noise=lecture"], {"parties": [10000, 100000]}, trials=20, seed=1,
                   progress=False, as_frame=False)
for series, n, rmse in zip(table["series"], table["parties"], table["rmse"]):
    print(f"{series:24} n = {n:>6}  RMSE {rmse:7.2f}  predicted sd {smpc.describe('py-counting', n)['predicted_sd']:.2f}")
