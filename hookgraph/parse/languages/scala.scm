; hookgraph query for Scala 2 and 3. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

(class_definition
  name: (identifier) @name.definition.class
  body: (_)? @body) @definition.class

; object Foo: a singleton class (also a companion object)
(object_definition
  name: (identifier) @name.definition.class
  body: (_)? @body) @definition.class

(trait_definition
  name: (identifier) @name.definition.trait
  body: (_)? @body) @definition.trait

(enum_definition
  name: (identifier) @name.definition.enum
  body: (_)? @body) @definition.enum

(function_definition
  name: (_) @name.definition.function
  body: (_) @body) @definition.function

; abstract members: def area: Double
(function_declaration
  name: (_) @name.definition.function) @definition.function

; val handler = (x: Int) => ...
(val_definition
  pattern: (identifier) @name.definition.function
  value: (lambda_expression) @body) @definition.function

; type Id[A] = A; type ValidatedNel[+E, +A] = Validated[NonEmptyList[E], A]
(type_definition name: (type_identifier) @name.definition.type) @definition.type

; ---------------------------------------------------------------- documentation

(comment) @comment
(block_comment) @comment
(annotation) @annotation

; ---------------------------------------------------------------- imports

; import a.b.C / import a.b._ / import a.b.{C, D => E}: the path is one
; identifier per segment, captured from the first to the last
(import_declaration . (identifier) @name.reference.import .)
(import_declaration . (identifier) @name.reference.import . [(namespace_wildcard) (wildcard)])
(import_declaration
  . (identifier) @name.reference.import
  (identifier) @name.reference.import .)
(import_declaration
  . (identifier) @name.reference.import
  (identifier) @name.reference.import .
  [(namespace_wildcard) (wildcard)])
(import_declaration
  . (identifier) @module.reference.import .
  (namespace_selectors [
    (identifier) @name.reference.import
    (arrow_renamed_identifier name: (identifier) @name.reference.import)
  ]))
(import_declaration
  . (identifier) @module.reference.import
  (identifier) @module.reference.import .
  (namespace_selectors [
    (identifier) @name.reference.import
    (arrow_renamed_identifier name: (identifier) @name.reference.import)
  ]))

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (field_expression field: (identifier) @name.reference.call)) @reference.call
(call_expression
  function: (generic_function function: [
    (identifier) @name.reference.call
    (field_expression field: (identifier) @name.reference.call)
  ])) @reference.call
; new Point(x, y) / new Base[Int](1)
(instance_expression [
  (type_identifier) @name.reference.call
  (generic_type type: (type_identifier) @name.reference.call)
  (stable_type_identifier (type_identifier) @name.reference.call .)
] @reference.call)

; ---------------------------------------------------------------- inheritance

; class A extends B(1) with C[T] with d.E (the grammar's type: field is not
; reliable after `with`, so the types are matched as children)
(extends_clause [
  (type_identifier) @name.reference.inherits
  (generic_type type: (type_identifier) @name.reference.inherits)
  (generic_type type: (stable_type_identifier (type_identifier) @name.reference.inherits .))
  (stable_type_identifier (type_identifier) @name.reference.inherits .)
] @reference.inherits)
