#!/usr/bin/env bash
# demo.sh [OUT]: latmap's whole flow on this machine, into OUT (default
# demo/): a latency survey with one rank per cpu, its picture and
# topology, profiles of a bundled MPI program (and of LAMMPS when it is
# installed), the placement advice, and one HTML report. Run by make demo
# after make build; prints where to look.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-demo}
tmp=$out.tmp
bin=bin/latmap
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cpus=$(nproc)
np=${NP:-$cpus}
notes=()
if [ "$np" -lt 2 ]; then
	np=2
	notes+=("this machine has 1 cpu: the survey runs 2 ranks on it, so they take turns and the round trips measure the scheduler as much as MPI")
fi
launch=(mpirun -np "$np" --bind-to core --map-by core)
if [ "$np" -gt "$cpus" ]; then
	launch=(mpirun -np "$np" --oversubscribe --bind-to none)
	notes+=("$np ranks on $cpus cpus (NP=$np): ranks share cpus, and the survey measures one pair at a time")
fi
schedule=rounds
[ "$np" -gt "$cpus" ] && schedule=sequential
# Every rank polls while it waits; on a small machine that starves the
# others unless ranks yield.
launch+=(--mca mpi_yield_when_idle 1)

rm -rf "$tmp" && mkdir -p "$tmp"
step() { printf '\nlatmap demo: %s\n' "$*"; }

step "1. survey: round trips of every pair of $np ranks (one per cpu), into $tmp/survey"
"${launch[@]}" "$bin" survey -o "$tmp/survey" --mmpi "$tmp/survey.mmpi" --schedule "$schedule" --repeats 200 --progress
"$bin" plot "$tmp/survey" -o "$tmp/survey.png"
"$bin" topo "$tmp/survey" | tee "$tmp/topo.txt"

step "2. profile: a 3-D halo exchange (testdata/mpi/halo3d.c) on $np ranks under the interposer"
mpicc -O2 -o "$tmp/halo3d" testdata/mpi/halo3d.c
"$bin" profile -o "$tmp/profile" -- "${launch[@]}" "$tmp/halo3d" "$np" 1 1 2000
"$bin" report "$tmp/profile" | tail -n 12
for style in ranks functions matrix sizes; do
	"$bin" plot "$tmp/profile" --style "$style" -o "$tmp/profile-$style.png"
done

lmp=$(command -v lmp lmp_openmpi lmp_mpi 2>/dev/null | head -n 1 || true)
melt=$(ls /usr/share/lammps/examples/melt/in.melt /usr/share/doc/lammps-examples/examples/melt/in.melt 2>/dev/null | head -n 1 || true)
if [ -n "$lmp" ] && [ -n "$melt" ]; then
	step "2b. profile: LAMMPS in.melt on $np ranks"
	(cd "$tmp" && ../"$bin" profile -o lammps -- "${launch[@]}" "$lmp" -in "$melt" -log none -screen none)
	"$bin" plot "$tmp/lammps" --style matrix -o "$tmp/lammps-matrix.png"
else
	notes+=("LAMMPS is not installed (apt-get install lammps lammps-examples): no LAMMPS profile")
fi

step "3. place: the survey and the halo profile combined into placement advice"
# Status 3: ran, and the gain does not justify writing the rankfile (on
# one host it seldom does); the advice says so.
status=0
"$bin" place --survey "$tmp/survey" --profile "$tmp/profile" -o "$tmp/halo.rankfile" -- "$tmp/halo3d" "$np" 1 1 2000 > "$tmp/advice.txt" 2>&1 || status=$?
cat "$tmp/advice.txt"
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"
"$bin" place --survey "$tmp/survey" --profile "$tmp/profile" --json -- "$tmp/halo3d" "$np" 1 1 2000 > "$tmp/advice.json"

step "4. report: one HTML page of all of it"
"$bin" report --html -o "$tmp/report.html" "$tmp/survey" "$tmp/profile" "$tmp/advice.json"

rm -rf "$out" && mv "$tmp" "$out"
# The files name the temporary directory they were written in.
sed -i "s#$tmp/#$out/#g" "$out/report.html" "$out/advice.txt" "$out/advice.json" "$out/halo.rankfile" 2>/dev/null || true
cat <<EOF

latmap demo: done. Look at:
  $out/report.html         everything on one page (open it in a browser)
  $out/survey.png          the latency surface of this machine ($np ranks)
  $out/topo.txt            what latmap infers from it
  $out/profile-*.png       the halo exchange's profile, as pictures
  $out/advice.txt          the placement advice (on one host of $cpus cpus,
                           every layout costs about the same: latmap says so)
  $out/survey/, $out/profile/   the CSV files behind it all
EOF
for n in "${notes[@]+"${notes[@]}"}"; do
	echo "latmap demo: note: $n"
done
