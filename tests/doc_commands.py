#!/usr/bin/env python3
"""CTest check: every command a page shows is run as written and runs clean.

    doc_commands.py --source SOURCE_DIR --build BUILD_DIR --work SCRATCH PAGE.md...

A page's commands are the lines of its shell code blocks (fence ``` or ```sh) that hold at least
one line starting with `shufflempc`, `build/bin/`, or naming `build/bin/shufflempc`. Every command
of such a block (lines joined until bash parses them whole) runs, in order, with bash, in a scratch
folder of the block's own laid out as the source tree's top level (so a block that writes `aes.txt`
before it uses it works as written, and `bench/x.py` is found), with this build's binaries first on
PATH and `build/` linking to this build. Each command must exit 0, print no infeasible row (a study cell its
defaults cannot run) and no error line.

The pages of docs/performance/ are not given to it: their commands are the measurements (minutes
each), run again when a figure is measured; tests/performance_pages.py checks their shape.

A command is not run only where SKIPPED below names it with the reason: it needs hosts a test does
not have, another test runs it as written, or it is a measurement that takes minutes. An entry that
no longer matches a command fails the check, so the list stays true as the pages change. A file
a command reads is made by a line of its page's block before it: nothing is hidden in the test.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

COMMAND = re.compile(r"^(shufflempc |build/bin/)|build/bin/shufflempc")

# (page, scope, regular expression searched in a command, why it is not run here). The scope
# "page" leaves out every command of the page, "block" the whole block holding a matching command,
# "command" that command alone.
HOSTS = "a multi-host run with placeholder hosts and keys; docs.network_walkthrough runs every role"
SKIPPED = [
    ("README.md", "command", r"^bash scripts/setup\.sh",
     "quick start 1: the set-up this build came from"),
    ("README.md", "command", r"^bash scripts/test\.sh", "quick start 2: the suite this check is part of"),
    ("network.md", "command", r"--connect host:7000", HOSTS),
    ("network.md", "command", r"--listen 0\.0\.0\.0:7000", HOSTS),
    ("network.md", "block", r"--shuffler-key K0 --analyzer-key A ", HOSTS),
    ("network.md", "block", r"--analyzer-key A_V",
     "a DKG across hosts named by placeholders; tests/cli/test_session_dkg.cpp runs it in processes"),
    ("network.md", "block", r"^set -euo pipefail",
     "the walkthrough docs.network_walkthrough runs as one script, as written"),
    ("network.md", "command", r"a4dc48c9\.\.\.332a", "a shortened key, as printed in the text"),
    ("websocket.md", "block", r"^set -euo pipefail",
     "the walkthrough docs.websocket_walkthrough runs as one script, as written"),
    ("survey.md", "block", r"^set -euo pipefail",
     "the walkthrough docs.survey_walkthrough runs as one script, as written"),
    ("survey.md", "command", r"^build/bin/shufflempc survey ",
     "serves the survey until Ctrl-C; tests/web/survey_flow.mjs clicks one through in Chromium"),
    ("accounting.md", "command", r"^for n in 100000000 1000000000;",
     "a timed measurement at 10^8 and 10^9 parties (a minute); the next command runs amplify the same way"),
    ("study.md", "command", r"^(mpirun|srun) ", "a cluster's launcher (a host file, Slurm)"),
    ("study.md", "command", r"--csv docs/figures/",
     "regenerates a committed figure; scripts/seeded-docs.sh runs the same study and compares its CSV"),
    ("correlated-noise.md", "command", r"--trials 400 --seed 1$",
     "the committed figure's study; scripts/seeded-docs.sh runs it and compares its CSV"),
    ("xor-sum.md", "command", r"--csv docs/figures/xor-sum\.csv",
     "regenerates a committed figure; scripts/seeded-docs.sh runs the same study and compares its CSV"),
    ("split-mix.md", "command", r"bench_split_mix --errors 10000",
     "a benchmark's error sweep (minutes), run again when its figures are measured"),
]


def blocks(text):
    """Yield (line number, [lines]) for each fenced block of shell."""
    lines = text.split("\n")
    inside, body, start, shell = False, [], 0, False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if inside:
                if shell:
                    yield start, body
                inside = False
            else:
                inside, body, start = True, [], number
                shell = line.strip() in ("```", "```sh", "```bash")
        elif inside:
            body.append((number, line))


def complete(command):
    """Whether bash parses the command as it stands (no open quote, loop or continuation)."""
    if command.endswith("\\"):
        return False
    return subprocess.run(["bash", "-n", "-c", command], capture_output=True).returncode == 0


def logical_lines(body):
    """The block's commands: lines joined until bash parses them whole."""
    pending, first = "", 0
    for number, line in body:
        if not pending:
            first = number
        pending = pending + ("\n" if pending else "") + line
        if complete(pending):
            yield first, pending
            pending = ""
    if pending:
        yield first, pending


def block_folder(source, build, work, page, line):
    """A fresh folder for one block, laid out as the source tree's top level (the commands are
    written to run there): its folders linked, `build` linking to this build, an empty docs/figures
    (a figure a command writes must not overwrite the committed one)."""
    folder = os.path.join(os.path.abspath(work), f"{os.path.splitext(page)[0]}-{line}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "docs", "figures"))
    for entry in os.listdir(source):
        if entry not in ("build", "docs", ".git") and os.path.isdir(os.path.join(source, entry)):
            os.symlink(os.path.join(source, entry), os.path.join(folder, entry))
    os.symlink(build, os.path.join(folder, "build"))
    return folder


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    source, build = os.path.abspath(args.source), os.path.abspath(args.build)
    used = [False] * len(SKIPPED)
    failures, ran, skipped = [], 0, 0
    env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ["PATH"],
               MPLBACKEND="Agg")
    for page in args.pages:
        name = os.path.basename(page)
        with open(os.path.join(source, page), encoding="utf-8") as f:
            text = f.read()
        page_reason = None
        for i, (rule_page, scope, pattern, why) in enumerate(SKIPPED):
            if rule_page == name and scope == "page":
                used[i], page_reason = True, why
        for start, body in blocks(text):
            if not any(COMMAND.search(line) for _, line in body):
                continue
            commands = [(n, c) for n, c in logical_lines(body) if c.strip() and not c.strip().startswith("#")]
            block_reason = page_reason
            for i, (rule_page, scope, pattern, why) in enumerate(SKIPPED):
                if rule_page == name and scope == "block" and any(re.search(pattern, c.strip(), re.M)
                                                                   for _, c in commands):
                    used[i], block_reason = True, why
            folder = None  # made when the block's first command runs
            for number, command in commands:
                stripped = command.strip()
                where = f"{page}:{number}"
                reason = block_reason
                for i, (rule_page, scope, pattern, why) in enumerate(SKIPPED):
                    if reason is None and rule_page == name and scope == "command" and re.search(pattern, stripped):
                        used[i], reason = True, why
                if reason:
                    skipped += 1
                    print(f"skipped  {where}  {stripped.splitlines()[0][:90]}\n         ({reason})", flush=True)
                    continue
                if folder is None:
                    folder = block_folder(source, build, args.work, name, start)
                began = time.monotonic()
                try:
                    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=folder, env=env,
                                          capture_output=True, text=True, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    failures.append(f"{where}: `{stripped}` did not finish in {args.timeout:.0f} s")
                    continue
                took = time.monotonic() - began
                ran += 1
                said = (done.stdout + "\n" + done.stderr).lower()
                problem = None
                if done.returncode != 0:
                    problem = f"exited {done.returncode}"
                elif "infeasible" in said or ',false,"' in done.stdout:
                    problem = "printed an infeasible row"
                elif re.search(r"(^|\n)(shufflempc[^\n]*: )?error\b", done.stderr, re.IGNORECASE):
                    problem = "printed an error"
                if problem:
                    failures.append(f"{where}: `{stripped}` {problem}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
                print(f"{'FAILED' if problem else 'ran':8} {where}  {took:6.1f} s  {stripped.splitlines()[0][:90]}",
                      flush=True)
    for i, (rule_page, scope, pattern, why) in enumerate(SKIPPED):
        if not used[i] and any(os.path.basename(p) == rule_page for p in args.pages):
            failures.append(f"the skip entry ({rule_page}, {pattern!r}) matches no command: remove it")
    print(f"doc_commands: {ran} commands ran, {skipped} skipped with a reason, {len(failures)} failed")
    for failure in failures:
        print("\n" + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
