; hookgraph query for Julia. Capture convention: docs/languages.md
; Modules nest with "." (Shapes.Inner.f); methods are functions of their module (multiple dispatch).

; ---------------------------------------------------------------- definitions

(module_definition
  name: (identifier) @name.definition.module
  (block)? @body) @definition.module

; function f(x) ... end / function f(x::T) where T ... end / f(x) = ... / f(x)::T = ...
; function Base.show(io, x) ... end adds a method to Base.show: the unit is Base.show (a method)
(function_definition
  (signature [
    (call_expression . (identifier) @name.definition.function)
    (where_expression . (call_expression . (identifier) @name.definition.function))
    (typed_expression . (call_expression . (identifier) @name.definition.function))
    (typed_expression . (where_expression . (call_expression . (identifier) @name.definition.function)))
    (identifier) @name.definition.function])
  (block)? @body) @definition.function
(function_definition
  (signature [
    (call_expression . (field_expression value: (_) @name.scope (identifier) @name.definition.function .))
    (where_expression . (call_expression . (field_expression value: (_) @name.scope (identifier) @name.definition.function .)))
    (typed_expression . (call_expression . (field_expression value: (_) @name.scope (identifier) @name.definition.function .)))])
  (block)? @body) @definition.function

(assignment
  . [(call_expression . (identifier) @name.definition.function)
     (where_expression . (call_expression . (identifier) @name.definition.function))
     (typed_expression . (call_expression . (identifier) @name.definition.function))]
  (operator) @_eq
  (#eq? @_eq "=")) @definition.function
(assignment
  . [(call_expression . (field_expression value: (_) @name.scope (identifier) @name.definition.function .))
     (where_expression . (call_expression . (field_expression value: (_) @name.scope (identifier) @name.definition.function .)))]
  (operator) @_eq
  (#eq? @_eq "=")) @definition.function

(macro_definition
  (signature (call_expression . (identifier) @name.definition.function))
  (block)? @body) @definition.function

(struct_definition
  (type_head [
    (identifier) @name.definition.struct
    (parametrized_type_expression . (identifier) @name.definition.struct)
    (binary_expression . [(identifier) @name.definition.struct
                          (parametrized_type_expression . (identifier) @name.definition.struct)])])
  (block)? @body) @definition.struct

(abstract_definition
  (type_head [
    (identifier) @name.definition.class
    (parametrized_type_expression . (identifier) @name.definition.class)
    (binary_expression . [(identifier) @name.definition.class
                          (parametrized_type_expression . (identifier) @name.definition.class)])])) @definition.class

; ---------------------------------------------------------------- documentation

; a docstring is the string right before a definition
((string_literal) @comment
  .
  [(function_definition) (assignment) (macro_definition) (struct_definition) (abstract_definition) (module_definition) (const_statement)])
(line_comment) @comment
(block_comment) @comment

; ---------------------------------------------------------------- imports

; using A, B.C / import A / using .PyCall: f, g / import Base: show
(using_statement [(identifier) (import_path)] @name.reference.import)
(import_statement [(identifier) (import_path)] @name.reference.import)
(using_statement (selected_import . [(identifier) (import_path)] @name.reference.import))
(import_statement (selected_import . [(identifier) (import_path)] @name.reference.import))
(using_statement (selected_import . [(identifier) (import_path)] @module.reference.import
  (identifier) @name.reference.import))
(import_statement (selected_import . [(identifier) (import_path)] @module.reference.import
  (identifier) @name.reference.import))
; include("file.jl")
(call_expression
  . (identifier) @_include
  (argument_list . (string_literal (content) @name.reference.import))
  (#eq? @_include "include"))

; ---------------------------------------------------------------- calls

(call_expression
  . (identifier) @name.reference.call
  (#not-match? @name.reference.call "^(include|println|print|error|throw|return|length|isa|typeof|string)$")) @reference.call
(call_expression
  . (field_expression (identifier) @name.reference.call .)) @reference.call

; ---------------------------------------------------------------- inheritance

; struct Circle <: Shape / abstract type Box{T} <: AbstractBox{T}
(type_head (binary_expression
  (operator) @_subtype
  . [(identifier) @name.reference.inherits
     (parametrized_type_expression . (identifier) @name.reference.inherits)
     (field_expression (identifier) @name.reference.inherits .) @reference.inherits]
  (#eq? @_subtype "<:")))
