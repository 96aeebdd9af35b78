"""The PEP 517 build backend of the shufflempc Python package: `pip install .` and `python3 -m build`
from the source tree, offline, with nothing but the standard library and what the C++ build needs
(CMake, a compiler, pybind11-dev: `bash scripts/setup.sh` installs them).

Before it compiles anything it checks what the wheel needs and stops in seconds with one line that
says what to do: the build's tools (CMake, a C++ compiler, this interpreter's Python.h) and, when pip
prepares the metadata of an install, numpy for the interpreter the package is installed into (the
case where a venv made from pyenv's, conda's or uv's interpreter would otherwise compile for minutes
and then find no numpy offline).

It configures CMake for the interpreter that runs it (-DPython_EXECUTABLE), builds only the module
(the `shufflempc_python` target and the libraries it links: no tests, benchmarks or examples), and
zips python/shufflempc/*.py and the compiled _core into a wheel tagged for that interpreter. The
build directory is SHUFFLEMPC_BUILD_DIR if set; else the tree's build/ when `scripts/setup.sh`
configured it (Release) for this same interpreter (a venv's python is its base interpreter), so the
install compiles nothing again; else build-wheel-<tag>/ beside the sources, kept, so a second install
of an unchanged tree takes seconds. Either way ccache, which the CMake build uses as its compiler
launcher, keys its entries on paths relative to the tree as setup.sh does, so a fresh build-wheel
directory reuses what setup.sh compiled."""
import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

NAME = "shufflempc"
SUMMARY = "Secure multiparty computation in the shuffle model: protocols, studies, accounting"


def _source_dir():
    return os.path.abspath(os.getcwd())


def _version(src):
    with open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("project(shufflempc VERSION "):
                return line.split("VERSION ")[1].split()[0]
    raise RuntimeError("shufflempc build: no project version in CMakeLists.txt")


def _tag():
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = impl + (getattr(sys, "abiflags", "") or "")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{abi}-{platform}"


def _stop(line):
    """Ends the hook with one line on stderr and exit status 1 (pip shows it as the hook's output)."""
    print(f"shufflempc build: {line}", file=sys.stderr, flush=True)
    sys.exit(1)


def _base_interpreter():
    """The interpreter a venv was made from (the venv's own python is a link to it), resolved."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _check_build_tools():
    """What compiling the module needs, checked in milliseconds before CMake runs."""
    missing = [tool for tool in ("cmake",) if shutil.which(tool) is None]
    if not any(shutil.which(c) for c in (os.environ.get("CXX") or "c++", "g++", "clang++")):
        missing.append("a C++20 compiler")
    header = os.path.join(sysconfig.get_paths()["include"], "Python.h")
    if missing:
        _stop(f"{' and '.join(missing)} not found: run `bash scripts/setup.sh` (as root or with sudo), which installs "
              "the build's Debian packages, then pip again")
    if not os.path.exists(header):
        advice = ("install python3-dev (apt-get install python3-dev)" if _base_interpreter().startswith("/usr/bin/")
                  else "install this interpreter's development headers")
        _stop(f"{sys.executable} has no Python.h ({header}), which the module compiles against: {advice}")


def _interpreter_sees_numpy():
    """Whether this interpreter, run as the user runs it (not in pip's isolated build environment,
    whose PYTHONPATH hides the venv's and the system's packages), imports numpy."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME")}
    return subprocess.run([sys.executable, "-c", "import numpy"], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def _check_numpy():
    """The package requires numpy, and pip resolves it only after the metadata: offline, an interpreter
    without numpy would fail there. Said here, in one line, before anything compiles."""
    if os.environ.get("SHUFFLEMPC_FETCH_NUMPY") == "1" or _interpreter_sees_numpy():
        return
    debian = "/usr/bin/python3"
    if os.path.exists(debian) and _base_interpreter() != os.path.realpath(debian):
        fix = (f"make the venv from Debian's interpreter, which sees python3-numpy: `{debian} -m venv "
               f"--system-site-packages VENV && VENV/bin/pip install .`")
    else:
        fix = ("install Debian's numpy (apt-get install python3-numpy) and make the venv with "
               "`--system-site-packages`")
    _stop(f"{sys.executable} (Python {sys.version_info.major}.{sys.version_info.minor}) has no numpy, which shufflempc "
          f"requires, and nothing is compiled until it has: {fix}; or install numpy for this interpreter first "
          f"(`{sys.executable} -m pip install numpy`, which needs the package index; SHUFFLEMPC_FETCH_NUMPY=1 lets "
          "pip fetch it during this install)")


def _cache_value(cache, name):
    for line in cache.splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return None


def _reusable_build(src):
    """The tree's build/ when it is a Release build of the module for this interpreter, else None."""
    build = os.path.join(src, "build")
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            cache = f.read()
    except OSError:
        return None
    python = _cache_value(cache, "_Python_EXECUTABLE") or _cache_value(cache, "Python_EXECUTABLE")
    if (python and os.path.realpath(python) == _base_interpreter() and _cache_value(cache, "CMAKE_BUILD_TYPE") == "Release"
            and _cache_value(cache, "SHUFFLEMPC_PYTHON") in (None, "ON") and _cache_value(cache, "SHUFFLEMPC_SANITIZE") in (None, "OFF")):
        return build
    return None


def _build_dir(src):
    return os.environ.get("SHUFFLEMPC_BUILD_DIR") or _reusable_build(src) or os.path.join(src, f"build-wheel-{_tag()}")


def _build_module(src):
    _check_build_tools()
    build = _build_dir(src)
    print(f"shufflempc build: building the module in {build}", file=sys.stderr, flush=True)
    env = dict(os.environ)
    env.setdefault("CCACHE_BASEDIR", src)
    env.setdefault("CCACHE_NOHASHDIR", "1")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}",
                        "-DSHUFFLEMPC_PYTHON=ON", "-DSHUFFLEMPC_BUILD_TESTS=OFF", "-DSHUFFLEMPC_BUILD_EXAMPLES=OFF",
                        "-DSHUFFLEMPC_BUILD_BENCH=OFF"], check=True, stdout=sys.stderr, env=env)
    jobs = str(os.cpu_count() or 1)
    subprocess.run(["cmake", "--build", build, "--target", "shufflempc_python", "-j", jobs], check=True, stdout=sys.stderr,
                   env=env)
    module = os.path.join(build, "python", NAME, "_core" + sysconfig.get_config_var("EXT_SUFFIX"))
    if not os.path.exists(module):
        raise RuntimeError(f"shufflempc build: {module} is missing: the build directory {build} was configured for another "
                           f"interpreter than {sys.executable} (unset SHUFFLEMPC_BUILD_DIR, or give one of this interpreter)")
    return module


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\nLicense: see the source tree\n")


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    _check_build_tools()
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The wheel's metadata without compiling (pip resolves the requirements from it first). An
    install (pip calls this hook; `python3 -m build` does not) needs numpy for this interpreter."""
    _check_numpy()
    _check_build_tools()
    version = _version(_source_dir())
    dist_info = f"{NAME}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    return dist_info


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    src = _source_dir()
    version = _version(src)
    module = _build_module(src)
    tag = _tag()
    dist_info = f"{NAME}-{version}.dist-info"
    files = []
    package = os.path.join(src, "python", NAME)
    for source in sorted(n for n in os.listdir(package) if n.endswith(".py")):
        with open(os.path.join(package, source), "rb") as f:
            files.append((f"{NAME}/{source}", f.read()))
    with open(module, "rb") as f:
        files.append((f"{NAME}/{os.path.basename(module)}", f.read()))
    files.append((f"{dist_info}/METADATA", _metadata(version).encode()))
    files.append((f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: shufflempc_build\nRoot-Is-Purelib: false\nTag: {tag}\n".encode()))
    files.append((f"{dist_info}/top_level.txt", f"{NAME}\n".encode()))
    record = "\n".join(_record_line(p, d) for p, d in files) + f"\n{dist_info}/RECORD,,\n"
    name = f"{NAME}-{version}-{tag}.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        z.writestr(f"{dist_info}/RECORD", record)
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The tracked sources (git ls-files where git knows them; else the tree without build folders)."""
    src = _source_dir()
    version = _version(src)
    try:
        listed = subprocess.run(["git", "-C", src, "ls-files", "-z"], check=True, capture_output=True).stdout.split(b"\0")
        paths = [p.decode() for p in listed if p]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for root, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if not d.startswith(("build", ".git"))]
            paths += [os.path.relpath(os.path.join(root, n), src) for n in names]
    base = f"{NAME}-{version}"
    name = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for p in sorted(paths):
            if os.path.isfile(os.path.join(src, p)):
                t.add(os.path.join(src, p), arcname=f"{base}/{p}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(version).encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
