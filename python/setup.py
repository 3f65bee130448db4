"""The build step of gym2048: compile the Swift engine, the server (`g2048`) and the library (`libgym2048.so`), and
put them inside the package as gym2048/bin/g2048 and gym2048/lib/libgym2048.so. Everything else is in pyproject.toml.

A wheel needs no Swift toolchain where it is installed: both files link the Swift runtime statically
(`-Xswiftc -static-stdlib`, built in .build/wheel so as not to fight the normal .build/release), and the wheel is
tagged manylinux_2_X for the newest glibc symbol version they need. An editable install (`pip install -e`) builds
and uses the repository's .build/release, with the toolchain's shared runtime.

`G2048_BIN` (a built g2048) and `G2048_LIB` (a built libgym2048.so) each skip that compilation and install that file.
"""

import os
import re
import shutil
import struct
import subprocess
import sys

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
NO_TOOLCHAIN = ("gym2048 needs the Swift 6.3 toolchain to build its server: install it from swift.org "
                "(or set G2048_BIN to a built g2048 and G2048_LIB to a built libgym2048.so) and run pip again")
# Each product: its override, the file SwiftPM writes, where it goes in the package.
PRODUCTS = {"g2048": ("G2048_BIN", "g2048", "bin/g2048"),
            "gym2048": ("G2048_LIB", "libgym2048.so", "lib/libgym2048.so")}


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


def version():
    """The package's version: the library's (`Gym2048Version.current` in Sources/Game2048/Version.swift, the one
    place it is written), and when built from a git clone `.devN+g<commit>`, N counting the commits to that one,
    so a wheel built from a later commit has a later version and `pip install` replaces an older one."""
    root = repository_root()
    if root is None:  # an unpacked sdist: PKG-INFO has the version it was made with
        return None
    with open(os.path.join(root, "Sources", "Game2048", "Version.swift")) as source:
        base = re.search(r'current = "([0-9.]+)"', source.read()).group(1)
    try:
        count = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True,
                               check=True).stdout.strip()
        commit = subprocess.run(["git", "rev-parse", "--short=9", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):  # no git, or not a clone: the release version
        return base
    return f"{base}.dev{count}+g{commit}"


def say(line):
    """Print `line` where the person running pip sees it. pip keeps a build's output to itself unless run with -v,
    so the line goes to the terminal (/dev/tty) when there is one, and to stderr (pip's log, and -v) always."""
    print(line, file=sys.stderr, flush=True)
    if sys.stderr.isatty():  # already on the terminal
        return
    try:
        with open("/dev/tty", "w") as terminal:
            terminal.write(line + "\n")
    except OSError:  # no controlling terminal (CI, a pipe): stderr is all there is
        pass


def build_engine(editable):
    """{product: path of its release build}: the overrides as given, the rest built from the repository."""
    built = {}
    for product, (variable, _, _) in PRODUCTS.items():
        override = os.environ.get(variable)
        if override:
            runs = product == "g2048"
            if not os.path.isfile(override) or (runs and not os.access(override, os.X_OK)):
                sys.exit(f"error: {variable} is {override!r}, which is not {'an executable' if runs else 'a'} file")
            built[product] = override
    missing = [product for product in PRODUCTS if product not in built]
    if not missing:
        return built
    root = repository_root()
    swift = shutil.which("swift")
    if root is None or swift is None:
        sys.exit("error: " + NO_TOOLCHAIN)
    # Editable: the repository's own .build/release, as `swift build -c release` makes it. A wheel: its own scratch
    # folder, with the Swift runtime linked in, so the files run where no toolchain is installed.
    scratch = os.path.join(root, ".build") if editable else os.path.join(root, ".build", "wheel")
    flags = [] if editable else ["-Xswiftc", "-static-stdlib", "--scratch-path", scratch]
    say(f"gym2048: compiling the Swift engine ({', '.join(missing)}) with `swift build -c release` into {scratch}: "
        "about 2 minutes on 2 cores, less on more")
    for product in missing:
        command = [swift, "build", "-c", "release", "--product", product, *flags]
        completed = subprocess.run(command, cwd=root)
        if completed.returncode != 0:
            sys.exit(f"error: `{' '.join(command[1:])}` failed in {root} (exit {completed.returncode}); "
                     "its output is above")
        built[product] = os.path.join(scratch, "release", PRODUCTS[product][1])
    return built


def glibc_needed(path):
    """The newest GLIBC_2.x symbol version the ELF64 file `path` needs, as x (from .gnu.version_r), or None."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:6] != b"\x7fELF\x02\x01":  # a 64-bit little-endian ELF file, or not Linux
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQII", data, shoff + i * shentsize) for i in range(shnum)]
    minors = []
    for _, kind, _, _, offset, _, link, count in sections:
        if kind != 0x6FFFFFFE:  # SHT_GNU_verneed: per needed library, the symbol versions needed from it
            continue
        strings = sections[link][4]
        for _ in range(count):
            _, vn_cnt, _, vn_aux, vn_next = struct.unpack_from("<HHIII", data, offset)
            aux = offset + vn_aux
            for _ in range(vn_cnt):
                _, _, _, vna_name, vna_next = struct.unpack_from("<IHHII", data, aux)
                name = data[strings + vna_name:data.index(b"\0", strings + vna_name)]
                match = re.fullmatch(rb"GLIBC_2\.(\d+)(\.\d+)?", name)
                if match:
                    minors.append(int(match.group(1)))
                aux += vna_next
            offset += vn_next
    return max(minors, default=None)


class BuildWithEngine(build_py):
    """build_py that also builds the engine; an editable install uses the repository's build folder instead."""

    def run(self):
        editable = getattr(self, "editable_mode", False)
        built = build_engine(editable)
        super().run()
        if not editable:
            for product, path in built.items():
                target = os.path.join(self.build_lib, "gym2048", PRODUCTS[product][2])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(path, target)


class PlatformDistribution(Distribution):
    """The wheel holds native files: not pure Python (installed to platlib, Root-Is-Purelib false)."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """The wheel holds native files but no Python extension: py3-none-<platform>, the platform being
    manylinux_2_X (PEP 600) for the newest glibc the bundled files need."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        package = os.path.join(self.get_finalized_command("build_py").build_lib, "gym2048")
        files = [os.path.join(package, PRODUCTS[p][2]) for p in PRODUCTS]
        # An editable wheel (its engine stays in the repository) and files without glibc keep the plain tag.
        if platform.startswith("linux_") and "editable_wheel" not in self.distribution.command_obj:
            minors = [glibc_needed(path) for path in files]
            if None not in minors:
                platform = platform.replace("linux", f"manylinux_2_{max(minors)}", 1)
        return "py3", "none", platform


setup(cmdclass={"build_py": BuildWithEngine, "bdist_wheel": PlatformWheel}, distclass=PlatformDistribution,
      **({"version": version()} if version() else {}))
