; hookgraph query shared by JavaScript, TypeScript and TSX: the patterns whose node
; types the three grammars have in common. Each language adds its own file after this
; one (languages.json lists both). Capture convention: docs/languages.md

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

; Foo.prototype.f = function () {...}: a method of Foo (the older way to write a class)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @name.scope
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name.definition.method)
    right: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ]) @definition.method
  (#eq? @_prototype "prototype"))

; AxiosError.from = (...) => ..., validators.transitional = function (...) {...}: a
; function kept on an object, qualified by it (Foo.from); module.exports.f and
; exports.f qualify nothing
(expression_statement
  (assignment_expression
    left: (member_expression
      object: [(identifier) (member_expression)] @name.scope
      property: (property_identifier) @name.definition.function)
    right: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ]) @definition.function
  (#not-match? @name.scope "^(module[.]exports|exports|module|this)$|[.]prototype$"))
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name.definition.function)
    right: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ]) @definition.function
  (#not-eq? @name.definition.function "exports"))

; module.exports = function (...) {...}: the module itself is the function; it is
; named after the file (languages.json "self_names"), or after itself when it has a name
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @name.definition.function)
    right: [
      (arrow_function body: (_) @body)
      (function_expression !name body: (_) @body)
      (generator_function !name body: (_) @body)
    ]) @definition.function
  (#eq? @_module "module")
  (#eq? @name.definition.function "exports"))
(expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: [
      (function_expression name: (identifier) @name.definition.function body: (_) @body)
      (generator_function name: (identifier) @name.definition.function body: (_) @body)
    ]) @definition.function
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; export default function (...) {...} / export default (config) => {...}: named after the file
(export_statement
  "default" @name.definition.function
  value: [
    (arrow_function body: (_) @body)
    (function_expression !name body: (_) @body)
    (generator_function !name body: (_) @body)
  ]) @definition.function

; class expressions: module.exports = class Foo {...}, const Foo = class {...},
; export default class {...} (named after the file)
(class
  name: (_) @name.definition.class
  body: (class_body) @body) @definition.class
(variable_declarator
  name: (identifier) @name.definition.class
  value: (class !name body: (class_body) @body)) @definition.class
(export_statement
  "default" @name.definition.class
  value: (class !name body: (class_body) @body)) @definition.class
(expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @name.definition.class)
    right: (class !name body: (class_body) @body)) @definition.class
  (#eq? @_module "module")
  (#eq? @name.definition.class "exports"))

; objects of functions qualify their members: const defaults = { validateStatus() {...} }
; gives defaults.validateStatus, Foo.prototype = { bar() {...} } gives Foo.bar, and
; export default { getAdapter } / module.exports = { ... } are named after the file
(variable_declarator
  name: (identifier) @name.container
  value: (object) @container)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @name.container
      property: (property_identifier) @_prototype)
    right: (object) @container)
  (#eq? @_prototype "prototype"))
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @name.container)
    right: (object) @container)
  (#eq? @_module "module")
  (#eq? @name.container "exports"))
(export_statement
  "default" @name.container
  value: (object) @container)

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
; import * as nav from "next/navigation": nav.f() is that module's, not a file of ours named f
(import_statement
  (import_clause (namespace_import (identifier) @name.reference.import))
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

; exported named values: export const VERSION = "1.7.7", export const DEFAULT_TIMEOUT = 1000 * 60 (`const`
; only: Svelte's `export let height` is a component's prop, and a `let` is no constant);
; an object only under an UPPER_CASE name (luxon's export const DATE_SHORT = { year: "numeric", ... }):
; other exported objects hold functions and are containers (above), and a function or class value is
; that kind
(program (export_statement declaration: (lexical_declaration "const"
  (variable_declarator name: (identifier) @name.definition.constant
    value: [(string) (template_string) (number) (true) (false) (null) (array) (regex) (identifier)
            (member_expression) (call_expression) (new_expression) (binary_expression) (unary_expression)])
  @definition.constant)))
((program (export_statement declaration: (lexical_declaration "const"
  (variable_declarator name: (identifier) @name.definition.constant value: (object)) @definition.constant)))
  (#match? @name.definition.constant "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- exports
; (what the file unit lists besides its definitions: constants, re-exports, barrels)

(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name.export)))
(export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name.export)))
(export_statement "default" value: (identifier) @name.export)
(export_clause (export_specifier name: (_) @name.export !alias))
; export { axios as default }: axios; export { a as b }: b
; (the javascript grammar reads that `default` as a keyword, the typescript one as a name)
(export_clause (export_specifier name: (_) @name.export alias: (_) @_alias) (#eq? @_alias "default"))
(export_clause (export_specifier alias: (identifier) @name.export) (#not-eq? @name.export "default"))
(export_statement (namespace_export (_) @name.export))
; export * from "./core": the module it passes on
(export_statement "*" source: (string (string_fragment) @name.export))
; module.exports = { parse, format: formatDate } / module.exports = Router
(expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (object [
      (shorthand_property_identifier) @name.export
      (pair key: (property_identifier) @name.export)
    ]))
  (#eq? @_module "module")
  (#eq? @_exports "exports"))
(expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (identifier) @name.export)
  (#eq? @_module "module")
  (#eq? @_exports "exports"))
