#!/bin/sh
# ensure-packages.sh PKG... — make sure Debian packages are installed.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails.
set -eu
missing=""
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "latmap: installing$missing (apt-get)" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends$missing >/dev/null
	case " $missing " in
	*" opensm "*)
		# The tests run OpenSM on a simulated fabric only: its service
		# would run a subnet manager on this machine's InfiniBand ports.
		if command -v systemctl >/dev/null; then
			systemctl disable --now opensm.service >/dev/null 2>&1 || true
		fi
		echo "latmap: opensm is installed for the tests (on ibsim's simulated fabric); its service is disabled" >&2 ;;
	esac
	exit 0
fi
echo "latmap: missing Debian packages:$missing" >&2
echo "latmap: run: sudo apt-get update && sudo apt-get install -y$missing" >&2
exit 1
