#!/usr/bin/env bash
# cli:bash-completion: the completion script (cli/shell/fitsasdf.bash) completes command names,
# `help COMMAND`, each command's long options (asked of the program), and leaves file names to
# readline.
# Usage: completion_test.sh COMPLETION_FILE FITSASDF
set -euo pipefail
script=$1
PATH=$(cd "$(dirname "$2")" && pwd):$PATH
export PATH
fail() { echo "cli:bash-completion: FAILED: $*" >&2; exit 1; }
# shellcheck source=/dev/null
source "$script"
complete -p fitsasdf | grep -- '-F _fitsasdf' >/dev/null || fail "no completion registered for fitsasdf"

# complete WORD...: complete the last word of the command line WORD... and print the choices.
complete_line() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _fitsasdf
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # expect "CHOICES" WORD...: the choices, sorted and joined by spaces
  local want=$1
  shift
  local got
  got=$(complete_line "$@" | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
}

expect "convert" fitsasdf con
expect "defragment diff" fitsasdf d
expect "edit explode extract" fitsasdf e
expect "edit" fitsasdf help ed
expect "--overwrite" fitsasdf convert --overw
expect "--blocks" fitsasdf info --bl
expect "--dry-run" fitsasdf edit x.asdf --dry
expect "" fitsasdf convert --no-such
# Every command of --help is offered on an empty word, with help, --help and --version.
commands=$(fitsasdf --help | awk '/^Commands:/{l=1;next} l&&/^  [a-z]/{print $1} l&&/^$/{exit}' | sort)
[ "$(wc -l <<<"$commands")" -ge 10 ] || fail "fitsasdf --help lists too few commands: $commands"
offered=$(complete_line fitsasdf "" | sort)
for c in $commands help --help --version; do
  grep -qxF -- "$c" <<<"$offered" || fail "'$c' is not offered for an empty first word"
done
# Every long option of every command is offered for "--".
for c in $commands; do
  options=$(complete_line fitsasdf "$c" --)
  for o in $(fitsasdf "$c" --help | grep -oE -- '--[A-Za-z0-9][A-Za-z0-9-]*' | sort -u); do
    grep -qxF -- "$o" <<<"$options" || fail "$c: option $o is not offered"
  done
done
# A file name position gives no word list (readline completes file names).
[ -z "$(complete_line fitsasdf convert sam)" ] || fail "a file name position got a word list"
echo "cli:bash-completion: ok ($(wc -w <<<"$commands") commands)"
