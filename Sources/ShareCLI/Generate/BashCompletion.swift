/// `share completions bash`: the tree as `case` tables, and a driver that walks the words typed so
/// far down it. Works with bash-completion (which loads it from
/// /usr/share/bash-completion/completions/share) and without it (`source <(share completions bash)`).
enum BashCompletion {
  static func script(_ tree: CompletionTree) -> String {
    [header, nodeTable(tree), tree.posixValueTable(openingPatternsWith: ""), driver].joined(separator: "\n")
  }

  private static let header = CompletionTree.header(shell: "bash")

  /// `_share_node PATH`: sets the children, options, argument actions and the most arguments
  /// of the command at PATH (`''` is share itself); fails for a path that is no command.
  private static func nodeTable(_ tree: CompletionTree) -> String {
    var lines = [
      "_share_node() {",
      "  case $1 in",
    ]
    for node in tree.nodes {
      let children = node.children.map { ShellQuoting.posix($0.name) }.joined(separator: " ")
      let options = node.options.flatMap(\.names).joined(separator: " ")
      let arguments = node.arguments.map { ShellQuoting.posix($0.token) }.joined(separator: " ")
      lines += [
        "  \(ShellQuoting.casePattern(node.name)))",
        "    _share_children=(\(children))",
        "    _share_options=(\(options))",
        "    _share_arguments=(\(arguments))",
        "    _share_max=\(maximum(node)) ;;",
      ]
    }
    lines += ["  *) return 1 ;;", "  esac", "}", ""]
    return lines.joined(separator: "\n")
  }

  /// The most positional arguments, -1 for any number.
  static func maximum(_ node: CompletionTree.Node) -> Int { node.maximumArguments == Int.max ? -1 : node.maximumArguments }

  private static let driver = #"""
    # _share_words: the words and the current one, with "--opt=value" as one word. bash splits
    # words at "=" and ":"; bash-completion joins them back, and without it "=" is joined here.
    _share_words() {
      if declare -F _get_comp_words_by_ref >/dev/null; then
        _get_comp_words_by_ref -n =: cur words cword
        return
      fi
      local i w join=0
      words=() cword=0
      for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if ((join)); then
          words[${#words[@]}-1]+=$w join=0
        elif [[ $w == = && ${#words[@]} -gt 0 && ${words[${#words[@]}-1]} == --* && ${words[${#words[@]}-1]} != *=* ]]; then
          words[${#words[@]}-1]+='=' join=1
        else
          words+=("$w")
        fi
        ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
      done
      cur=${words[cword]}
    }

    # _share_offer ACTION VALUE: adds to COMPREPLY what ACTION offers for VALUE (see the tables).
    _share_offer() {
      local action=$1 cur=$2 line IFS=$'\n'
      case $action in
      files | dirs)
        if declare -F _filedir >/dev/null; then
          if [[ $action == dirs ]]; then _filedir -d; else _filedir; fi
        else
          compopt -o filenames 2>/dev/null
          if [[ $action == dirs ]]; then COMPREPLY+=($(compgen -d -- "$cur")); else COMPREPLY+=($(compgen -f -- "$cur")); fi
        fi ;;
      cmds) COMPREPLY+=($(compgen -c -- "$cur")) ;;
      =*)
        local choices
        IFS=',' read -ra choices <<<"${action#=}"
        COMPREPLY+=($(compgen -W "${choices[*]}" -- "$cur")) ;;
      @*)
        # Names may hold spaces or quotes: each is inserted quoted, compared unquoted.
        while IFS= read -r line; do
          [[ -n $line && $line == "${cur//\\/}"* ]] && COMPREPLY+=("$(printf '%q' "$line")")
        done < <("$_share_command" __complete "${action#@}" "${_share_home[@]}" 2>/dev/null) ;;
      help)
        # The subcommands of the command named by the arguments so far (share help inbox <Tab>).
        local path _share_children _share_options _share_arguments _share_max
        printf -v path '%s ' "${_share_args[@]}"
        _share_node "${path% }" && COMPREPLY+=($(compgen -W "${_share_children[*]}" -- "$cur")) ;;
      esac
    }

    _share() {
      local cur words cword word i nargs=0 dashdash=0 expecting= path=
      local _share_children _share_options _share_arguments _share_max _share_action
      local _share_home=() _share_args=() _share_command=share
      COMPREPLY=()
      _share_words
      [[ ${words[0]} == */* && -x ${words[0]} ]] && _share_command=${words[0]}
      _share_node ''
      for ((i = 1; i < cword; i++)); do
        word=${words[i]}
        if [[ -n $expecting ]]; then
          [[ $expecting == --home ]] && _share_home=(--home "$word")
          expecting=
        elif ((!dashdash)) && [[ $word == -- ]]; then
          dashdash=1
        elif ((!dashdash)) && [[ $word == -?* ]]; then
          if [[ $word == --home=* ]]; then _share_home=(--home "${word#--home=}")
          elif [[ $word != *=* ]] && _share_value "$word"; then expecting=$word; fi
        elif ((nargs == 0)) && [[ " ${_share_children[*]} " == *" $word "* ]]; then
          path=${path:+$path }$word
          _share_node "$path"
        else
          _share_args+=("$word")
          nargs=$((nargs + 1))
        fi
      done
      if [[ -n $expecting ]]; then
        _share_value "$expecting" && _share_offer "$_share_action" "$cur"
      elif ((!dashdash)) && [[ $cur == --*=* ]]; then
        _share_value "${cur%%=*}" && cur=${cur#*=} && _share_offer "$_share_action" "$cur"
      elif ((!dashdash)) && [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${_share_options[*]}" -- "$cur"))
      else
        ((nargs == 0)) && COMPREPLY=($(compgen -W "${_share_children[*]}" -- "$cur"))
        if ((${#_share_arguments[@]} > 0 && (_share_max < 0 || nargs < _share_max))); then
          i=$((nargs < ${#_share_arguments[@]} ? nargs : ${#_share_arguments[@]} - 1))
          _share_offer "${_share_arguments[i]}" "$cur"
        fi
      fi
      declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
      return 0
    }

    complete -F _share share

    """#
}
