# bash completion for fitsasdf. The command names come from `fitsasdf --help` and each
# command's options from `fitsasdf COMMAND --help`, asked of the program being completed, so
# the completion always matches the installed version. File names everywhere else.
# Installed as share/bash-completion/completions/fitsasdf (loaded on demand by bash-completion);
# without that package, `source` this file from ~/.bashrc.

# _fitsasdf_commands PROGRAM: the command names of PROGRAM's --help, one per line.
_fitsasdf_commands() {
  "$1" --help 2>/dev/null |
    awk '/^Commands:/ { listing = 1; next } listing && /^  [a-z]/ { print $1 } listing && /^$/ { exit }'
}

# _fitsasdf_options PROGRAM COMMAND: the long options of `PROGRAM COMMAND --help`.
_fitsasdf_options() {
  "$1" "$2" --help 2>/dev/null | grep -oE -- '--[A-Za-z0-9][A-Za-z0-9-]*' | sort -u
}

_fitsasdf() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local program=${COMP_WORDS[0]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$(_fitsasdf_commands "$program") help --help --version" -- "$cur")
    return 0
  fi
  local command=${COMP_WORDS[1]}
  if [[ $command == help ]]; then
    ((COMP_CWORD == 2)) &&
      mapfile -t COMPREPLY < <(compgen -W "$(_fitsasdf_commands "$program")" -- "$cur")
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_fitsasdf_options "$program" "$command")" -- "$cur")
    return 0
  fi
  # Anything else is a file name, a value or a JSON Pointer: let readline offer file names.
  compopt -o default 2>/dev/null
  return 0
}

complete -F _fitsasdf fitsasdf
