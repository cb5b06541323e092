; hookgraph query for Bash / POSIX shell. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

; name() { ... } / function name { ... } / function name() ( ... )
(function_definition
  name: (word) @name.definition.function
  body: (_) @body) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

; source lib.sh / . "$DIR/lib.sh"
(command
  name: (command_name (word) @_source)
  argument: [(word) (string) (raw_string) (concatenation)] @name.reference.import
  (#any-of? @_source "source" "."))

; ---------------------------------------------------------------- calls

; every command is a call of a function or program; shell builtins that only
; steer the script are left out (#not-match?: py-tree-sitter 0.26 ignores #not-any-of?)
(command
  name: (command_name (word) @name.reference.call)
  (#not-match? @name.reference.call "^(source|\\.|:|echo|printf|return|exit|shift|set|unset|export|local|declare|typeset|readonly|eval|exec|test|\\[|\\[\\[|true|false|cd|pwd|read|break|continue|trap|wait|command|builtin|type|hash|let|getopts|alias|unalias|shopt|compgen|complete|compopt)$")) @reference.call
