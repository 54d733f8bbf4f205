#!/usr/bin/env bash
# install.sh install|uninstall DESTDIR PREFIX — make install and make
# uninstall (run them through make: install needs make build, man and
# completion first).
#
# install copies, from the built tree, into DESTDIR/PREFIX:
#   bin/latmap, bin/latmap-mpich (when built)
#   lib/liblatmap.so, lib/liblatmap-mpich.so (when built); latmap looks for
#     the library in ../lib beside its own real path, so no LATMAP_LIB
#   share/man/man1/*.1
#   share/bash-completion/completions/latmap, share/zsh/site-functions/_latmap,
#     share/fish/vendor_completions.d/latmap.fish
#   share/doc/latmap/README.md, share/doc/latmap/docs/*.md
# and lists each file ("f PATH") and each directory it had to create
# ("d PATH"), as paths under PREFIX without DESTDIR, in
# PREFIX/share/latmap/install-manifest. Installing again over an older
# install removes the files the older one had and this one has not.
# uninstall removes the listed files, the manifest, and the listed
# directories that are empty then: exactly what install put there.
set -euo pipefail

usage() {
	echo "usage: $0 install|uninstall DESTDIR PREFIX" >&2
	exit 2
}
[ $# -eq 3 ] || usage
mode=$1 destdir=$2 prefix=$3
case $prefix in
/*) ;;
*)
	echo "latmap: PREFIX must be an absolute path, not '$prefix'" >&2
	exit 1
	;;
esac
while [ "${#prefix}" -gt 1 ] && [ "${prefix%/}" != "$prefix" ]; do prefix=${prefix%/}; done
[ "$prefix" = / ] && prefix=""
manifest_path=$prefix/share/latmap/install-manifest
manifest=$destdir$manifest_path

# under PATH: is PATH inside PREFIX (and no .. anywhere)?
under() {
	case /$1/ in */../* | */./*) return 1 ;; esac
	case $1 in "$prefix"/?*) return 0 ;; esac
	return 1
}

# Reads an existing manifest into old_files and old_dirs.
old_files=() old_dirs=()
read_manifest() {
	[ -f "$manifest" ] || return 0
	local kind path
	while read -r kind path; do
		if ! under "$path" && [ "$path" != "$prefix" ]; then
			echo "latmap: $manifest: $path is not under $prefix; not touching it" >&2
			continue
		fi
		case $kind in
		f) old_files+=("$path") ;;
		d) old_dirs+=("$path") ;;
		esac
	done <"$manifest"
}

do_install() {
	local files=() srcs=() modes=()
	add() { # add SRC DEST MODE
		srcs+=("$1") files+=("$prefix/$2") modes+=("$3")
	}
	need() {
		[ -f "$1" ] || {
			echo "latmap: $1 is missing; run make install, which builds it" >&2
			exit 1
		}
	}
	need bin/latmap
	need lib/liblatmap.so
	need share/man/man1/latmap.1
	need share/bash-completion/completions/latmap
	local f
	for f in bin/latmap bin/latmap-*; do
		[ -f "$f" ] && [ -x "$f" ] && add "$f" "$f" 0755
	done
	for f in lib/liblatmap*.so; do
		[ -f "$f" ] && add "$f" "$f" 0755
	done
	for f in share/man/man1/*.1; do add "$f" "$f" 0644; done
	for f in share/bash-completion/completions/latmap share/zsh/site-functions/_latmap share/fish/vendor_completions.d/latmap.fish; do
		need "$f"
		add "$f" "$f" 0644
	done
	add README.md share/doc/latmap/README.md 0644
	for f in docs/*.md; do
		[ -f "$f" ] && add "$f" "share/doc/latmap/$f" 0644
	done

	read_manifest
	# Directories: those an earlier install created (still there), then
	# each one this install creates, parents first.
	local dirs=() d
	for d in "${old_dirs[@]+"${old_dirs[@]}"}"; do
		[ -d "$destdir$d" ] && dirs+=("$d")
	done
	mkdirs() { # mkdirs DIR (under PREFIX, or PREFIX itself)
		local rel=${1#"$prefix"} path=$prefix part
		if [ ! -d "$destdir$prefix" ]; then
			mkdir -p "$destdir$prefix"
			dirs+=("$prefix")
		fi
		IFS=/ read -r -a parts <<<"${rel#/}"
		for part in "${parts[@]}"; do
			[ -n "$part" ] || continue
			path=$path/$part
			if [ ! -d "$destdir$path" ]; then
				mkdir "$destdir$path"
				dirs+=("$path")
			fi
		done
	}
	local i
	for i in "${!files[@]}"; do
		mkdirs "${files[$i]%/*}"
		install -m "${modes[$i]}" "${srcs[$i]}" "$destdir${files[$i]}"
	done
	# What an earlier install put there and this one does not have.
	local keep
	for f in "${old_files[@]+"${old_files[@]}"}"; do
		keep=0
		for i in "${files[@]}"; do [ "$i" = "$f" ] && keep=1 && break; done
		if [ $keep = 0 ] && [ -e "$destdir$f" ]; then
			rm -f "$destdir$f"
			echo "removed $destdir$f (installed before, not any more)"
		fi
	done
	mkdirs "${manifest_path%/*}"
	{
		for d in "${dirs[@]+"${dirs[@]}"}"; do echo "d $d"; done
		for f in "${files[@]}"; do echo "f $f"; done
	} >"$manifest.tmp"
	mv "$manifest.tmp" "$manifest"
	echo "installed ${#files[@]} files into $destdir$prefix (list: $manifest)"
}

do_uninstall() {
	if [ ! -f "$manifest" ]; then
		echo "latmap: no $manifest: nothing installed by make install with PREFIX=$prefix${destdir:+ DESTDIR=$destdir}" >&2
		exit 1
	fi
	read_manifest
	local f n=0
	for f in "${old_files[@]+"${old_files[@]}"}"; do
		if [ -e "$destdir$f" ] || [ -L "$destdir$f" ]; then
			rm -f "$destdir$f"
			n=$((n + 1))
		fi
	done
	rm -f "$manifest"
	# Deepest first; a directory that holds something else stays.
	local deepest=()
	if [ ${#old_dirs[@]} -gt 0 ]; then
		mapfile -t deepest < <(printf '%s\n' "${old_dirs[@]}" | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-)
	fi
	for f in "${deepest[@]+"${deepest[@]}"}"; do
		[ -d "$destdir$f" ] || continue
		if [ -z "$(ls -A "$destdir$f")" ]; then
			rmdir "$destdir$f"
		else
			echo "kept $destdir$f (not empty)"
		fi
	done
	echo "removed $n files from $destdir$prefix"
}

case $mode in
install) do_install ;;
uninstall) do_uninstall ;;
*) usage ;;
esac
