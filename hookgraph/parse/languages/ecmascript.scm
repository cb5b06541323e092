; hookgraph query shared by JavaScript, TypeScript and TSX: the patterns whose node
; types the three grammars have in common. Each language adds its own file after this
; one (languages.json lists both). Capture convention: hookgraph/languages/__init__.py

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name.definition.function
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name.definition.function
  body: (statement_block) @body) @definition.function

(class_body
  (method_definition
    name: (_) @name.definition.method
    body: (statement_block) @body) @definition.method)

; const f = () => ..., const f = function () {...}, var/let too. The declarator is the
; definition; a declaration with a single declarator (and its export) wraps it.
(variable_declarator
  name: (identifier) @name.definition.function
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ]) @definition.function

; module.exports.f = function () {...}, Foo.prototype.f = () => ...
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name.definition.function)
    right: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.function)

; functions in object literals, the usual way to write a module of helpers:
; export default { getAdapter: (names) => {...}, isAbsolute(url) {...} }
(object
  (pair
    key: (property_identifier) @name.definition.function
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.function)
(object
  (method_definition
    name: (property_identifier) @name.definition.function
    body: (statement_block) @body) @definition.function)

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
(new_expression constructor: (identifier) @name.reference.call @reference.call)
(new_expression
  constructor: (member_expression property: (property_identifier) @name.reference.call) @reference.call)
