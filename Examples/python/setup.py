"""The build step of gym2048: compile the Swift server (`swift build -c release --product g2048`) and put the
binary inside the package as gym2048/bin/g2048. Everything else is in pyproject.toml.

`G2048_BIN` set to a built g2048 skips the compilation and installs that binary.
"""

import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
NO_TOOLCHAIN = ("gym2048 needs the Swift 6.3 toolchain to build its server: install it from swift.org "
                "(or set G2048_BIN to a built g2048) and run pip again")


def repository_root():
    """The folder with the Swift package's Package.swift, at or above this one, or None (e.g. an unpacked sdist)."""
    folder = HERE
    while True:
        if os.path.isfile(os.path.join(folder, "Package.swift")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def build_server():
    """The path of a release g2048: G2048_BIN if set, else built from the repository."""
    override = os.environ.get("G2048_BIN")
    if override:
        if not (os.path.isfile(override) and os.access(override, os.X_OK)):
            sys.exit(f"error: G2048_BIN is {override!r}, which is not an executable file")
        return override
    root = repository_root()
    swift = shutil.which("swift")
    if root is None or swift is None:
        sys.exit("error: " + NO_TOOLCHAIN)
    print(f"gym2048: swift build -c release --product g2048 in {root}", flush=True)
    completed = subprocess.run([swift, "build", "-c", "release", "--product", "g2048"], cwd=root)
    if completed.returncode != 0:
        sys.exit(f"error: `swift build -c release --product g2048` failed in {root} (exit {completed.returncode}); "
                 "its output is above")
    return os.path.join(root, ".build", "release", "g2048")


class BuildWithServer(build_py):
    """build_py that also builds the server; an editable install uses the repository's build folder instead."""

    def run(self):
        binary = build_server()
        super().run()
        if not getattr(self, "editable_mode", False):
            target = os.path.join(self.build_lib, "gym2048", "bin")
            os.makedirs(target, exist_ok=True)
            shutil.copy2(binary, os.path.join(target, "g2048"))


class PlatformDistribution(Distribution):
    """The wheel holds a native executable: tag it for the platform, not as pure Python."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithServer}, distclass=PlatformDistribution)
