#!/usr/bin/env bash
# fuzz_resume_save.sh TARGET... - keeps the corpus of a long fuzzing run
# (build-fuzz/corpus/TARGET, tests/fuzz/fuzz_long.sh) that stopped short of
# its executions, so that a later session on a fresh machine can go on from
# it: the corpus is minimised by libFuzzer's -merge=1 (the inputs that add
# coverage, seeds first) and written as tests/fuzz/resume/TARGET.tar.xz,
# which fuzz_long.sh unpacks into an empty corpus directory. Stop the run
# first: libFuzzer rewrites its corpus while it runs.
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
maxlen=${FUZZ_MAX_LEN:-65536}
bad=0
for f in "$@"; do
	if [ ! -x "build-fuzz/$f" ] || [ ! -d "build-fuzz/corpus/$f" ]; then
		echo "fuzz_resume_save: no build-fuzz/$f or its corpus" >&2
		bad=1
		continue
	fi
	if pgrep -f "build-fuzz/$f " >/dev/null; then
		echo "fuzz_resume_save: $f is running; stop it first" >&2
		bad=1
		continue
	fi
	tmp=$(mktemp -d) || exit 2
	mkdir -p "$tmp/min" tests/fuzz/resume
	if ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0} "build-fuzz/$f" \
		-merge=1 -max_len="$maxlen" "$tmp/min" "tests/fuzz/corpus/${f#fuzz_}" \
		"build-fuzz/corpus/$f" >"$tmp/merge.log" 2>&1 &&
		tar -cf - -C "$tmp/min" . | xz -9 >"tests/fuzz/resume/$f.tar.xz.tmp" &&
		mv "tests/fuzz/resume/$f.tar.xz.tmp" "tests/fuzz/resume/$f.tar.xz"; then
		echo "$f: $(ls "$tmp/min" | wc -l) inputs in tests/fuzz/resume/$f.tar.xz ($(wc -c <"tests/fuzz/resume/$f.tar.xz") bytes)"
	else
		echo "fuzz_resume_save: $f: the merge failed (see $tmp/merge.log)" >&2
		bad=1
		continue
	fi
	rm -rf "$tmp"
done
exit "$bad"
