; hookgraph query for TypeScript (also compiled against the tsx grammar), after
; ecmascript.scm, which holds the patterns TypeScript shares with JavaScript.
; Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

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

; type aliases: export type inferProcedureInput<T> = ...; in type-level code (tRPC, zod) they are the API
(type_alias_declaration name: (type_identifier) @name.definition.type) @definition.type

; ---------------------------------------------------------------- imports

; import fs = require("fs")
(import_require_clause source: (string (string_fragment) @name.reference.import))

; ---------------------------------------------------------------- calls

; the grammar reads `await a.f<T>(x)` as a call of `await a.f`
(call_expression
  function: (await_expression [
    (identifier) @name.reference.call
    (member_expression property: (property_identifier) @name.reference.call)
  ])) @reference.call

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

; ---------------------------------------------------------------- declared types

; const r: Router = ..., (req: Request) => ..., private writer: Writer (a field, the class's):
; the variable and its type, so that r.route() is read as Router.route
(variable_declarator name: (identifier) @name.reference.types type: (type_annotation (_) @module.reference.types))
(required_parameter pattern: (identifier) @name.reference.types type: (type_annotation (_) @module.reference.types))
(optional_parameter pattern: (identifier) @name.reference.types type: (type_annotation (_) @module.reference.types))
(public_field_definition name: (property_identifier) @name.reference.types
  type: (type_annotation (_) @module.reference.types))
; const q = new Queue<Item>(): the type is the one built
(variable_declarator name: (identifier) @name.reference.builds
  !type value: (new_expression constructor: (_) @module.reference.builds))
