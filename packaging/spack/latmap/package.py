# Spack package for latmap (https://github.com/latmap/latmap).
#
# Use it from a repository of your own:
#   spack repo create myrepo && cp -r packaging/spack/latmap myrepo/packages/
#   (Spack 1.x: myrepo/spack_repo/myrepo/packages/latmap/)
#   spack repo add myrepo
#   spack install latmap@0.1.0 ^openmpi     # or ^mpich, or your external MPI
#
# Release tarballs are made with `make dist VERSION=x.y.z`; they hold
# vendor/ (every Go module), so the build needs no network. Until a release
# is listed below with its sha256, install one from a local file:
#   spack install --no-checksum latmap@0.1.0 (with the tarball in a mirror or
#   at the url below), or spack install latmap@main (a git checkout; Go then
#   downloads its modules).

import os

from spack.package import *

try:  # Spack 1.0 and later: the build systems live in the builtin repository
    from spack_repo.builtin.build_systems.makefile import MakefilePackage
except ImportError:  # older Spack exports them from spack.package
    pass


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
    # version("0.1.0", sha256="...")  # sha256sum latmap-0.1.0.tar.gz

    # latmap's PMPI library always defines the Fortran entry points
    # (mpi_send_, ...; interpose/c/fortran.gen.c), compiled by mpicc from C:
    # the Makefile needs no Fortran compiler and no option for them. They
    # matter when a Fortran application is profiled, and then the MPI must
    # have its Fortran bindings: +fortran asks the MPI for them.
    variant(
        "fortran",
        default=True,
        description="Profile Fortran MPI applications: require an MPI with Fortran bindings",
    )

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("go@1.24:", type="build")
    depends_on("git", type="build", when="@main")  # make reads the version from git describe
    depends_on("mpi")
    with when("+fortran"):
        depends_on("openmpi+fortran", when="^[virtuals=mpi] openmpi")
        depends_on("mpich+fortran", when="^[virtuals=mpi] mpich")

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
        # spack install --test=root: the tests that need neither MPI runs
        # nor root (go test -short).
        with working_dir(self.stage.source_path):
            make("test-short", parallel=False)

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
