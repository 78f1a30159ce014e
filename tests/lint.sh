#!/usr/bin/env bash
# lint.sh - refuses C code that calls a banned function, and code in the
# service or the database layer that could reach artifact bytes' parsers.
#
# Run from anywhere: bash tests/lint.sh [DIR...]   (make lint builds first)
#
# 1. Banned calls. Every .c and .h under common/ scanners/ gate/ db/ tests/
#    bench/ (or the DIRs given) is searched for calls of functions that are
#    unsafe (no bound: sprintf, strcpy, gets...), error-prone (strncpy,
#    strncat, strtok, atoi...) or racy (tmpnam, mktemp). In the product's
#    own code (common/ scanners/ gate/ db/) also sscanf (unbounded fields,
#    silent partial matches), system and popen (a shell between us and the
#    arguments); tests may shell out to build their fixtures. A call is
#    NAME followed by optional blanks and '(' with no identifier character
#    before NAME, so snprintf, vsnprintf, mkstemp or my_strcpy are not
#    matched. Comments and string literals are not exempt on purpose: keep
#    the names out of them or rephrase.
# 2. The door (DESIGN.md, invariant 4). Files under gate/ (the service,
#    the client, the offline commands) and db/ include nothing from
#    scanners/ but its facade, scan.h; and the objects of gate/serve/ and
#    db/ (in $BUILD/obj, default build/) reference no archive_read_*,
#    git_*, magic_*, hs_scan* or pcre2_match* symbol: the service never
#    hands bytes to libarchive, libgit2, libmagic or the regex engines;
#    nor our own ways in to them (scan_fd, scan_mem, scan_stream, the
#    readers' entry points, the in-process backend). Bytes reach those only
#    in a scan child, through a launcher. (Skipped when DIRs are given.)
# 3. Archives are opened only in a sandboxed child. No object outside
#    scanners/child/ references archive_read_open* or
#    archive_read_support_* (what reads an archive stream; submit's packing
#    reads the agent's own files with archive_read_disk_*, which is not
#    that): `airlock pull` hands an archive to the unpacking child
#    (scanners/child/extract_child.c) and parses none of it. (Skipped when
#    DIRs are given.)
# Prints file:line: text for every hit and exits 1, or prints 'lint: ok'.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
BANNED='sprintf|vsprintf|strcpy|strcat|strncat|gets|strtok|atoi|atol|atoll|strncpy|alloca|tmpnam|mktemp'
BANNED_PRODUCT='sscanf|system|popen'
# What reads artifact bytes: the libraries, and our entry points to them.
PARSERS='archive_read_|git_|magic_|hs_scan|pcre2_match'
PARSERS+='|scan_fd$|scan_mem$|scan_stream$|scan_artifact_fd$|scan_blob_mem$'
PARSERS+='|scan_patch_mem$|scan_mbox_mem$|scan_bundle_mem$|scan_archive_fd$'
PARSERS+='|scan_inproc_start$'
call_re() { echo "(^|[^A-Za-z0-9_])($1)[[:space:]]*\\("; }
bad=0

# current_objs DIR...: the objects under DIR of sources that still exist
# (a file moved away leaves its old object behind in a build tree).
current_objs() {
	local o src
	find "$@" -name '*.o' 2>/dev/null | sort | while read -r o; do
		src=${o#"$BUILD"/obj/}
		src=${src%.o}.c
		[ -f "$ROOT/$src" ] || [ -f "$BUILD/$src" ] && echo "$o"
	done
	return 0
}

c_files() {
	find "$@" -type f \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null | sort -z
}

# grep_calls REGEX DIR...: prints the hits, relative to the root.
grep_calls() {
	local re=$1 f files=()
	shift
	while IFS= read -r -d '' f; do
		files+=("$f")
	done < <(c_files "$@")
	[ ${#files[@]} -gt 0 ] || return 0
	grep -nHE -- "$re" "${files[@]}" | sed "s|^$ROOT/||"
}

report() { # HITS MESSAGE
	[ -n "$1" ] || return 0
	echo "$1"
	echo "lint: $(printf '%s\n' "$1" | wc -l) $2" >&2
	bad=1
}

if [ $# -gt 0 ]; then
	DIRS=("$@")
	PRODUCT=("$@")
else
	DIRS=() PRODUCT=()
	for d in common scanners gate db tests bench; do
		[ -d "$ROOT/$d" ] && DIRS+=("$ROOT/$d")
	done
	for d in common scanners gate db; do
		[ -d "$ROOT/$d" ] && PRODUCT+=("$ROOT/$d")
	done
fi

report "$(grep_calls "$(call_re "$BANNED")" "${DIRS[@]}")" \
    "call(s) of banned functions ($(echo "$BANNED" | sed 's/|/, /g'))"
report "$(grep_calls "$(call_re "$BANNED_PRODUCT")" "${PRODUCT[@]}")" \
    "call(s) in product code of $(echo "$BANNED_PRODUCT" | sed 's/|/, /g')"

if [ $# -eq 0 ]; then
	# The headers of scanners/ by name (the include path is flat).
	inner=$(find "$ROOT/scanners" -name '*.h' ! -name scan.h -printf '%f\n' |
	    sed 's/[.]/[.]/g' | paste -sd'|')
	report "$(grep_calls "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($inner)[\">]" \
	    "$ROOT/gate" "$ROOT/db")" \
	    "include(s) of scanners/ internals in gate/ or db/ (only scan.h)"
	objs=$(current_objs "$BUILD/obj/gate/serve" "$BUILD/obj/db")
	if [ -z "$objs" ]; then
		echo "lint: no objects under $BUILD/obj/gate/serve and db/: build first (make lint does)" >&2
		bad=1
	else
		hits=""
		for o in $objs; do
			syms=$(nm -u "$o" | awk '{print $NF}' |
			    grep -E "^($PARSERS)" |
			    paste -sd' ')
			[ -z "$syms" ] || hits+="${o#$ROOT/}: references $syms"$'\n'
		done
		report "${hits%$'\n'}" \
		    "object(s) of the service or db/ that reach a parser of artifact bytes"
	fi
	hits=""
	for o in $(current_objs "$BUILD/obj" | grep -v "^$BUILD/obj/scanners/child/"); do
		syms=$(nm -u "$o" | awk '{print $NF}' |
		    grep -E '^archive_read_(open|support_)' | paste -sd' ')
		[ -z "$syms" ] || hits+="${o#$ROOT/}: references $syms"$'\n'
	done
	report "${hits%$'\n'}" \
	    "object(s) outside scanners/child/ that open an archive (only the sandboxed children may)"
fi

[ $bad -eq 0 ] && echo "lint: ok"
exit $bad
