"""The PEP 517 build backend of the shufflempc Python package: `pip install .` and `python3 -m build`
from the source tree, offline, with nothing but the standard library and what the C++ build needs
(CMake, a compiler, pybind11-dev: `bash scripts/setup.sh` installs them).

It configures CMake for the interpreter that runs it (-DPython_EXECUTABLE), builds only the module
(the `shufflempc_python` target and the libraries it links: no tests, benchmarks or examples), and
zips python/shufflempc/__init__.py and the compiled _core into a wheel tagged for that interpreter.
SHUFFLEMPC_BUILD_DIR names a build directory to use instead of a fresh one beside the sources (an
existing build of the same interpreter builds nothing again)."""
import base64
import hashlib
import io
import os
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


def _build_module(src):
    build = os.environ.get("SHUFFLEMPC_BUILD_DIR") or os.path.join(src, f"build-wheel-{_tag()}")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}",
                        "-DSHUFFLEMPC_PYTHON=ON", "-DSHUFFLEMPC_BUILD_TESTS=OFF", "-DSHUFFLEMPC_BUILD_EXAMPLES=OFF",
                        "-DSHUFFLEMPC_BUILD_BENCH=OFF"], check=True, stdout=sys.stderr)
    jobs = str(os.cpu_count() or 1)
    subprocess.run(["cmake", "--build", build, "--target", "shufflempc_python", "-j", jobs], check=True, stdout=sys.stderr)
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
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    src = _source_dir()
    version = _version(src)
    module = _build_module(src)
    tag = _tag()
    dist_info = f"{NAME}-{version}.dist-info"
    files = []
    with open(os.path.join(src, "python", NAME, "__init__.py"), "rb") as f:
        files.append((f"{NAME}/__init__.py", f.read()))
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
