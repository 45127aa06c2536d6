#!/usr/bin/env bash
# Compile-time cost of #[derive(MongoSchema)] next to serde's derives and schemars' derive.
#
# Generates, under target/compile-bench/, one crate of 100 structs (8 to 12 fields each, spread
# over 10 files) in three variants: serde derives only; serde + MongoSchema; serde + JsonSchema
# (schemars). Dependencies are built first; then each variant's own build is timed RUNS times
# (`cargo clean -p` of the crate only, then `cargo build`), and the median is reported, with the
# ratio to serde alone and the incremental rebuild after touching one file.
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

declare -A FULL INCR
for variant in serde ours schemars; do
  gen_crate "$variant"
  dir="$OUT/$variant"
  (cd "$dir" && cargo build -q 2>/dev/null || cargo build) # warm: dependencies built once
  times=()
  for _ in $(seq 1 "$RUNS"); do
    (cd "$dir" && cargo clean -q -p "bench-$variant")
    t0=$(now); (cd "$dir" && cargo build -q); t1=$(now)
    times+=("$(echo "$t1 - $t0" | bc)")
  done
  FULL[$variant]=$(printf '%s\n' "${times[@]}" | median)
  incr=()
  for _ in $(seq 1 "$RUNS"); do
    echo "// touched $(now)" >> "$dir/src/m5.rs"
    t0=$(now); (cd "$dir" && cargo build -q); t1=$(now)
    incr+=("$(echo "$t1 - $t0" | bc)")
  done
  INCR[$variant]=$(printf '%s\n' "${incr[@]}" | median)
done

printf '%-10s %12s %8s %16s\n' variant "build (s)" ratio "rebuild 1 file (s)"
for variant in serde ours schemars; do
  ratio=$(echo "scale=2; ${FULL[$variant]} / ${FULL[serde]}" | bc)
  printf '%-10s %12.2f %7.2fx %16.2f\n' "$variant" "${FULL[$variant]}" "$ratio" "${INCR[$variant]}"
done
extra_incr=$(echo "scale=2; ${INCR[ours]} - ${INCR[serde]}" | bc)
echo "rebuild after touching one file: ours adds ${extra_incr}s over serde alone"
