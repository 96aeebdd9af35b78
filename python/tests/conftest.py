import json
import os
import subprocess

import pytest


@pytest.fixture(scope="session")
def cli():
    """Runs the shufflempc binary of the same build and returns its standard output."""
    binary = os.environ.get("SHUFFLEMPC_BIN")
    if not binary:
        pytest.fail("SHUFFLEMPC_BIN is not set: run the suite through ctest (python.pytest)")

    def run(*args, json_output=False):
        out = subprocess.run([binary, *map(str, args)], check=True, capture_output=True, text=True).stdout
        return json.loads(out) if json_output else out

    return run
