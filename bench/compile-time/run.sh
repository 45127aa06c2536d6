#!/usr/bin/env bash
# Compile-time cost of #[derive(MongoSchema)] next to serde's derives and schemars' derive.
#
# Generates, under target/compile-bench/, one crate of 100 structs (8 to 12 fields each, spread
# over 10 files) in three variants: serde derives only; serde + MongoSchema; serde + JsonSchema
# (schemars). Dependencies are built first; then each variant's own build is timed RUNS times
# (`cargo clean -p` of the crate only, then `cargo build`), interleaved across variants; the median
# wall and CPU times are reported, with ratios to serde alone, the one-file rebuild and the load.
#
# Usage: bench/compile-time/run.sh [RUNS]   (default 5; run from the workspace root)
set -euo pipefail

RUNS="${1:-5}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$ROOT/target/compile-bench"
export CARGO_TARGET_DIR="$OUT/target"
mkdir -p "$OUT"

gen_crate() { # variant dir
  local variant="$1" dir="$OUT/$1"
  rm -rf "$dir/src"
  mkdir -p "$dir/src"
  local deps='serde = { version = "1", features = ["derive"] }'
  local derives="serde::Serialize, serde::Deserialize"
  case "$variant" in
    ours) deps="$deps
mongo-schema = { path = \"$ROOT/schema-core\" }
bson = { version = \"3.1\", features = [\"serde\"] }"
          derives="$derives, mongo_schema::MongoSchema" ;;
    schemars) deps="$deps
schemars = \"1\"
bson = { version = \"3.1\", features = [\"serde\"] }"
          derives="$derives, schemars::JsonSchema" ;;
    serde) deps="$deps
bson = { version = \"3.1\", features = [\"serde\"] }" ;;
  esac
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "bench-$variant"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$deps

[workspace]
TOML
  [ -f "$dir/Cargo.lock" ] || cp "$ROOT/Cargo.lock" "$dir/Cargo.lock"
  local types=("String" "i32" "i64" "f64" "bool" "Option<String>" "Vec<String>" "Option<i64>" "u32" "Vec<i32>" "Option<bool>" "u8")
  : > "$dir/src/lib.rs"
  echo "//! Generated: 100 structs for the compile-time benchmark." >> "$dir/src/lib.rs"
  for m in $(seq 0 9); do
    echo "pub mod m$m;" >> "$dir/src/lib.rs"
    local f="$dir/src/m$m.rs"
    : > "$f"
    for s in $(seq 0 9); do
      local n=$((m * 10 + s))
      local fields=$((8 + n % 5))
      {
        echo "#[derive($derives)]"
        echo "pub struct Record$n {"
        for i in $(seq 0 $((fields - 1))); do
          local ty="${types[$(((n + i) % ${#types[@]}))]}"
          if [ "$i" -eq 3 ] && [ "$s" -gt 0 ]; then
            ty="Option<Box<Record$((n - 1))>>"
          fi
          if [ "$i" -eq 1 ]; then echo "    #[serde(rename = \"f${i}Renamed\")]"; fi
          if [ "$i" -eq 5 ]; then echo "    #[serde(default)]"; fi
          echo "    pub field_$i: $ty,"
        done
        echo "}"
        echo
      } >> "$f"
    done
  done
}

now() { date +%s.%N; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# One timed build: wall seconds and CPU seconds (user + system of cargo and every rustc it runs).
# CPU time moves far less than wall time when another process shares the two cores, so both are
# reported; a ratio quoted without the load beside it means little on a shared machine.
timed_build() { # dir -> "wall cpu"
  local out
  out=$( { (cd "$1" && /usr/bin/time -f '%e %U %S' cargo build -q) 2>&1 >/dev/null; } | tail -1)
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$out"
}

load() { cut -d' ' -f1 /proc/loadavg; }

declare -A WALL CPU IWALL ICPU
VARIANTS=(serde ours schemars)
for variant in "${VARIANTS[@]}"; do
  gen_crate "$variant"
  (cd "$OUT/$variant" && cargo build -q 2>/dev/null || cargo build) # warm: dependencies built once
done

LOAD_BEFORE=$(load)
# Runs are interleaved (serde, ours, schemars, serde, ...) so that a change of load during the
# bench falls on every variant alike rather than on whichever ran last.
for _ in $(seq 1 "$RUNS"); do
  for variant in "${VARIANTS[@]}"; do
    dir="$OUT/$variant"
    (cd "$dir" && cargo clean -q -p "bench-$variant")
    read -r wall cpu < <(timed_build "$dir")
    WALL[$variant]+="$wall "; CPU[$variant]+="$cpu "
    echo "// touched $(date +%s.%N)" >> "$dir/src/m5.rs"
    read -r wall cpu < <(timed_build "$dir")
    IWALL[$variant]+="$wall "; ICPU[$variant]+="$cpu "
  done
done
LOAD_AFTER=$(load)

med() { tr ' ' '\n' <<<"$1" | grep . | median; }

printf '%-10s %10s %7s %10s %7s %14s %14s\n' variant "wall (s)" ratio "cpu (s)" ratio "rebuild wall" "rebuild cpu"
for variant in "${VARIANTS[@]}"; do
  w=$(med "${WALL[$variant]}"); c=$(med "${CPU[$variant]}")
  rw=$(med "${WALL[serde]}"); rc=$(med "${CPU[serde]}")
  printf '%-10s %10.2f %6.2fx %10.2f %6.2fx %14.2f %14.2f\n' "$variant" "$w" \
    "$(echo "scale=4; $w / $rw" | bc)" "$c" "$(echo "scale=4; $c / $rc" | bc)" \
    "$(med "${IWALL[$variant]}")" "$(med "${ICPU[$variant]}")"
done
extra_wall=$(echo "scale=2; $(med "${IWALL[ours]}") - $(med "${IWALL[serde]}")" | bc)
extra_cpu=$(echo "scale=2; $(med "${ICPU[ours]}") - $(med "${ICPU[serde]}")" | bc)
echo "rebuild after touching one file: ours adds ${extra_wall}s wall, ${extra_cpu}s cpu over serde alone"
echo "medians of $RUNS interleaved runs; load average ${LOAD_BEFORE} before, ${LOAD_AFTER} after ($(nproc) cores)"
