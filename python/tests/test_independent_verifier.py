"""An independent verifier of the verifiable mix, written from docs/verifier.md alone.

Pure Python (integers, hashlib): ristretto255 and Ed25519 on their own, none of shufflempc's code.
It checks a transcript that `shufflempc run ... --mix verifiable --transcript` wrote: the key, every
hop's proof of shuffle and signature, every decryption proof and the records, and it must refuse the
same file with one hop's output altered, with a record changed, and with a signer swapped. If the
page leaves out a byte or a step, this verifier disagrees with `shufflempc verify`.
"""
import hashlib
import json

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
if SQRT_M1 & 1:
    SQRT_M1 = P - SQRT_M1


def inv(x):
    return pow(x, P - 2, P)


def is_neg(x):
    return (x % P) & 1


def ct_abs(x):
    x %= P
    return P - x if is_neg(x) else x


def sqrt_ratio_m1(u, v):
    u %= P
    v %= P
    r = (u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P)) % P
    check = (v * r * r) % P
    correct, flipped, flipped_i = check == u, check == (-u) % P, check == (-u * SQRT_M1) % P
    if flipped or flipped_i:
        r = (r * SQRT_M1) % P
    return correct or flipped, ct_abs(r)


INVSQRT_A_MINUS_D = sqrt_ratio_m1(1, -1 - D)[1]
ONE_MINUS_D_SQ = (1 - D * D) % P
D_MINUS_ONE_SQ = ((D - 1) ** 2) % P
SQRT_AD_MINUS_ONE = (P - sqrt_ratio_m1(-D - 1, 1)[1]) % P  # RFC 9496's root is the negative one


def add(p1, p2):
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a, b = (y1 - x1) * (y2 - x2) % P, (y1 + x1) * (y2 + x2) % P
    c, d = t1 * 2 * D * t2 % P, z1 * 2 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def neg(p):
    return ((-p[0]) % P, p[1], p[2], (-p[3]) % P)


IDENTITY = (0, 1, 1, 0)


def mul(s, p):
    acc, s = IDENTITY, s % L
    while s:
        if s & 1:
            acc = add(acc, p)
        p, s = add(p, p), s >> 1
    return acc


def decode(b):
    s = int.from_bytes(b, "little")
    if len(b) != 32 or s >= P or is_neg(s):  # bit 255 set means s >= 2^255 > p
        raise ValueError("not a canonical point")
    ss = s * s % P
    u1, u2 = (1 - ss) % P, (1 + ss) % P
    u2_sq = u2 * u2 % P
    v = (-(D * u1 * u1) - u2_sq) % P
    ok, invsqrt = sqrt_ratio_m1(1, v * u2_sq)
    den_x = invsqrt * u2 % P
    den_y = invsqrt * den_x * v % P
    x = ct_abs(2 * s * den_x)
    y = u1 * den_y % P
    t = x * y % P
    if not ok or is_neg(t) or y == 0:
        raise ValueError("not a canonical point")
    return (x, y, 1, t)


def encode(p):
    x0, y0, z0, t0 = p
    u1 = (z0 + y0) * (z0 - y0) % P
    u2 = x0 * y0 % P
    invsqrt = sqrt_ratio_m1(1, u1 * u2 * u2)[1]
    den1, den2 = invsqrt * u1 % P, invsqrt * u2 % P
    z_inv = den1 * den2 * t0 % P
    if is_neg(t0 * z_inv):
        x, y, den_inv = y0 * SQRT_M1 % P, x0 * SQRT_M1 % P, den1 * INVSQRT_A_MINUS_D % P
    else:
        x, y, den_inv = x0, y0, den2
    if is_neg(x * z_inv):
        y = (-y) % P
    return ct_abs(den_inv * (z0 - y)).to_bytes(32, "little")


def elligator(t):
    r = SQRT_M1 * t * t % P
    u = (r + 1) * ONE_MINUS_D_SQ % P
    v = (-1 - r * D) * (r + D) % P
    was_square, s = sqrt_ratio_m1(u, v)
    if not was_square:
        s, c = (-ct_abs(s * t)) % P, r
    else:
        c = P - 1
    n = (c * (r - 1) * D_MINUS_ONE_SQ - v) % P
    w0, w1 = 2 * s * v % P, n * SQRT_AD_MINUS_ONE % P
    w2, w3 = (1 - s * s) % P, (1 + s * s) % P
    return (w0 * w3 % P, w2 * w1 % P, w1 * w3 % P, w0 * w2 % P)


def wide(label, data):
    label = label.encode()
    return hashlib.blake2b(bytes([len(label)]) + label + data, digest_size=64).digest()


def hash_to_scalar(label, data):
    return int.from_bytes(wide(label, data), "little") % L


def hash_to_point(label, data):
    h = wide(label, data)
    mask = 2**255 - 1
    return add(elligator((int.from_bytes(h[:32], "little") & mask) % P), elligator((int.from_bytes(h[32:], "little") & mask) % P))


def equal(p1, p2):
    return (p1[0] * p2[1] - p1[1] * p2[0]) % P == 0 or (p1[1] * p2[1] - p1[0] * p2[0]) % P == 0


def u32(x):
    return x.to_bytes(4, "little")


def u64(x):
    return x.to_bytes(8, "little")


G = decode(bytes.fromhex("e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76"))


# Ed25519 (RFC 8032), verification only, on the same curve.
def ed_decode(b):
    y = int.from_bytes(b, "little") & (2**255 - 1)
    sign = b[31] >> 7
    if y >= P:
        raise ValueError("bad Ed25519 point")
    ok, x = sqrt_ratio_m1(y * y - 1, D * y * y + 1)
    if not ok or (x == 0 and sign):
        raise ValueError("bad Ed25519 point")
    if (x & 1) != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def ed_encode(p):
    zi = inv(p[2])
    x, y = p[0] * zi % P, p[1] * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


ED_BASE = ed_decode((4 * inv(5) % P).to_bytes(32, "little"))


def ed25519_holds(signature, message, public_key):
    r, s = signature[:32], int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(r + public_key + message).digest(), "little") % L
    return ed_encode(add(mul(s, ED_BASE), neg(mul(k, ed_decode(public_key))))) == r


def merkle_root(width, records):
    level = [hashlib.blake2b(b"\x00" + rec, digest_size=32).digest() for rec in records]
    while len(level) > 1:
        up = [hashlib.blake2b(b"\x01" + level[i] + level[i + 1], digest_size=32).digest() for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            up.append(level[-1])
        level = up
    top = level[0] if level else bytes(32)
    return hashlib.blake2b(b"\x02" + u64(width) + u64(len(records)) + top, digest_size=32).digest()


def chunks(b, n):
    return [b[i : i + n] for i in range(0, len(b), n)]


def lagrange_at_zero(indices):
    out = []
    for i in indices:
        num = den = 1
        for j in indices:
            if j != i:
                num, den = num * (j + 1) % L, den * (j - i) % L
        out.append(num * pow(den, L - 2, L) % L)
    return out


def verify(t):
    """The faults of transcript `t` (a dict), an empty list if it is verified."""
    faults = []
    if t["format"] != "shufflempc-verifiable-mix/8":
        return ["format"]
    session, k_hops = bytes.fromhex(t["session"]), t["hops"]
    signers = [bytes.fromhex(s) for s in t["signers"]]
    for r in t["rounds"]:
        rnd, width, limbs = r["round"], r["width"], r["limbs"]
        assert limbs == (width + 15) // 16
        key = r["key"]
        thr, commitments, shares = key["threshold"], [bytes.fromhex(a) for a in key["commitments"]], [bytes.fromhex(y) for y in key["shares"]]
        if len(commitments) != thr or not 1 <= thr <= len(shares):
            faults.append("key")
            continue
        for i, y in enumerate(shares):
            acc = IDENTITY
            for j, a in enumerate(commitments):
                acc = add(acc, mul(pow(i + 1, j, L), decode(a)))
            if not equal(acc, decode(y)):
                faults.append("key share %d" % i)
        # An analyzer-only round (and only it) adds the analyzer's key: Y = A_0 + Y_A.
        esa = r["delivery"] == "analyzer-only"
        if esa != ("analyzer" in key) or esa != ("analyzer_decryption" in r):
            faults.append("round %d analyzer" % rnd)
            continue
        y_key = encode(add(decode(commitments[0]), decode(bytes.fromhex(key["analyzer"])))) if esa else commitments[0]
        Y = decode(y_key)
        batch = bytes.fromhex(r["input"])
        n = len(batch) // (64 * limbs)
        # The senders' proofs of plaintext knowledge: z·G = A + e·c1 for every limb.
        proofs = chunks(bytes.fromhex(r["input_proofs"]), 32 + 64 * limbs)
        if len(proofs) != n:
            faults.append("round %d input proofs" % rnd)
        for i, (rec, pk) in enumerate(zip(chunks(batch, 64 * limbs), proofs)):
            tag, commits, responses = pk[:32], chunks(pk[32 : 32 + 32 * limbs], 32), chunks(pk[32 + 32 * limbs :], 32)
            e = hash_to_scalar("shufflempc/mixnet/plaintext-knowledge", session + u32(rnd) + y_key + tag + rec + b"".join(commits))
            for j in range(limbs):
                c1 = decode(rec[64 * j : 64 * j + 32])
                if not equal(mul(int.from_bytes(responses[j], "little"), G), add(decode(commits[j]), mul(e, c1))):
                    faults.append("round %d record %d knowledge" % (rnd, i))
                    break
        for h, hop in enumerate(r["hops"]):
            out = bytes.fromhex(hop["output"])
            proof = bytes.fromhex(hop["proof"])
            context = session + u32(rnd) + u32(h) + u32(width)
            items = chunks(proof, 32)
            pts, scs = items[: 3 * n + 3 + 2 * limbs], [int.from_bytes(x, "little") for x in items[3 * n + 3 + 2 * limbs :]]
            c, c_hat = pts[:n], pts[n : 2 * n]
            t1, t2, t3 = pts[2 * n : 2 * n + 3]
            t4 = pts[2 * n + 3 : 2 * n + 3 + 2 * limbs]
            t_hat = pts[2 * n + 3 + 2 * limbs :]
            s1, s2, s3 = scs[:3]
            s4 = scs[3 : 3 + limbs]
            s_hat, s_prime = scs[3 + limbs : 3 + limbs + n], scs[3 + limbs + n :]
            gens = [hash_to_point("shufflempc/mixnet/shuffle/generator", u64(i)) for i in range(n + 1)]
            seed = hashlib.blake2b(context + y_key + u64(n) + u64(limbs) + batch + out + b"".join(c), digest_size=64).digest()
            u = [hash_to_scalar("shufflempc/mixnet/shuffle/u", seed + u64(i)) for i in range(n)]
            e = hash_to_scalar("shufflempc/mixnet/shuffle/challenge", seed + b"".join(c_hat) + t1 + t2 + t3 + b"".join(t4) + b"".join(t_hat))
            cp, chp = [decode(x) for x in c], [decode(x) for x in c_hat]
            cin = [[(decode(x[:32]), decode(x[32:])) for x in chunks(rec, 64)] for rec in chunks(batch, 64 * limbs)]
            cout = [[(decode(x[:32]), decode(x[32:])) for x in chunks(rec, 64)] for rec in chunks(out, 64 * limbs)]
            ok = True
            sum_c = sum_h = IDENTITY
            for i in range(n):
                sum_c, sum_h = add(sum_c, cp[i]), add(sum_h, gens[i + 1])
            ok &= equal(add(mul(e, add(sum_c, neg(sum_h))), mul(s1, G)), decode(t1))
            u_prod = 1
            for x in u:
                u_prod = u_prod * x % L
            end = chp[n - 1] if n else gens[0]
            ok &= equal(add(mul(e, add(end, neg(mul(u_prod, gens[0])))), mul(s2, G)), decode(t2))
            acc = mul(s3, G)
            for i in range(n):
                acc = add(add(acc, mul(e * u[i], cp[i])), mul(s_prime[i], gens[i + 1]))
            ok &= equal(acc, decode(t3))
            for j in range(limbs):
                side2, side1 = neg(mul(s4[j], Y)), neg(mul(s4[j], G))
                for i in range(n):
                    side2 = add(add(side2, mul(e * u[i], cin[i][j][1])), mul(s_prime[i], cout[i][j][1]))
                    side1 = add(add(side1, mul(e * u[i], cin[i][j][0])), mul(s_prime[i], cout[i][j][0]))
                ok &= equal(side2, decode(t4[2 * j])) and equal(side1, decode(t4[2 * j + 1]))
            for i in range(n):
                prev = chp[i - 1] if i else gens[0]
                ok &= equal(add(add(mul(e, chp[i]), mul(s_hat[i], G)), mul(s_prime[i], prev)), decode(t_hat[i]))
            if not ok:
                faults.append("round %d hop %d proof" % (rnd, h))
            statement = (b"shufflempc/verifiable-hop/v2" + context + y_key + merkle_root(64 * limbs, chunks(batch, 64 * limbs))
                         + hashlib.blake2b(out, digest_size=32).digest() + hashlib.blake2b(proof, digest_size=32).digest())
            if not ed25519_holds(bytes.fromhex(hop["signature"]), statement, signers[h]):
                faults.append("round %d hop %d signature" % (rnd, h))
            batch = out
        trustees = [d["trustee"] for d in r["decryption"]]
        needed = thr if n else 0  # no server decrypts an empty batch
        if len(set(trustees)) != len(trustees) or len(trustees) < needed or any(i >= len(shares) for i in trustees):
            faults.append("round %d trustees" % rnd)
            continue
        context = session + u32(rnd) + u32(k_hops) + u32(width)
        c1s = [decode(x[:32]) for x in chunks(batch, 64)]
        c2s = [decode(x[32:]) for x in chunks(batch, 64)]
        # Each trustee's shares d_i and one proof (A, B, s) for all of them: with 128-bit weights z_i
        # hashed from the batch and the shares, C = sum z_i c1_i and D = sum z_i d_i; s·G = A + e·Y_i and
        # s·C = B + e·D.
        def proved_shares(i, public, raw):
            """Trustee i's shares of the batch, and whether their one proof holds for its key `public`."""
            count = len(c1s)
            d_bytes, a_b, b_b, s = chunks(raw[: 32 * count], 32), raw[32 * count : 32 * count + 32], raw[32 * count + 32 : 32 * count + 64], int.from_bytes(raw[32 * count + 64 :], "little")
            seed = wide("shufflempc/mixnet/decryption/seed", context + u32(i) + public + u64(count) + b"".join(x[:32] for x in chunks(batch, 64)) + b"".join(d_bytes))
            z = [int.from_bytes(wide("shufflempc/mixnet/decryption/weight", seed + u64(kk))[:16], "little") for kk in range(count)]
            e = hash_to_scalar("shufflempc/mixnet/decryption/challenge", seed + a_b + b_b)
            mine = [decode(x) for x in d_bytes]
            c_sum = d_sum = IDENTITY
            for kk in range(count):
                c_sum, d_sum = add(c_sum, mul(z[kk], c1s[kk])), add(d_sum, mul(z[kk], mine[kk]))
            return mine, equal(mul(s, G), add(decode(a_b), mul(e, decode(public)))) and equal(mul(s, c_sum), add(decode(b_b), mul(e, d_sum)))

        ds = []
        for entry in r["decryption"]:
            mine, ok = proved_shares(entry["trustee"], shares[entry["trustee"]], bytes.fromhex(entry["shares"]))
            if not ok:
                faults.append("round %d trustee %d shares" % (rnd, entry["trustee"]))
            ds.append(mine)
        # The analyzer's, as trustee m (after the servers), under its own key.
        analyzer_ds = None
        if esa:
            analyzer_ds, ok = proved_shares(len(shares), bytes.fromhex(key["analyzer"]), bytes.fromhex(r["analyzer_decryption"]))
            if not ok:
                faults.append("round %d analyzer shares" % rnd)
        # M = c2 - sum lambda_k d_k (- d_A); a limb's bytes are its encoding's bytes 1 to 16 (those past the
        # limb's size, and bytes 19 to 31, zero); a record with a limb that is not so is dropped.
        lam = lagrange_at_zero(trustees)
        records = b""
        for rec in range(len(c1s) // limbs):
            data = b""
            for j in range(limbs):
                kk = rec * limbs + j
                acc = c2s[kk] if analyzer_ds is None else add(c2s[kk], neg(analyzer_ds[kk]))
                for lk, mine in zip(lam, ds):
                    acc = add(acc, neg(mul(lk, mine[kk])))
                enc, size = encode(acc), min(16, width - 16 * j)
                if any(enc[1 + size : 17]) or any(enc[19:]):
                    data = None
                    break
                data += enc[1 : 1 + size]
            if data is not None:
                records += data
        if records != bytes.fromhex(r["records"]):
            faults.append("round %d records" % rnd)
    return faults


def test_an_independent_verifier_agrees_with_shufflempc_verify(cli, tmp_path):
    path = tmp_path / "t.json"
    cli("run", "randomized-response", "--parties", 16, "--seed", 3, "--mix", "verifiable", "--mix-servers", 2, "--transcript", path)
    assert "verified" in cli("verify", path)
    t = json.loads(path.read_text())
    assert t["rounds"] and all(r["width"] == 1 for r in t["rounds"])
    assert verify(t) == []
    # One hop's output with two records swapped: its proof (and its signature) no longer hold.
    swapped = json.loads(path.read_text())
    hop = swapped["rounds"][0]["hops"][1]
    out = bytes.fromhex(hop["output"])
    hop["output"] = (out[64:128] + out[:64] + out[128:]).hex()
    assert "round %d hop 1 proof" % swapped["rounds"][0]["round"] in verify(swapped)
    # A record changed after decryption.
    changed = json.loads(path.read_text())
    rec = bytearray.fromhex(changed["rounds"][0]["records"])
    rec[0] ^= 1
    changed["rounds"][0]["records"] = rec.hex()
    assert verify(changed) == ["round %d records" % changed["rounds"][0]["round"]]
    # Two of a trustee's decryption shares swapped: its one proof no longer holds.
    reshared = json.loads(path.read_text())
    entry = reshared["rounds"][0]["decryption"][0]
    raw = bytes.fromhex(entry["shares"])
    entry["shares"] = (raw[32:64] + raw[:32] + raw[64:]).hex()
    assert "round %d trustee %d shares" % (reshared["rounds"][0]["round"], entry["trustee"]) in verify(reshared)
    # The analyzer's shares (an analyzer-only round's) with two swapped, or left out.
    assert swapped["rounds"][0]["delivery"] == "analyzer-only"
    unopened = json.loads(path.read_text())
    raw = bytes.fromhex(unopened["rounds"][0]["analyzer_decryption"])
    unopened["rounds"][0]["analyzer_decryption"] = (raw[32:64] + raw[:32] + raw[64:]).hex()
    assert "round %d analyzer shares" % unopened["rounds"][0]["round"] in verify(unopened)
    del unopened["rounds"][0]["analyzer_decryption"]
    assert verify(unopened) == ["round %d analyzer" % unopened["rounds"][0]["round"]]
    # A sender's proof of plaintext knowledge altered (a response changed).
    unproved = json.loads(path.read_text())
    proofs = bytearray.fromhex(unproved["rounds"][0]["input_proofs"])
    proofs[32 + 32 + 1] ^= 1  # record 0's first response (one limb), a byte below its top
    unproved["rounds"][0]["input_proofs"] = proofs.hex()
    assert verify(unproved) == ["round %d record 0 knowledge" % unproved["rounds"][0]["round"]]
    # The signers swapped: each hop's signature is another server's.
    resigned = json.loads(path.read_text())
    resigned["signers"].reverse()
    assert len([f for f in verify(resigned) if f.endswith("signature")]) == 2


def keyed(label, data):
    return hashlib.blake2b(data, digest_size=32, key=label.encode()).digest()


def verify_key_generation(config):
    """docs/verifier.md section 8: (faults, disqualified servers, key commitments, public shares)."""
    b = bytes.fromhex(config["distributed_key"])
    at = 0

    def take(n):
        nonlocal at
        if len(b) - at < n:
            raise ValueError("ends early")
        at += n
        return b[at - n : at]

    setup = take(int.from_bytes(take(4), "little"))
    session, t, k = setup[:16], int.from_bytes(setup[16:20], "little"), int.from_bytes(setup[20:24], "little")
    assert len(setup) == 24 + 64 * k and 1 <= t <= k and 2 <= k <= 64
    box = [setup[24 + 64 * i : 56 + 64 * i] for i in range(k)]
    signers = [setup[56 + 64 * i : 88 + 64 * i] for i in range(k)]
    faults = []
    if session != bytes.fromhex(config["session"]):
        faults.append("session")
    for i, item in enumerate(config["mix_chain"]):
        if bytes.fromhex(item.split(":")[0]) != box[i] or bytes.fromhex(item.split(":")[1]) != signers[i]:
            faults.append("server %d keys" % i)
    d = keyed("shufflempc/dkg/setup/v1", setup)
    msgs = [[None] * 4 for _ in range(k)]
    for i in range(k):
        for s in range(4):
            if take(1)[0] == 1:
                body = take(int.from_bytes(take(4), "little"))
                sig = take(64)
                if not ed25519_holds(sig, b"shufflempc/dkg/message/v1" + d + bytes([s + 1]) + u32(i) + body, signers[i]):
                    faults.append("server %d step %d signature" % (i, s + 1))
                msgs[i][s] = body
    messages_end = at
    endorsements = [take(64) if take(1)[0] == 1 else None for _ in range(k)]
    assert at == len(b)

    def listed(body):
        n = int.from_bytes(body[:4], "little")
        return [int.from_bytes(body[4 + 4 * j : 8 + 4 * j], "little") for j in range(n)]

    def answers(body):
        n = int.from_bytes(body[:4], "little")
        return {int.from_bytes(body[4 + 36 * j : 8 + 36 * j], "little"): int.from_bytes(body[8 + 36 * j : 40 + 36 * j], "little") for j in range(n)}

    def at_point(commitments, m):
        acc = IDENTITY
        for j, a in enumerate(commitments):
            acc = add(acc, mul(pow(m + 1, j, L), a))
        return acc

    complainers = {i: [m for m in range(k) if msgs[m][2] is not None and i in listed(msgs[m][2])] for i in range(k)}
    qual, disqualified, deals = [], [], {}
    for i in range(k):
        commit, deal = msgs[i][0], msgs[i][1]
        ok = commit is not None and deal is not None and keyed("shufflempc/dkg/commit/v1", d + u32(i) + deal) == commit
        ok = ok and len(complainers[i]) < t
        if ok:
            deals[i] = [decode(x) for x in chunks(deal[: 32 * t], 32)]
            given = answers(msgs[i][3]) if msgs[i][3] is not None else {}
            ok = all(m in given and equal(mul(given[m], G), at_point(deals[i], m)) for m in complainers[i])
        (qual if ok else disqualified).append(i)
    if len(qual) < t:
        faults.append("fewer than t qualified")
    commitments = [IDENTITY] * t
    for i in qual:
        commitments = [add(a, c) for a, c in zip(commitments, deals[i])]
    shares = [encode(at_point(commitments, m)) for m in range(k)]
    # Consent: every qualified server signed the outcome (the transcript up to the endorsements, QUAL, the key).
    outcome = (b"shufflempc/dkg/outcome/v1" + d + hashlib.blake2b(b[:messages_end], digest_size=32).digest() + u32(len(qual))
               + b"".join(u32(i) for i in qual) + b"".join(encode(a) for a in commitments))
    for i in qual:
        if endorsements[i] is None or not ed25519_holds(endorsements[i], outcome, signers[i]):
            faults.append("server %d endorsement" % i)
    return faults, disqualified, [encode(a) for a in commitments], shares


def test_an_independent_verifier_recomputes_the_servers_key(cli, tmp_path):
    keep, path = tmp_path / "session", tmp_path / "t.json"
    cli("local", "ikos-key-exchange", "--parties", 3, "--k", 2, "--labels", 6, "--mix", "verifiable", "--mix-servers", 3,
        "--decryption-threshold", 2, "--keep-dir", keep, "--transcript", path)
    config = json.loads((keep / "session.json").read_text())
    t = json.loads(path.read_text())  # its proofs are checked by the test above; here its round's key
    faults, disqualified, commitments, shares = verify_key_generation(config)
    assert faults == [] and disqualified == []
    key = t["rounds"][0]["key"]
    assert key["threshold"] == 2
    assert [bytes.fromhex(x) for x in key["commitments"]] == commitments
    assert [bytes.fromhex(x) for x in key["shares"]] == shares
    # A commitment of a deal changed: its signature no longer holds.
    b = bytearray.fromhex(config["distributed_key"])
    setup_len = int.from_bytes(b[:4], "little")
    first_deal = 4 + setup_len + 1 + 4 + 32 + 64 + 1 + 4  # server 0's commitment message, then its deal's body
    b[first_deal] ^= 1
    config["distributed_key"] = b.hex()
    assert "server 0 step 2 signature" in verify_key_generation(config)[0]
    # The last endorsement's last byte changed: that server no longer consents.
    b[first_deal] ^= 1
    b[-1] ^= 1
    config["distributed_key"] = b.hex()
    assert verify_key_generation(config)[0] == ["server 2 endorsement"]
