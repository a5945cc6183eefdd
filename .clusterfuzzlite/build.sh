#!/bin/bash -eu
# Builds the fuzz targets as OSS-Fuzz and ClusterFuzzLite build a project
# (docs/fuzzing.md, "On shared infrastructure"). The compiler and flags come
# from the environment the base-builder image sets: $CC, $CXX, $CFLAGS,
# $CXXFLAGS (sanitizers and -fsanitize=fuzzer-no-link included) and
# $LIB_FUZZING_ENGINE (the engine to link). The build tree goes in $WORK.
# $OUT receives each target, its dictionary (<target>.dict) and its seed
# corpus (<target>_seed_corpus.zip), read from this checkout's corpus/.
#
# scripts/fuzz builds through this script too, with those variables set as
# the image sets them (plus UndefinedBehaviorSanitizer), so every CI run
# runs it. Optional: SERIALCHECK_SRC (the checkout; default the folder
# above this script), SERIALCHECK_CMAKE_ARGS (more -D options),
# SERIALCHECK_EXTRA_TARGETS (more targets of the same tree to build).
src=${SERIALCHECK_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
: "${CXX:?} ${CXXFLAGS?} ${LIB_FUZZING_ENGINE:?} ${OUT:?} ${WORK:?}"
build="$WORK/serialcheck-build"
targets=(fuzz_pickle_decoder fuzz_message_decoder fuzz_header_decoder)

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
# A build type of our own: no flags but $CXXFLAGS (no -O2, no NDEBUG:
# assertions in the library are findings too).
read -r -a extra_args <<<"${SERIALCHECK_CMAKE_ARGS:-}"
cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Fuzz \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DSERIALCHECK_FUZZ=ON \
  -DSERIALCHECK_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DSERIALCHECK_TESTS=OFF -DSERIALCHECK_PYTHON=OFF -DSERIALCHECK_CUDA=OFF \
  "${extra_args[@]}" >/dev/null
read -r -a more_targets <<<"${SERIALCHECK_EXTRA_TARGETS:-}"
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" fuzz_pickle_dictionary \
  "${more_targets[@]}"

mkdir -p "$OUT"
for t in "${targets[@]}"; do cp "$build/bin/$t" "$OUT/"; done
cp "$build/fuzz/pickle.dict" "$OUT/fuzz_pickle_decoder.dict"

# Seed corpora: the files of a folder that match a pattern, flat in a zip.
seed_zip() {
  local zip=$1
  shift
  local stage="$WORK/seeds-$(basename "$zip" .zip)"
  rm -rf "$stage" "$zip"
  mkdir -p "$stage"
  while [ $# -gt 0 ]; do
    find "$src/$1" -maxdepth 1 -type f -name "$2" -exec cp -t "$stage" {} + 2>/dev/null || true
    shift 2
  done
  if [ -n "$(ls -A "$stage")" ]; then
    (cd "$stage" && cmake -E tar cf "$zip" --format=zip -- *)
  fi
  rm -rf "$stage"
}
seed_zip "$OUT/fuzz_pickle_decoder_seed_corpus.zip" \
  corpus/golden '*.pickle' corpus/malformed '*.pickle' corpus/failing/fuzz '*.pickle'
seed_zip "$OUT/fuzz_message_decoder_seed_corpus.zip" \
  corpus/fuzz-seeds/message '*' corpus/failing/fuzz 'fuzz_message_decoder-*'
seed_zip "$OUT/fuzz_header_decoder_seed_corpus.zip" \
  corpus/fuzz-seeds/header '*' corpus/failing/fuzz 'fuzz_header_decoder-*'
echo "build.sh: ${targets[*]} in $OUT"
