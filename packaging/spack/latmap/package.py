# Spack package for latmap (https://github.com/latmap/latmap). It needs
# Spack 1.0 or later, whose build systems and builtin packages live in
# spack/spack-packages (the openmpi and mpich it depends on there).
#
# Use it from a package repository of your own (Spack 1.x layout):
#   spack repo create ~/spack-repos mysite      # makes ~/spack-repos/spack_repo/mysite/
#   cp -r packaging/spack/latmap ~/spack-repos/spack_repo/mysite/packages/
#   spack repo add ~/spack-repos/spack_repo/mysite
#   spack install latmap@main ^openmpi          # a git checkout; Go downloads its modules
#
# Release tarballs (`make dist VERSION=x.y.z`) hold vendor/ (every Go
# module), so the build needs no network. A recipe inside a release cannot
# carry its own tarball's sha256, so the releases are listed below without
# one: install them with --no-checksum, the tarball in a mirror or at the
# url below,
#   spack install --no-checksum latmap@0.1.0 ^mpich
# or give your copy of this recipe the checksum (spack checksum latmap
# 0.1.0, or sha256sum of the tarball), and drop --no-checksum:
#   version("0.1.0", sha256="...")
#
# Fortran applications: latmap's PMPI library always defines the Fortran
# entry points (mpi_send_, ...), compiled from C by mpicc; profiling a
# Fortran application needs only an MPI built with its Fortran bindings,
# which the application needed anyway (^openmpi+fortran, ^mpich+fortran).

import os

from spack.package import *
from spack_repo.builtin.build_systems.makefile import MakefilePackage


class Latmap(MakefilePackage):
    """latmap measures the round-trip latency of every pair of MPI ranks
    (latmap survey), profiles how an unmodified MPI application communicates
    through a PMPI library loaded with LD_PRELOAD (latmap profile), and
    proposes a better rank placement with its predicted gain (latmap place)."""

    homepage = "https://github.com/latmap/latmap"
    url = "https://github.com/latmap/latmap/releases/download/v0.1.0/latmap-0.1.0.tar.gz"
    git = "https://github.com/latmap/latmap.git"

    license("Apache-2.0")

    version("main", branch="main")
    version("0.1.0")  # no sha256 inside the release itself: see the top

    depends_on("c", type="build")
    depends_on("go@1.24:", type="build")
    depends_on("git", type="build", when="@main")  # make reads the version from git describe
    depends_on("mpi")

    # The interposer is loaded into MPI processes with LD_PRELOAD.
    conflicts("platform=darwin", msg="latmap's profiler needs Linux (LD_PRELOAD, ELF)")

    def setup_build_environment(self, env):
        # The go package sets GOPATH (in the stage) and GOTOOLCHAIN=local.
        env.set("GOCACHE", join_path(self.stage.path, "go-cache"))
        if self.spec.satisfies("@main"):
            env.set("GOFLAGS", "-modcacherw")
        else:
            # A release tarball carries vendor/: build offline.
            env.set("GOFLAGS", "-mod=vendor -modcacherw")
            env.set("GOPROXY", "off")

    def _make_args(self):
        return [
            "MPICC={0}".format(self.spec["mpi"].mpicc),
            "GO={0}".format(join_path(self.spec["go"].prefix.bin, "go")),
        ]

    @property
    def build_targets(self):
        return ["build"] + self._make_args()

    @property
    def install_targets(self):
        # bin/latmap, lib/liblatmap.so (latmap finds it in ../lib beside
        # itself), share/man/man1 (one page per command), the bash, zsh and
        # fish completions under share/, and share/doc/latmap.
        return ["install", "PREFIX={0}".format(self.prefix)] + self._make_args()

    def check(self):
        # spack install --test=root: the unit tests of the model, the
        # pictures and the solver (make test-unit), which start no MPI job,
        # no Slurm daemon and no network namespace, even as root, and need
        # no Fortran compiler.
        with working_dir(self.stage.source_path):
            make("test-unit", *self._make_args(), parallel=False)

    def installcheck(self):
        latmap = Executable(self.prefix.bin.latmap)
        out = latmap("-v", output=str, error=str)
        if "latmap version" not in out:
            raise InstallError("latmap -v printed {0!r}".format(out))

    def test_version(self):
        """latmap -v prints its version"""
        latmap = which(self.prefix.bin.latmap)
        out = latmap("-v", output=str.split, error=str.split)
        assert "latmap version" in out

    def test_man_page(self):
        """one man page per command is installed"""
        assert os.path.isfile(join_path(self.prefix.share.man.man1, "latmap-place.1"))
