; hookgraph query for R. Capture convention: docs/languages.md
; Functions are assignments: name <- function(...), name = function(...), name <<- function(...).
; Members join with "$" as R writes them (Stack$push); a dot is part of an R name (as.logical).

; ---------------------------------------------------------------- definitions

(binary_operator
  lhs: [(identifier) (string)] @name.definition.function
  rhs: (function_definition body: (_) @body)) @definition.function

; Stack <- R6Class("Stack", inherit = Base, public = list(push = function(x) ...))
(binary_operator
  lhs: (identifier) @name.definition.class
  rhs: (call
    function: [(identifier) (namespace_operator rhs: (identifier))] @_r6
    arguments: (arguments) @body)
  (#match? @_r6 "(^|:)R6Class$")) @definition.class
; its members: list(name = function(...) ...)
(call
  function: (identifier) @_list
  arguments: (arguments
    (argument
      name: (identifier) @name.definition.function
      value: (function_definition body: (_) @body)) @definition.function)
  (#eq? @_list "list"))

; setClass("Person", representation(...), contains = "Base") / setRefClass(...)
(call
  function: (identifier) @_setclass
  arguments: (arguments . (argument value: (string (string_content) @name.definition.class)))
  (#any-of? @_setclass "setClass" "setRefClass")) @definition.class

; ---------------------------------------------------------------- documentation

; roxygen #' blocks and plain # comments
(comment) @comment

; ---------------------------------------------------------------- imports

; library(pkg) / require("pkg") / requireNamespace("pkg") / source("file.R")
(call
  function: (identifier) @_library
  arguments: (arguments . (argument value: [
    (identifier) @name.reference.import
    (string (string_content) @name.reference.import)]))
  (#any-of? @_library "library" "require" "requireNamespace" "loadNamespace" "source" "sys.source"))

; ---------------------------------------------------------------- calls

(call
  function: (identifier) @name.reference.call
  (#not-match? @name.reference.call "^(library|require|requireNamespace|loadNamespace|source|setClass|setRefClass|function|return|invisible|c|list|if|for|while|stop|warning|message|paste|paste0|is.null|length|missing)$")) @reference.call
; pkg::fn(...) / pkg:::fn(...)
(call
  function: (namespace_operator rhs: (identifier) @name.reference.call)) @reference.call
; self$push(...) / obj$method(...)
(call
  function: (extract_operator rhs: (identifier) @name.reference.call)) @reference.call

; ---------------------------------------------------------------- inheritance

(call
  function: (identifier) @_setclass
  arguments: (arguments (argument
    name: (identifier) @_contains
    value: (string (string_content) @name.reference.inherits)))
  (#any-of? @_setclass "setClass" "setRefClass")
  (#eq? @_contains "contains"))
(binary_operator
  lhs: (identifier)
  rhs: (call
    function: [(identifier) (namespace_operator rhs: (identifier))] @_r6
    arguments: (arguments (argument
      name: (identifier) @_inherit
      value: (identifier) @name.reference.inherits)))
  (#match? @_r6 "(^|:)R6Class$")
  (#eq? @_inherit "inherit"))
