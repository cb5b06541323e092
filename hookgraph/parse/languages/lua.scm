; hookgraph query for Lua. Capture convention: docs/languages.md
; A function stored in a table is a method of that table: `function M.f()` and
; `function Class:method()` are `M.f` and `Class.method` (Lua's own dotted form).

; ---------------------------------------------------------------- definitions

; function f() / local function f()
(function_declaration
  name: (identifier) @name.definition.function
  body: (_)? @body) @definition.function

; function M.f() / function a.b.f()
(function_declaration
  name: (dot_index_expression
    table: (_) @name.scope
    field: (identifier) @name.definition.function)
  body: (_)? @body) @definition.function

; function Class:method()
(function_declaration
  name: (method_index_expression
    table: (_) @name.scope
    method: (identifier) @name.definition.function)
  body: (_)? @body) @definition.function

; f = function() end / local f = function() end
(assignment_statement
  (variable_list . name: (identifier) @name.definition.function .)
  (expression_list . value: (function_definition body: (_)? @body) .)) @definition.function

; M.f = function() end
(assignment_statement
  (variable_list . name: (dot_index_expression
    table: (_) @name.scope
    field: (identifier) @name.definition.function) .)
  (expression_list . value: (function_definition body: (_)? @body) .)) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

; require "pl.utils" / require("pl.utils")
(function_call
  name: (identifier) @_require
  arguments: [
    (string content: (string_content) @name.reference.import)
    (arguments . (string content: (string_content) @name.reference.import))]
  (#any-of? @_require "require" "dofile" "loadfile"))

; ---------------------------------------------------------------- calls

(function_call
  name: (identifier) @name.reference.call
  (#not-match? @name.reference.call "^(require|dofile|loadfile)$")) @reference.call
(function_call
  name: (dot_index_expression field: (identifier) @name.reference.call)) @reference.call
(function_call
  name: (method_index_expression method: (identifier) @name.reference.call)) @reference.call

; Lua has no inheritance syntax (metatables are set at run time): no inherits edges.
