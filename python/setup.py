"""Build the tdbf extension: python/src/*.c with libtdbf compiled in.

libtdbf's sources (src/lib/**/*.c, include/*.h) are found beside this
directory in the tdbf tree, whatever directory pip runs this from: the
path is taken from this file's real location, or from TDBF_SOURCE_DIR
(the root of a tdbf tree) when the package directory was copied
elsewhere.  The library is compiled into the extension itself, so the
installed package needs no system libtdbf; only the extension's entry
point is exported (the tdbf_* symbols stay private to it).

Environment:
  TDBF_SOURCE_DIR  root of the tdbf tree (default: this file's parent)
  TDBF_WERROR=1    turn compiler warnings into errors (the tree's CI)
"""
import glob
import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.realpath(__file__))


def tdbf_root():
    candidates = [os.environ.get("TDBF_SOURCE_DIR"), os.path.dirname(HERE)]
    for root in candidates:
        if root and os.path.isfile(os.path.join(root, "include", "tdbf.h")):
            return os.path.abspath(root)
    sys.exit("tdbf: libtdbf's sources were not found beside %s; set TDBF_SOURCE_DIR "
             "to the root of the tdbf tree (the directory with include/tdbf.h)" % HERE)


def relative(path):
    # setuptools wants the package's own sources relative to setup.py
    return os.path.relpath(path, HERE)


def library_version(root):
    """The package's version is the library's: TDBF_VERSION_STRING."""
    with open(os.path.join(root, "include", "tdbf.h"), encoding="utf-8") as header:
        for line in header:
            if line.startswith("#define TDBF_VERSION_STRING"):
                return line.split('"')[1]
    sys.exit("tdbf: no TDBF_VERSION_STRING in include/tdbf.h")


ROOT = tdbf_root()
lib_sources = sorted(glob.glob(os.path.join(ROOT, "src", "lib", "**", "*.c"), recursive=True))
ext_sources = sorted(glob.glob(os.path.join(HERE, "src", "*.c")))

compile_args = ["-std=c11", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra"]
if os.environ.get("TDBF_WERROR") == "1":
    compile_args.append("-Werror")
link_args = []
if sys.platform.startswith("linux"):
    # Export PyInit__tdbf alone: libtdbf's own symbols (default visibility
    # in tdbf.h) must not clash with another copy loaded in the process.
    link_args.append("-Wl,--version-script=" + os.path.join(HERE, "src", "exports.map"))

extension = Extension(
    "tdbf._tdbf",
    # Relative paths (setuptools refuses absolute ones): libtdbf's objects
    # land in <build-base>/src/lib, beside the temporary directory.
    sources=[relative(p) for p in ext_sources + lib_sources],
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src", "lib")],
    depends=[relative(p) for p in glob.glob(os.path.join(HERE, "src", "*.h"))
             + glob.glob(os.path.join(ROOT, "src", "lib", "**", "*.h"), recursive=True)
             + glob.glob(os.path.join(ROOT, "include", "*.h"))],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
    libraries=["m"],
)

with open(os.path.join(HERE, "README.md"), encoding="utf-8") as readme:
    long_description = readme.read()

setup(
    name="tdbf",
    version=library_version(ROOT),
    description="Time-decaying Bloom filters: have I seen this key in the last N keys "
                "or T seconds?",
    long_description=long_description,
    long_description_content_type="text/markdown",
    python_requires=">=3.9",
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: C",
        "Operating System :: POSIX :: Linux",
        "Topic :: Software Development :: Libraries",
    ],
    packages=["tdbf"],
    package_data={"tdbf": ["py.typed", "*.pyi"]},
    # The package data is named above; the manifest (which lists libtdbf's
    # sources outside this directory) must not be read as package data.
    include_package_data=False,
    ext_modules=[extension],
    # Two compilers at once: the library is ~30 files.
    options={"build_ext": {"parallel": min(2, os.cpu_count() or 1)}},
)
