; hookgraph query for TypeScript; also compiled against the tsx grammar.
; Capture convention: hookgraph/languages/__init__.py

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name.definition.function
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name.definition.function
  body: (statement_block) @body) @definition.function

(class_declaration
  name: (type_identifier) @name.definition.class
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name.definition.class
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (type_identifier) @name.definition.interface
  body: (interface_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name.definition.enum
  body: (enum_body) @body) @definition.enum

; namespace N { ... }
(internal_module
  name: (identifier) @name.definition.module
  body: (statement_block) @body) @definition.module

(class_body
  (method_definition
    name: (_) @name.definition.method
    body: (statement_block) @body) @definition.method)

(class_body
  (abstract_method_signature
    name: (_) @name.definition.method) @definition.method)

; methods declared by an interface
(interface_body
  (method_signature
    name: (_) @name.definition.method) @definition.method)

; class fields holding functions: private handle = (e: Event): void => {...}
(class_body
  (public_field_definition
    name: (_) @name.definition.method
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.method)

; const f = () => ..., const f = function () {...}, var/let too. The declarator is the
; definition; a declaration with a single declarator (and its export) wraps it.
(variable_declarator
  name: (identifier) @name.definition.function
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ]) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

(import_statement source: (string (string_fragment) @name.reference.import))
(import_statement
  (import_clause (identifier) @name.reference.import)
  source: (string (string_fragment) @module.reference.import))
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @name.reference.import)))
  source: (string (string_fragment) @module.reference.import))
(export_statement source: (string (string_fragment) @name.reference.import))
; import fs = require("fs")
(import_require_clause source: (string (string_fragment) @name.reference.import))

; require("x"), import("x")
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @name.reference.import))
  (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @name.reference.import)))

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (member_expression property: (property_identifier) @name.reference.call)) @reference.call
; the grammar reads `await a.f<T>(x)` as a call of `await a.f`
(call_expression
  function: (await_expression [
    (identifier) @name.reference.call
    (member_expression property: (property_identifier) @name.reference.call)
  ])) @reference.call
(new_expression constructor: (identifier) @name.reference.call @reference.call)
(new_expression
  constructor: (member_expression property: (property_identifier) @name.reference.call) @reference.call)

; ---------------------------------------------------------------- inheritance

; class A extends B / extends ns.B / extends B<T>
(extends_clause value: (identifier) @name.reference.inherits)
(extends_clause
  value: (member_expression property: (property_identifier) @name.reference.inherits) @reference.inherits)
; implements C, D<T>, ns.E
(implements_clause (type_identifier) @name.reference.inherits)
(implements_clause
  (generic_type name: (type_identifier) @name.reference.inherits) @reference.inherits)
(implements_clause
  (nested_type_identifier name: (type_identifier) @name.reference.inherits) @reference.inherits)
; interface I extends J, K<T>
(extends_type_clause type: (type_identifier) @name.reference.inherits)
(extends_type_clause
  type: (generic_type name: (type_identifier) @name.reference.inherits) @reference.inherits)
(extends_type_clause
  type: (nested_type_identifier name: (type_identifier) @name.reference.inherits) @reference.inherits)
