"""The in-tree PEP 517 backend's choices, without compiling: the metadata hook writes the wheel's
metadata and builds nothing, and the build directory is the tree's build/ only when it is a Release
build of the module for this same interpreter."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "build_backend"))
import shufflempc_build  # noqa: E402


def _tree(tmp_path, cache):
    (tmp_path / "CMakeLists.txt").write_text("project(shufflempc VERSION 9.8.7 LANGUAGES CXX)\n")
    if cache is not None:
        (tmp_path / "build").mkdir()
        (tmp_path / "build" / "CMakeCache.txt").write_text(cache)
    return str(tmp_path)


def test_metadata_hook_writes_the_metadata_and_compiles_nothing(tmp_path, monkeypatch):
    tree = _tree(tmp_path, None)
    monkeypatch.chdir(tree)
    monkeypatch.setattr(shufflempc_build, "_interpreter_sees_numpy", lambda: True)
    out = tmp_path / "meta"
    name = shufflempc_build.prepare_metadata_for_build_wheel(str(out))
    assert name == "shufflempc-9.8.7.dist-info"
    metadata = (out / name / "METADATA").read_text()
    assert "Name: shufflempc\nVersion: 9.8.7\n" in metadata and "Requires-Dist: numpy" in metadata
    assert sorted(os.listdir(tree)) == ["CMakeLists.txt", "meta"]


def test_metadata_hook_without_numpy_stops_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_tree(tmp_path, None))
    monkeypatch.setattr(shufflempc_build, "_interpreter_sees_numpy", lambda: False)
    monkeypatch.delenv("SHUFFLEMPC_FETCH_NUMPY", raising=False)
    with pytest.raises(SystemExit) as stop:
        shufflempc_build.prepare_metadata_for_build_wheel(str(tmp_path / "meta"))
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no numpy" in err and "-m pip install numpy" in err
    assert not (tmp_path / "meta").exists()
    # Who may fetch numpy from the index says so.
    monkeypatch.setenv("SHUFFLEMPC_FETCH_NUMPY", "1")
    assert shufflempc_build.prepare_metadata_for_build_wheel(str(tmp_path / "meta")) == "shufflempc-9.8.7.dist-info"


def _cache(python, build_type="Release", extra=""):
    return f"CMAKE_BUILD_TYPE:STRING={build_type}\n_Python_EXECUTABLE:INTERNAL={python}\n{extra}"


@pytest.mark.parametrize("cache, reused", [
    (_cache(sys.executable), True),
    (_cache(os.path.realpath(sys.executable)), True),
    (_cache(sys.executable, extra="SHUFFLEMPC_PYTHON:BOOL=ON\nSHUFFLEMPC_SANITIZE:BOOL=OFF\n"), True),
    (_cache(sys.executable, build_type="Debug"), False),
    (_cache(sys.executable, extra="SHUFFLEMPC_SANITIZE:BOOL=ON\n"), False),
    (_cache(sys.executable, extra="SHUFFLEMPC_PYTHON:BOOL=OFF\n"), False),
    (_cache("/nonexistent/python3"), False),
    (None, False),
])
def test_build_directory_is_the_trees_build_only_for_this_interpreter(tmp_path, monkeypatch, cache, reused):
    tree = _tree(tmp_path, cache)
    monkeypatch.delenv("SHUFFLEMPC_BUILD_DIR", raising=False)
    expected = os.path.join(tree, "build") if reused else os.path.join(tree, f"build-wheel-{shufflempc_build._tag()}")
    assert shufflempc_build._build_dir(tree) == expected
    monkeypatch.setenv("SHUFFLEMPC_BUILD_DIR", "/elsewhere")
    assert shufflempc_build._build_dir(tree) == "/elsewhere"

