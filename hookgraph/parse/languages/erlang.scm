; hookgraph query for Erlang. Capture convention: docs/languages.md
; The module is the file: `-module(foo).` prefixes its functions as Erlang writes a
; remote call, foo:bar. Each clause group tree-sitter reports is one unit.

; ---------------------------------------------------------------- namespaces

; the module is also a unit: its -behaviour and -import belong to it
(module_attribute name: (atom) @name.namespace) @definition.module

; ---------------------------------------------------------------- definitions

(fun_decl
  clause: (function_clause
    name: (atom) @name.definition.function
    body: (clause_body) @body)) @definition.function

(record_decl name: (atom) @name.definition.struct) @definition.struct

; ---------------------------------------------------------------- documentation

(comment) @comment
(spec) @annotation

; ---------------------------------------------------------------- imports

(pp_include file: (string) @name.reference.import)
(pp_include_lib file: (string) @name.reference.import)
(import_attribute module: (atom) @name.reference.import)
(import_attribute
  module: (atom) @module.reference.import
  funs: (fa fun: (atom) @name.reference.import))

; ---------------------------------------------------------------- calls

; (not the built-in types of a record field: count :: integer())
(call
  expr: (atom) @name.reference.call
  (#not-match? @name.reference.call "^(integer|non_neg_integer|pos_integer|neg_integer|float|number|atom|binary|bitstring|boolean|byte|char|string|nonempty_string|list|nonempty_list|tuple|map|pid|port|reference|term|any|none|no_return|fun|module|node|timeout|iodata|iolist|mfa|arity|identifier|record)$")) @reference.call
(call expr: (remote fun: (atom) @name.reference.call)) @reference.call

; ---------------------------------------------------------------- inheritance

; -behaviour(gen_server).: the module implements that behaviour's callbacks
(behaviour_attribute name: (atom) @name.reference.inherits)
