# Sourced by lockr's shell scripts, whose opening comment is their usage, so that asking for help
# or mistyping an argument never sets anything in motion.
#
#   takes_no_arguments "$@"    -h/--help prints the usage and exits 0; any other argument is
#                              refused with exit 2; both before the script changes anything
#   asks_for_help "$@"         true when -h or --help is among the arguments
#   print_usage [SYNOPSIS]     "usage: SCRIPT SYNOPSIS", then the opening comment

print_usage() {
  printf 'usage: %s%s\n\n' "$0" "${1:+ $1}"
  sed -n '2,${/^#/!q;s/^# \{0,1\}//;p}' "$0"
}

asks_for_help() {
  local argument
  for argument in "$@"; do
    case "$argument" in -h | --help) return 0 ;; esac
  done
  return 1
}

refuse_argument() {
  printf '%s: unknown argument %s (--help says what it takes)\n' "$0" "$1" >&2
  exit 2
}

takes_no_arguments() {
  if asks_for_help "$@"; then print_usage "[-h]"; exit 0; fi
  if [ "$#" -gt 0 ]; then refuse_argument "$1"; fi
}
