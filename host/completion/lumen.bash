# Bash completion for lumen's collect and er_print. Options, commands and
# shipped profiles are read from the commands' own --help and -help, and
# metric keywords from the experiment on the command line, so completion is
# never out of step with the installed version.

# The word being completed and the one before it, whole: bash splits words at
# ':' and '=' too (COMP_WORDBREAKS), which would cut a metric spec apart.
_lumen_words() {
  local line=${COMP_LINE:0:COMP_POINT}
  cur=${line##*[[:space:]]}
  local before=${line%"$cur"}
  before=${before%"${before##*[![:space:]]}"}
  prev=${before##*[[:space:]]}
}

# Completions for `word` when bash replaces only its part after the last
# ':' or '=' (a word break): that part's candidates, without what precedes.
_lumen_reply() {
  local word=$1; shift
  local cut=""
  [[ $COMP_WORDBREAKS == *:* && $word == *:* ]] && cut=${word%:*}:
  [[ $COMP_WORDBREAKS == *=* && $word == *=* && ${word%%=*} != *:* ]] && cut=${word%%=*}=
  COMPREPLY=()
  local candidate
  for candidate in "$@"; do
    [[ $candidate == "$word"* ]] && COMPREPLY+=("${candidate#"$cut"}")
  done
}

# The experiment directories already on the command line.
_lumen_experiments() {
  local word
  for word in "${COMP_WORDS[@]:1}"; do
    [[ $word == *.er && -d $word ]] && printf '%s\n' "$word"
  done
}

# Metric keywords of the experiments given, in every flavor and visibility,
# after the metrics of a spec the current word has begun.
_lumen_metric_words() {
  local cur=$1 keywords prefix="" experiments
  mapfile -t experiments < <(_lumen_experiments)
  ((${#experiments[@]})) || return
  keywords=$("${COMP_WORDS[0]}" -metric_list "${experiments[@]}" 2>/dev/null | awk 'NR > 3 && NF { print $1 }')
  [[ $cur == *:* ]] && prefix=${cur%:*}:
  local candidates=() k
  for k in $keywords name; do
    candidates+=("$prefix$k")
    [[ $k == name ]] && continue
    candidates+=("${prefix}e.$k" "${prefix}i.$k" "${prefix}a.$k" "${prefix}e.%$k" "${prefix}i.%$k")
  done
  _lumen_reply "$cur" "${candidates[@]}"
}

_lumen_collect() {
  local cur prev i
  _lumen_words
  # Past the program's name, complete the program's own arguments.
  for ((i = 1; i < COMP_CWORD; i++)); do
    local w=${COMP_WORDS[i]}
    if [[ $w == -- ]]; then
      ((i + 1 <= COMP_CWORD)) && { _lumen_program_args $((i + 1)); return; }
    fi
    case $w in
      -p | -k | -h | -s | -H | -i | -m | -M | -j | -J | -omp | -states | -S | -l | -y | -t | -L | -A | -a | -o | -O | -d | -C | -F | -P | --profile | --plugin | --verbose) ((i++)) ;;
      -*) ;;
      *) _lumen_program_args "$i"; return ;;
    esac
  done
  case $prev in
    -p) COMPREPLY=($(compgen -W "on off hi lo" -- "$cur")); return ;;
    -H | -i | -m | -omp | -j | -k | -states) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    -s) COMPREPLY=($(compgen -W "on off all calibrate" -- "$cur")); return ;;
    -S) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    -A) COMPREPLY=($(compgen -W "on off copy" -- "$cur")); return ;;
    -a) COMPREPLY=($(compgen -W "off on ldobjects usedldobjects src usedsrc" -- "$cur")); return ;;
    --verbose) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    -F) COMPREPLY=($(compgen -W "on off all" -- "$cur")); return ;;
    -M) COMPREPLY=($(compgen -W "OPENMPI MPICH MPICH2 off" -- "$cur")); return ;;
    -l | -y) COMPREPLY=($(compgen -W "SIGUSR1 SIGUSR2 SIGPROF SIGALRM" -- "$cur")); return ;;
    -h)
      COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" -h 2>/dev/null | awk -F, '/^[a-z][a-z0-9_\/-]*,[0-9]/ { print $1 }')" -- "$cur"))
      return ;;
    --profile)
      local shipped
      shipped=$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n 's/.*(shipped: \([^;]*\);.*/\1/p' | tr -d ,)
      COMPREPLY=($(compgen -W "$shipped" -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
      return ;;
    -o | -O) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -d | --plugin) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -C | -t | -L) return ;;
    -P)  # running processes of this user: their ids
      COMPREPLY=($(compgen -W "$(ps -o pid= -u "$(id -u)" 2>/dev/null)" -- "$cur"))
      return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" --help 2>/dev/null | grep -oE '^ +-[-a-zA-Z]+(, --[a-z-]+)?' | tr -d ' ,')" -- "$cur"))
  else
    COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
  fi
}

# The program and its arguments, completed as the shell would without collect.
_lumen_program_args() {
  local start=$1
  if declare -F _command_offset >/dev/null; then
    _command_offset "$start"
  elif ((start == COMP_CWORD)); then
    COMPREPLY=($(compgen -c -- "${COMP_WORDS[COMP_CWORD]}"))
  else
    COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
  fi
}

_lumen_er_print() {
  local cur prev
  _lumen_words
  case $prev in
    -metrics | -dmetrics | -sort | -dsort) _lumen_metric_words "$cur"; return ;;
    -format) COMPREPLY=($(compgen -W "text csv json" -- "$cur")); return ;;
    -name) COMPREPLY=($(compgen -W "long short mangled" -- "$cur")); return ;;
    -viewmode) COMPREPLY=($(compgen -W "user expert machine" -- "$cur")); return ;;
    -compare) COMPREPLY=($(compgen -W "on off delta ratio" -- "$cur")); return ;;
    -inline) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    -en_desc) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    -printmode) COMPREPLY=($(compgen -W "text csv json" -- "$cur")); return ;;
    -indxobj) COMPREPLY=($(compgen -W "Threads CPUs Samples Seconds Hosts Processes" -- "$cur")); return ;;
    -outfile | -appendfile | -script) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -open_exp | -add_exp) COMPREPLY=($(compgen -d -X '!*.er' -- "$cur") $(compgen -d -S / -- "$cur")); return ;;
    -setpath | -addpath | --plugin) COMPREPLY=($(compgen -d -- "$cur")); return ;;
  esac
  if [[ $cur == --format=* ]]; then
    _lumen_reply "$cur" --format=text --format=csv --format=json
  elif [[ $cur == -* ]]; then
    local commands
    commands=$("${COMP_WORDS[0]}" -help 2>/dev/null | awk '/^  [a-z]/ { print "-" $1 }')
    COMPREPLY=($(compgen -W "$commands --plugin --format=" -- "$cur"))
    [[ ${COMPREPLY[0]-} == --format= ]] && compopt -o nospace 2>/dev/null
  else
    COMPREPLY=($(compgen -d -X '!*.er' -- "$cur") $(compgen -d -S / -- "$cur"))
  fi
}

# er_kernel [options] [-- command args]: after --, the command's own words.
_lumen_er_kernel() {
  local cur prev i
  _lumen_words
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --) _lumen_program_args $((i + 1)); return ;;
      -p | -t | -o | -d | -A | -C) ((i++)) ;;
    esac
  done
  case $prev in
    -p) COMPREPLY=($(compgen -W "on hi lo" -- "$cur")); return ;;
    -A) COMPREPLY=($(compgen -W "on off copy" -- "$cur")); return ;;
    -d) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -o | -t | -C) return ;;
  esac
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" -h 2>/dev/null | grep -oE '^ +-[-a-zA-Z]+' | tr -d ' ') --" -- "$cur"))
}

complete -F _lumen_collect collect
complete -F _lumen_er_kernel er_kernel
complete -F _lumen_er_print er_print
complete -o dirnames er_archive er_rm er_mv er_cp er_otf2
