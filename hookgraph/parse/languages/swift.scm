; hookgraph query for Swift. Capture convention: docs/languages.md
;
; The grammar has one class_declaration for class, struct, enum, actor and
; extension, told apart by its declaration_kind keyword.

; ---------------------------------------------------------------- definitions

(class_declaration
  declaration_kind: "class"
  name: (type_identifier) @name.definition.class
  body: (_) @body) @definition.class

(class_declaration
  declaration_kind: "actor"
  name: (type_identifier) @name.definition.class
  body: (_) @body) @definition.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name.definition.struct
  body: (_) @body) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name.definition.enum
  body: (_) @body) @definition.enum

(protocol_declaration
  name: (type_identifier) @name.definition.interface
  body: (protocol_body) @body) @definition.interface

; extension UIPasteboard { ... } / extension Array where Element: Equatable:
; prefixes its members' names with the extended type, not a unit itself
(class_declaration
  declaration_kind: "extension"
  name: [
    (user_type (type_identifier) @name.container .)
    (user_type (type_identifier) @name.container . (type_arguments) .)
  ]) @container

(function_declaration
  name: (simple_identifier) @name.definition.function
  body: (function_body) @body) @definition.function

; operators: static func == (lhs: T, rhs: T) -> Bool
(function_declaration
  name: [(custom_operator) "==" "<" ">" "+" "-" "*" "/"] @name.definition.function
  body: (function_body) @body) @definition.function

; computed properties run code: var url: URL? { get {...} set {...} }
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name.definition.function)
  computed_value: (computed_property) @body) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name.definition.function) @definition.function

(init_declaration
  name: "init" @name.definition.function
  body: (function_body)? @body) @definition.function

(deinit_declaration
  "deinit" @name.definition.function
  body: (function_body) @body) @definition.function

; public typealias Parameters = [String: Any]
(typealias_declaration name: (type_identifier) @name.definition.type) @definition.type

; ---------------------------------------------------------------- documentation

(comment) @comment
(multiline_comment) @comment
(attribute) @annotation

; ---------------------------------------------------------------- imports

(import_declaration (identifier) @name.reference.import)

; ---------------------------------------------------------------- calls

; f(x), f { ... }; items[i] is a subscript, not a call
(call_expression
  (simple_identifier) @name.reference.call
  (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call
(call_expression
  (navigation_expression
    suffix: (navigation_suffix suffix: (simple_identifier) @name.reference.call))
  (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call

; ---------------------------------------------------------------- inheritance

; class A: Base, Protocol / struct S: Codable / extension T: P (from T) / protocol P: Q
(inheritance_specifier
  inherits_from: [
    (user_type (type_identifier) @name.reference.inherits .)
    (user_type (type_identifier) @name.reference.inherits . (type_arguments) .)
  ] @reference.inherits)
