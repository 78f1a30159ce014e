#!/usr/bin/env bash
# fuzz_long.sh TARGET... - the long fuzzing runs (make fuzz-long): each
# libFuzzer target of build-fuzz/ (make fuzz-build) for $FUZZ_RUNS
# executions (default 10 million), or until $FUZZ_MAX_SECONDS if that is
# set, one target at a time at nice 10, inputs of at most $FUZZ_MAX_LEN
# bytes (default 65536), seeded from tests/fuzz/corpus/NAME;
# the inputs it finds go to build-fuzz/corpus/TARGET, a crash's input to
# build-fuzz/crash/TARGET/. An input that runs longer than 25 s is a hang
# and counts as a crash.
#
# Output: build-fuzz/long/TARGET.log (libFuzzer's), and one line per
# target appended to build-fuzz/long/figures.tsv and printed: target,
# executions, seconds, executions per second, result (ok, or what ended
# it and the input it saved), date, the input size limit, and the commit
# the targets were built from (build-fuzz/built-from, written by make
# fuzz-build; "+changes" when the working tree's code differed from it), so
# that runs of one target on the same code can be told apart from runs on
# changed code. Exit status 1 if any target failed.
#
# A run that a session's end stopped short can go on in a later session on
# a fresh machine: tests/fuzz/fuzz_resume_save.sh TARGET keeps its corpus,
# minimised, in tests/fuzz/resume/TARGET.tar.xz, and a run whose corpus
# directory is empty starts from it. Its executions count toward the same
# total only if the target's code has not changed since the build the
# first part named (docs/reliability.md, "Fuzzing").
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
runs=${FUZZ_RUNS:-10000000}
max=${FUZZ_MAX_SECONDS:-}
maxlen=${FUZZ_MAX_LEN:-65536}
out=build-fuzz/long
mkdir -p "$out"
[ -s "$out/figures.tsv" ] ||
	printf 'target\texecutions\tseconds\texec_per_s\tresult\tdate\tmax_len\tbuilt_from\n' >"$out/figures.tsv"
built=$(cat build-fuzz/built-from 2>/dev/null || echo unknown)
bad=0
for f in "$@"; do
	if [ ! -x "build-fuzz/$f" ]; then
		echo "fuzz-long: no build-fuzz/$f (make fuzz-build)" >&2
		bad=1
		continue
	fi
	mkdir -p "build-fuzz/corpus/$f" "build-fuzz/crash/$f"
	if [ -f "tests/fuzz/resume/$f.tar.xz" ] &&
		[ -z "$(ls -A "build-fuzz/corpus/$f")" ]; then
		echo "== $f: resuming from tests/fuzz/resume/$f.tar.xz"
		tar -xJf "tests/fuzz/resume/$f.tar.xz" -C "build-fuzz/corpus/$f" || bad=1
	fi
	# -reload=0: libFuzzer otherwise lists and stats the whole corpus
	# directory every second for inputs of other processes (there are
	# none): with fuzz_scan's 21,000 inputs that took 40 % of the run.
	args=(-runs="$runs" -max_len="$maxlen" -timeout=25 -print_final_stats=1
		-reload=0 -artifact_prefix="build-fuzz/crash/$f/")
	[ -n "$max" ] && args+=(-max_total_time="$max")
	[ -f "tests/fuzz/$f.dict" ] && args+=(-dict="tests/fuzz/$f.dict")
	# Allocation and free stacks are not recorded (a quarter of
	# fuzz_rules' time, in Hyperscan's compiler under ASan's allocator);
	# a crash's saved input replays with them (ASAN_OPTIONS unset).
	asan=${ASAN_OPTIONS:-malloc_context_size=0}
	lsan=${LSAN_OPTIONS:-}
	case $f in fuzz_patch | fuzz_mbox)
		lsan="suppressions=tests/fuzz/lsan-libgit2.supp${lsan:+:$lsan}" ;;
	esac
	echo "== $f: ${args[*]} (ASAN_OPTIONS=$asan${lsan:+ LSAN_OPTIONS=$lsan})"
	start=$(date +%s)
	ASAN_OPTIONS=$asan LSAN_OPTIONS=$lsan nice -n 10 "build-fuzz/$f" "${args[@]}" "build-fuzz/corpus/$f" \
		"tests/fuzz/corpus/${f#fuzz_}" >"$out/$f.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	# libFuzzer's own count; after a crash, its last status line's.
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$f.log" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^#\([0-9]*\)[[:space:]].*/\1/p' "$out/$f.log" | tail -n 1)
	n=${n:-0}
	result=ok
	if [ "$rc" != 0 ]; then
		result="$(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)[^(]*|runtime error:.*|deadly signal|timeout' "$out/$f.log" | head -n 1)"
		result="failed (rc $rc: ${result:-see the log}; $(sed -n 's/.*Test unit written to //p' "$out/$f.log" | tail -n 1))"
		bad=1
	fi
	line=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$f" "$n" "$secs" \
		"$((secs > 0 ? n / secs : n))" "$result" "$(date -u +%Y-%m-%d)" \
		"$maxlen" "$built")
	echo "$line" >>"$out/figures.tsv"
	echo "$line"
done
exit "$bad"
