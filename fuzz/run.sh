#!/bin/sh
# Runs one fuzz target for a while on one core: ./run.sh TARGET SECONDS [libFuzzer flags…]
# Builds with cargo-fuzz on stable Rust (libFuzzer without a sanitizer), seeds the corpus
# if it is empty, and appends the final statistics to runs/TARGET.log (git-ignored).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
target=$1
seconds=$2
shift 2
cd "$here"
export CARGO_TARGET_DIR="$here/target"
if [ ! -d "corpus/$target" ] || [ -z "$(ls "corpus/$target")" ]; then
    ./seed.sh "$target"
fi
mkdir -p "artifacts/$target" runs
status=0
cargo fuzz build -s none "$target" > "runs/$target.build" 2>&1 || { cat "runs/$target.build"; exit 2; }
start=$(date +%s)
target/*/release/"$target" "corpus/$target" \
    -dict=mesh.dict -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="artifacts/$target/" "$@" \
    > "runs/$target.last" 2>&1 || status=$?
end=$(date +%s)
{
    echo "== $(date -u +%FT%TZ) $target ${seconds}s wall=$((end - start))s status=$status"
    grep -E '^stat::|^(==|SUMMARY|Test unit written|thread .* panicked|artifact_prefix)' "runs/$target.last" || true
    echo "corpus=$(ls "corpus/$target" | wc -l)"
} | tee -a "runs/$target.log"
exit $status
