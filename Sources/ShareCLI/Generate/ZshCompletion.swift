import Foundation

/// `share completions zsh`: the tree as `case` tables with each command's and option's summary,
/// and the same driver as bash's, offering through zsh's own `_describe`, `_files` and `compadd`.
/// Autoloaded from a folder on `fpath` (`_share`), or sourced.
enum ZshCompletion {
  static func script(_ tree: CompletionTree) -> String {
    [header, nodeTable(tree), tree.posixValueTable(openingPatternsWith: "("), driver].joined(separator: "\n")
  }

  private static let header = "#compdef share\n" + CompletionTree.header(shell: "zsh")

  /// `_share_node PATH`: the children and options of the command at PATH as `name:summary`, its
  /// argument actions and its most arguments (-1: any number).
  private static func nodeTable(_ tree: CompletionTree) -> String {
    var lines = ["_share_node() {", "  case $1 in"]
    for node in tree.nodes {
      let children = node.children.map { described($0.name, $0.summary) }
      let options = node.options.flatMap { option in option.names.map { described($0, option.help) } }
      let arguments = node.arguments.map { ShellQuoting.posix($0.token) }
      lines += [
        "  (\(ShellQuoting.casePattern(node.name)))",
        "    _share_children=(\(children.joined(separator: " ")))",
        "    _share_options=(\(options.joined(separator: " ")))",
        "    _share_arguments=(\(arguments.joined(separator: " ")))",
        "    _share_max=\(BashCompletion.maximum(node)) ;;",
      ]
    }
    lines += ["  (*) return 1 ;;", "  esac", "}", ""]
    return lines.joined(separator: "\n")
  }

  /// `name:summary` as `_describe` reads it (a colon in the name escaped), quoted.
  private static func described(_ name: String, _ summary: String) -> String {
    ShellQuoting.posix(name.replacingOccurrences(of: ":", with: #"\:"#) + ":" + summary)
  }

  private static let driver = #"""
    # _share_offer ACTION: offers what ACTION names for the current word (see the tables).
    _share_offer() {
      local action=$1
      case $action in
      (files) _files ;;
      (dirs) _files -/ ;;
      (cmds) _command_names -e ;;
      ('='*)
        local -a choices
        choices=(${(s:,:)${action#=}})
        compadd -a choices ;;
      ('@'*)
        local -a names
        names=(${(f)"$($_share_command __complete ${action#@} $_share_home 2>/dev/null)"})
        compadd -a names ;;
      (help)
        # The subcommands of the command named by the arguments so far (share help inbox <Tab>).
        local -a _share_children _share_options _share_arguments
        local _share_max
        _share_node "${(j: :)_share_args}" && _describe -t commands command _share_children ;;
      (*) return 1 ;;
      esac
    }

    _share() {
      local -a _share_children _share_options _share_arguments _share_home _share_args
      # Not "path": in zsh that is PATH.
      local _share_max _share_action _share_command=share word expecting= node=
      integer i nargs=0 dashdash=0 ret=1
      [[ $words[1] == */* && -x $words[1] ]] && _share_command=$words[1]
      _share_node ''
      for (( i = 2; i < CURRENT; i++ )); do
        word=${(Q)words[i]}
        if [[ -n $expecting ]]; then
          [[ $expecting == --home ]] && _share_home=(--home ${word/#\~/$HOME})
          expecting=
        elif (( ! dashdash )) && [[ $word == -- ]]; then
          dashdash=1
        elif (( ! dashdash )) && [[ $word == -?* ]]; then
          if [[ $word == --home=* ]]; then _share_home=(--home ${${word#--home=}/#\~/$HOME})
          elif [[ $word != *=* ]] && _share_value $word; then expecting=$word; fi
        elif (( nargs == 0 && ${_share_children[(I)${(b)word}:*]} )); then
          node=${node:+$node }$word
          _share_node $node
        else
          _share_args+=($word)
          (( nargs++ ))
        fi
      done
      if [[ -n $expecting ]]; then
        _share_value $expecting && _share_offer $_share_action
      elif (( ! dashdash )) && [[ $PREFIX == --*=* ]]; then
        _share_value ${PREFIX%%=*} && compset -P '*=' && _share_offer $_share_action
      elif (( ! dashdash )) && [[ $PREFIX == -* ]]; then
        _describe -t options option _share_options
      else
        (( nargs == 0 && $#_share_children )) && _describe -t commands command _share_children && ret=0
        if (( $#_share_arguments && (_share_max < 0 || nargs < _share_max) )); then
          i=$(( nargs < $#_share_arguments ? nargs + 1 : $#_share_arguments ))
          _share_offer $_share_arguments[i] && ret=0
        fi
        return ret
      fi
    }

    if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
      _share "$@"
    else
      compdef _share share
    fi

    """#
}
