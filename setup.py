"""Builds the tracehound package's extension module with the project's CMake.

`pip install --no-build-isolation .` runs CMake (Release, the Python module
on) in the build folder setuptools gives, builds the module and the built-in
plugins, and puts the module, the plugins (tracehound/plugins), the on-demand
modules (tracehound/modules) and the shipped pipelines (tracehound/configs)
into the package. TRACEHOUND_CMAKE_ARGS adds CMake arguments; the build uses
all cores unless CMAKE_BUILD_PARALLEL_LEVEL says otherwise.
TRACEHOUND_CMAKE_BUILD_DIR names a build folder already configured with the
module on (e.g. build/): it is built, not configured again.
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("TRACEHOUND_CMAKE_BUILD_DIR")
        if build:
            build = os.path.abspath(build)
        else:
            build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            self._configure(build)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", build, "-j", jobs, "--target", "_tracehound",
                        "tracehound_plugins"], check=True)
        target = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        os.makedirs(target, exist_ok=True)
        for so in glob.glob(os.path.join(build, "python", "tracehound", "_tracehound*.so")):
            shutil.copy2(so, target)
        self._copy_folder(os.path.join(build, "plugins"), os.path.join(target, "plugins"), "*.so")
        self._copy_folder(os.path.join(build, "lib", "tracehound", "modules"),
                          os.path.join(target, "modules"), "*.so")
        self._copy_folder(os.path.join(ROOT, "configs"), os.path.join(target, "configs"), "*.yaml")

    @staticmethod
    def _configure(build):
        os.makedirs(build, exist_ok=True)
        configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                     "-DTRACEHOUND_PYTHON=ON", "-DTRACEHOUND_BUILD_TESTS=OFF",
                     "-DTRACEHOUND_BUILD_BENCHMARKS=OFF", f"-DPYTHON_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("TRACEHOUND_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)

    @staticmethod
    def _copy_folder(source, target, pattern):
        os.makedirs(target, exist_ok=True)
        for path in glob.glob(os.path.join(source, "**", pattern), recursive=True):
            shutil.copy2(path, target)


setup(ext_modules=[CMakeExtension("tracehound._tracehound")], cmdclass={"build_ext": CMakeBuild})
