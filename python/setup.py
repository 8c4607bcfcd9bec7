"""Installs clipcl (pure Python over cffi's ABI mode: nothing is compiled). The clip shared
library is bundled into the package when one is found here: $CLIP_LIBRARY at install time, else
the checkout's build/libclip.so.0 (the README's build). Without one, clipcl finds libclip.so.0
at import time ($CLIP_LIBRARY, then the system's loader path: cmake --install)."""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def _library():
    env = os.environ.get("CLIP_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise SystemExit("CLIP_LIBRARY=%s: no such file" % env)
        return env
    found = sorted(glob.glob(os.path.join(HERE, "..", "build", "libclip.so.[0-9]*")))
    return found[0] if found else None


class BuildPy(build_py):
    def run(self):
        build_py.run(self)
        lib = _library()
        if lib:
            # Under its soname, which _ffi looks for beside itself.
            real = os.path.realpath(lib)
            name = os.path.basename(lib)
            if not name.startswith("libclip.so.") or name.count(".") > 2:
                name = "libclip.so." + os.path.basename(real).split(".so.")[1].split(".")[0]
            dst = os.path.join(self.build_lib, "clipcl", name)
            shutil.copyfile(real, dst)
            print("clipcl: bundled %s as %s" % (real, name))
        else:
            print("clipcl: no clip library bundled; clipcl will look for libclip.so.0 at import")


class BinaryDistribution(Distribution):
    # A bundled shared library makes the wheel platform-specific.
    def has_ext_modules(self):
        return _library() is not None


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
