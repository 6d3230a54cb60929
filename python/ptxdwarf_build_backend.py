"""The PEP 517 build backend of the ptxdwarf package: the project's CMake
build of the extension, packed into a wheel with the standard library alone.

`python3 -m pip install --no-build-isolation python/` (or the repository
root) works offline with any pip >= 21.3 and nothing else installed: no
setuptools, no wheel, no scikit-build. The build directory is
build-pip/<interpreter> at the repository root (PTXDWARF_PIP_BUILD_DIR
chooses another), kept between installs so that a second install rebuilds
only what changed; ccache is used when it is on PATH.
"""

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "ptxdwarf"


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(ptxdwarf VERSION ([0-9.]+)", f.read())
    return match.group(1) if match else "0"


def _tag():
    python = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return python, python, platform


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: The DWARF of NVIDIA PTX: read, checked and produced\n"
            "Requires-Python: >=3.8\n" % (NAME, _version()))


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: ptxdwarf_build_backend\nRoot-Is-Purelib: false\nTag: %s-%s-%s\n"
            % _tag())


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, _dist_info())
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info()


def _run(command):
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=sys.stderr)


def _build_extension():
    """Configures and builds the _ptxdwarf target; returns the package directory it made."""
    build = os.environ.get("PTXDWARF_PIP_BUILD_DIR") or os.path.join(ROOT, "build-pip", "-".join(_tag()))
    configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                 "-DPTXDWARF_BUILD_TESTS=OFF", "-DPTXDWARF_BUILD_PTXDUMP=OFF",
                 "-DPTXDWARF_PYTHON=ON", "-DPTXDWARF_REQUIRE_PYTHON=ON",
                 "-DPython_EXECUTABLE=" + sys.executable]
    if shutil.which("ccache"):
        configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    _run(configure)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    _run(["cmake", "--build", build, "--target", "_ptxdwarf", "-j", jobs])
    return os.path.join(build, "python", NAME)


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build_extension()
    files = {}
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") or (name.startswith("_ptxdwarf") and name.endswith(".so")):
            with open(os.path.join(package, name), "rb") as f:
                files["%s/%s" % (NAME, name)] = f.read()
    if not any(n.endswith(".so") for n in files):
        raise RuntimeError("the build made no extension module in " + package)
    info = _dist_info()
    files[info + "/METADATA"] = _metadata().encode()
    files[info + "/WHEEL"] = _wheel_file().encode()
    record = [_record_line(path, data) for path, data in files.items()] + [info + "/RECORD,,"]
    files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = "%s-%s-%s.whl" % (NAME, _version(), "-".join(_tag()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel
