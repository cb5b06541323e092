; hookgraph query for Elixir. Capture convention: docs/languages.md
; Everything is a call: `defmodule`, `def` and friends are told apart by their target's name.
; Modules nest with "." (Plug.Conn.Utils.Inner); `defimpl Size, for: BitString` is Size.BitString.

; ---------------------------------------------------------------- definitions

(call
  target: (identifier) @_defmodule
  (arguments . (alias) @name.definition.module)
  (do_block) @body
  (#eq? @_defmodule "defmodule")) @definition.module

(call
  target: (identifier) @_defprotocol
  (arguments . (alias) @name.definition.interface)
  (do_block) @body
  (#eq? @_defprotocol "defprotocol")) @definition.interface

(call
  target: (identifier) @_defimpl
  (arguments
    . (alias) @name.scope
    (keywords (pair key: (keyword) @_for value: (alias) @name.definition.module)))
  (do_block) @body
  (#eq? @_defimpl "defimpl")
  (#match? @_for "^for:")) @definition.module

; def f(x) do ... end / def f(x) when g(x), do: ... / def f, do: ... / defp, defmacro, defguard, defdelegate
(call
  target: (identifier) @_def
  (arguments . [
    (call target: (identifier) @name.definition.function)
    (binary_operator left: (call target: (identifier) @name.definition.function))
    (identifier) @name.definition.function
    (binary_operator left: (identifier) @name.definition.function)])
  (do_block)? @body
  (#any-of? @_def "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp")) @definition.function

; ---------------------------------------------------------------- documentation

; @moduledoc "..." belongs to its module
(unary_operator
  operand: (call
    target: (identifier) @_moduledoc
    (arguments . [(string) (sigil)] @doc))
  (#eq? @_moduledoc "moduledoc"))
; @doc "..." stands before its function, like a comment; @spec / @impl may stand between
(unary_operator
  operand: (call
    target: (identifier) @_doc
    (arguments . [(string) (sigil)]))
  (#any-of? @_doc "doc" "typedoc")) @comment
; module attributes (@spec, @impl, @custom 1...) are annotations: what they name is no call;
; @behaviour is read below as inheritance
(unary_operator
  operator: "@"
  operand: (call target: (identifier) @_attr)
  (#not-match? @_attr "^(behaviour|behavior)$")) @annotation
(comment) @comment

; ---------------------------------------------------------------- imports

; alias A.B / alias A.{B, C} / import A / require A / use A
(call
  target: (identifier) @_import
  (arguments . (alias) @name.reference.import)
  (#any-of? @_import "alias" "import" "require" "use"))
(call
  target: (identifier) @_import
  (arguments . (dot left: (alias) @module.reference.import right: (tuple (alias) @name.reference.import)))
  (#eq? @_import "alias"))

; ---------------------------------------------------------------- calls

; f(x) / x |> f() (not the def*/alias/@attribute/special forms)
(call
  target: (identifier) @name.reference.call
  (#not-match? @name.reference.call "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|quote|unquote|unquote_splicing|moduledoc|doc|typedoc|spec|type|typep|opaque|callback|macrocallback|impl|behaviour|derive|enforce_keys|compile|deprecated|dialyzer|since|fn|case|cond|with|for|if|unless|receive|try|raise|reraise|throw|super|__using__)$")) @reference.call
; Mod.f(x) / Plug.Conn.Query.decode()
(call
  target: (dot right: (identifier) @name.reference.call)) @reference.call

; ---------------------------------------------------------------- inheritance

; @behaviour Plug: the module implements that behaviour's callbacks
(unary_operator
  operand: (call
    target: (identifier) @_behaviour
    (arguments . (alias) @name.reference.inherits))
  (#any-of? @_behaviour "behaviour" "behavior"))
; defimpl Size, for: BitString implements the protocol Size
(call
  target: (identifier) @_defimpl
  (arguments . (alias) @name.reference.inherits)
  (#eq? @_defimpl "defimpl"))
