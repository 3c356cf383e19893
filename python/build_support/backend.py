"""The package's PEP 517 build backend: setuptools', usable without `wheel`.

pip builds every package as a wheel, and setuptools before 70.1 makes
wheels only through the separate `wheel` package.  Debian ships it
(python3-wheel), but a bare CPython (a pyenv build, say) often has
setuptools and no wheel, and with no package index to fetch it from,
`pip install --no-build-isolation ./python` would fail there.  So when
`wheel` is importable every hook is setuptools' own; when it is not,
build_wheel runs `setup.py build` and `egg_info` (plain setuptools) and
zips the result into a wheel itself: the files, METADATA (setuptools'
PKG-INFO), WHEEL with this interpreter's tag, and RECORD (PEP 427).
"""
import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import build_sdist, get_requires_for_build_sdist  # noqa: F401

try:                                  # setuptools >= 64: editable installs
    from setuptools.build_meta import (build_editable,  # noqa: F401
                                       get_requires_for_build_editable,
                                       prepare_metadata_for_build_editable)
except ImportError:
    pass

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _have_wheel():
    try:
        import wheel.bdist_wheel  # noqa: F401
    except ImportError:
        return False
    return True


def get_requires_for_build_wheel(config_settings=None):
    if _have_wheel():
        return _setuptools.get_requires_for_build_wheel(config_settings)
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    if _have_wheel():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory,
                                                            config_settings)
    with tempfile.TemporaryDirectory() as scratch:
        metadata, info = _metadata(scratch, [])
    os.makedirs(os.path.join(metadata_directory, info))
    with open(os.path.join(metadata_directory, info, "METADATA"), "wb") as handle:
        handle.write(metadata)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if _have_wheel():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    return _plain_wheel(wheel_directory)


def _tag():
    """cp311-cp311-linux_x86_64: this interpreter, its ABI, its platform."""
    python = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s%s-%s" % (python, python, getattr(sys, "abiflags", ""), platform)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (arcname, digest.decode("ascii"), len(data))


def _metadata(scratch, commands):
    """Run setup.py `commands` then egg_info in scratch: (PKG-INFO, dist-info name)."""
    subprocess.check_call([sys.executable, "setup.py", "-q"] + commands +
                          ["egg_info", "--egg-base", scratch], cwd=HERE, stdout=sys.stderr)
    with open(os.path.join(scratch, "tdbf.egg-info", "PKG-INFO"), "rb") as handle:
        metadata = handle.read()
    version = next(line.split(b":", 1)[1].strip().decode()
                   for line in metadata.splitlines() if line.startswith(b"Version:"))
    return metadata, "tdbf-%s.dist-info" % version


def _plain_wheel(wheel_directory):
    with tempfile.TemporaryDirectory() as scratch:
        lib = os.path.join(scratch, "lib")
        metadata, info = _metadata(scratch, ["build", "--build-base",
                                             os.path.join(scratch, "build"),
                                             "--build-lib", lib])
        version = info[len("tdbf-"):-len(".dist-info")]
        files = {}
        for root, _, names in os.walk(lib):
            for name in names:
                path = os.path.join(root, name)
                with open(path, "rb") as handle:
                    files[os.path.relpath(path, lib).replace(os.sep, "/")] = handle.read()
        files[info + "/METADATA"] = metadata
        files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: tdbf build_support\n"
                                  "Root-Is-Purelib: false\nTag: %s\n" % _tag()).encode()
        record = [_record_line(arcname, data) for arcname, data in sorted(files.items())]
        record.append(info + "/RECORD,,")
        files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
        name = "tdbf-%s-%s.whl" % (version, _tag())
        with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                             zipfile.ZIP_DEFLATED) as whl:
            for arcname, data in files.items():
                whl.writestr(arcname, data)
        return name
