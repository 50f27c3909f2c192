/// `share completions fish`: the tree as `switch` tables with each command's and option's
/// summary, and the same driver as bash's, printing `candidate<TAB>description` lines that fish
/// filters and shows. One `complete` rule calls it; files come from fish's own path completion.
enum FishCompletion {
  static func script(_ tree: CompletionTree) -> String {
    [header, nodeTable(tree), valueTable(tree), driver].joined(separator: "\n")
  }

  private static let header = CompletionTree.header(shell: "fish")

  /// `__share_node PATH`: prints `children`, `options`, `arguments` and `max` lines for the
  /// command at PATH; fails for a path that is no command. Each name and summary is one
  /// `kind<TAB>name<TAB>summary` line.
  private static func nodeTable(_ tree: CompletionTree) -> String {
    var lines = ["function __share_node --argument-names path", "    switch $path"]
    for node in tree.nodes {
      lines.append("    case \(ShellQuoting.fish(node.name))")
      for child in node.children {
        lines.append("        printf '%s\\t%s\\t%s\\n' child \(ShellQuoting.fish(child.name)) \(ShellQuoting.fish(child.summary))")
      }
      for option in node.options {
        for name in option.names {
          lines.append("        printf '%s\\t%s\\t%s\\n' option \(ShellQuoting.fish(name)) \(ShellQuoting.fish(option.help))")
        }
      }
      for argument in node.arguments {
        lines.append("        printf '%s\\t%s\\n' argument \(ShellQuoting.fish(argument.token))")
      }
      lines.append("        printf '%s\\t%s\\n' max \(BashCompletion.maximum(node))")
    }
    lines += ["    case '*'", "        return 1", "    end", "end", ""]
    return lines.joined(separator: "\n")
  }

  /// `__share_value OPTION`: prints what to offer for the option's value; fails for a flag.
  private static func valueTable(_ tree: CompletionTree) -> String {
    var lines = ["function __share_value --argument-names option", "    switch $option"]
    for (name, action) in tree.valuedOptions {
      lines += ["    case \(ShellQuoting.fish(name))", "        echo \(ShellQuoting.fish(action.token))"]
    }
    lines += ["    case '*'", "        return 1", "    end", "end", ""]
    return lines.joined(separator: "\n")
  }

  private static let driver = #"""
    # __share_field KIND LINE...: of the node's lines, those of KIND, without the kind.
    function __share_field --argument-names kind
        string match -- "$kind"\t'*' $argv[2..-1] | string replace -r '^[^\t]*\t' ''
    end

    # __share_offer ACTION CURRENT: prints what ACTION offers for the word being typed.
    function __share_offer --argument-names action current
        switch $action
        case files
            __fish_complete_path $current
        case dirs
            __fish_complete_directories $current ''
        case cmds
            complete -C "$current"
        case '=*'
            string split , -- (string sub -s 2 -- $action)
        case '@*'
            $__share_command __complete (string sub -s 2 -- $action) $__share_home 2>/dev/null
        case help
            # The subcommands of the command named by the arguments so far (share help inbox <Tab>).
            __share_field child (__share_node "$__share_args")
        end
    end

    function __share_complete
        set -l words (commandline -opc)
        set -l current (commandline -ct)
        set -g __share_command share
        string match -q -- '*/*' $words[1]; and test -x $words[1]; and set __share_command $words[1]
        set -g __share_home
        set -g __share_args
        set -l path ''
        set -l nargs 0
        set -l dashdash 0
        set -l expecting ''
        set -g __share_lines (__share_node '')
        for word in $words[2..-1]
            if test -n "$expecting"
                test "$expecting" = --home; and set __share_home --home $word
                set expecting ''
            else if test $dashdash = 0; and test "$word" = --
                set dashdash 1
            else if test $dashdash = 0; and string match -q -- '-?*' $word
                if string match -q -- '--home=*' $word
                    set __share_home --home (string sub -s 8 -- $word)
                else if not string match -q -- '*=*' $word; and __share_value $word >/dev/null
                    set expecting $word
                end
            else if test $nargs = 0; and contains -- $word (__share_field child $__share_lines | string replace -r '\t.*' '')
                set path (string join ' ' -- (string split -n ' ' -- $path) $word)
                set __share_lines (__share_node "$path")
            else
                set -a __share_args $word
                set nargs (math $nargs + 1)
            end
        end
        set -g __share_args (string join ' ' -- $__share_args)
        if test -n "$expecting"
            __share_offer (__share_value $expecting) $current
        else if test $dashdash = 0; and string match -q -- '--*=*' $current
            set -l option (string replace -r '=.*' '' -- $current)
            set -l action (__share_value $option); or return
            __share_offer $action (string replace -r '^[^=]*=' '' -- $current) | string replace -r -- '^' "$option="
        else if test $dashdash = 0; and string match -q -- '-*' $current
            __share_field option $__share_lines
        else
            test $nargs = 0; and __share_field child $__share_lines
            set -l arguments (__share_field argument $__share_lines)
            set -l max (__share_field max $__share_lines)
            set -l count (count $arguments)
            if test $count -gt 0; and begin; test $max -lt 0; or test $nargs -lt $max; end
                set -l index $count
                test $nargs -lt $count; and set index (math $nargs + 1)
                __share_offer $arguments[$index] $current
            end
        end
    end

    complete -c share -e
    complete -c share -f -a '(__share_complete)'

    """#
}
