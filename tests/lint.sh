#!/usr/bin/env bash
# lint.sh - refuses C code that calls a banned function.
#
# Run from anywhere: bash tests/lint.sh [DIR...]
# Scans every .c and .h under common/ scanners/ gate/ tests/ (or the DIRs given)
# for calls of functions that are unsafe (no bound: sprintf, strcpy, gets...),
# error-prone (strncpy, strncat, strtok, atoi...) or racy (tmpnam, mktemp).
# A call is NAME followed by optional blanks and '(' with no identifier
# character before NAME, so snprintf, vsnprintf, mkstemp or my_strcpy are not
# matched. Lines of // and /* */ comments and string literals are not exempt
# on purpose: keep the names out of them or rephrase.
# Prints file:line: text for every hit and exits 1, or prints 'lint: ok'.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BANNED='sprintf|vsprintf|strcpy|strcat|strncat|gets|strtok|atoi|atol|atoll|strncpy|alloca|tmpnam|mktemp'
# (^|[^A-Za-z0-9_]) instead of \b so that my_strcpy( is not a hit either.
RE="(^|[^A-Za-z0-9_])($BANNED)[[:space:]]*\\("

if [ $# -gt 0 ]; then
	DIRS=("$@")
else
	DIRS=()
	for d in common scanners gate db tests bench; do
		[ -d "$ROOT/$d" ] && DIRS+=("$ROOT/$d")
	done
fi

files=()
while IFS= read -r -d '' f; do
	files+=("$f")
done < <(find "${DIRS[@]}" -type f \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null | sort -z)

if [ ${#files[@]} -eq 0 ]; then
	echo "lint: ok (no C files)"
	exit 0
fi

hits=$(grep -nHE -- "$RE" "${files[@]}" | sed "s|^$ROOT/||")
if [ -n "$hits" ]; then
	echo "$hits"
	n=$(printf '%s\n' "$hits" | wc -l)
	echo "lint: $n call(s) of banned functions ($BANNED)" | sed 's/|/, /g' >&2
	exit 1
fi
echo "lint: ok"
